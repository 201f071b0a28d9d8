// The flow control's pieces on their own (delivery/in-flow.ts); the SMTP side is in
// tests/integration/in-flow.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InFlow, lagOfClaim } from '../../src/server/delivery/in-flow.ts';

afterEach(() => vi.useRealTimers());

describe('lagOfClaim', () => {
  const at = (ms: number, attempts = 1) => ({ attempts, queued_at: new Date(ms) });
  it('is 0 when the claim took fewer than it asked for: the due queue is empty', () => {
    expect(lagOfClaim([at(0)], 4, 10_000)).toBe(0);
  });
  it('is the wait of the oldest first attempt in a full claim', () => {
    expect(lagOfClaim([at(9_000), at(7_500), at(8_000)], 3, 10_000)).toBe(2_500);
  });
  it('leaves retries out: a full claim of retries says nothing', () => {
    expect(lagOfClaim([at(0, 2), at(0, 3)], 2, 10_000)).toBeNull();
    expect(lagOfClaim([at(0, 2), at(9_000)], 2, 10_000)).toBe(1_000);
  });
});

describe('InFlow', () => {
  it('admits at once while delivery keeps up', async () => {
    const delayed = vi.fn();
    const flow = new InFlow(500, 1000, { delayed });
    flow.observe(500);
    await flow.admit();
    expect(delayed).not.toHaveBeenCalled();
  });

  it('holds while behind; catching up lets every waiting message go', async () => {
    const flow = new InFlow(500, 60_000);
    flow.observe(501);
    const order: string[] = [];
    const a = flow.admit().then(() => order.push('a'));
    const b = flow.admit().then(() => order.push('b'));
    expect(flow.waiting).toBe(2);
    flow.observe(2_000); // still behind: nobody goes
    await Promise.resolve();
    expect(order).toEqual([]);
    flow.observe(0);
    await Promise.all([a, b]);
    expect(order).toEqual(['a', 'b']);
    expect(flow.waiting).toBe(0);
  });

  it('lets a message go after the longest pause even when still behind', async () => {
    vi.useFakeTimers();
    const flow = new InFlow(500, 1000);
    flow.observe(5_000);
    let done = false;
    const p = flow.admit().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
  });

  it('never pauses when the longest pause is 0 (turned off), and close() releases the waiting', async () => {
    const off = new InFlow(500, 0);
    off.observe(60_000);
    await off.admit();
    const flow = new InFlow(500, 60_000);
    flow.observe(60_000);
    const p = flow.admit();
    flow.close();
    await p;
    expect(flow.lagMs).toBe(0);
  });
});
