// db/claim-loop.ts, the loop the three workers share: claims while there is room, processes items
// beside each other, loses no wake-up, and stops within its grace period.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ClaimLoop } from '../../src/server/db/claim-loop.ts';

/** A queue of numbers and items whose processing ends when the test says so. */
function harness(opts: { concurrency?: number; pollMs?: number; wakeWhenDone?: boolean } = {}) {
  const queue: number[] = [];
  const claims: number[] = [];
  const finish = new Map<number, () => void>();
  const done: number[] = [];
  const concurrency = opts.concurrency ?? 2;
  let claimGate: Promise<void> | null = null;
  const loop = new ClaimLoop<number>({
    what: 'numbers',
    logger: pino({ level: 'silent' }),
    pollMs: opts.pollMs ?? 60_000,
    room: (inFlight) => concurrency - inFlight,
    claim: async (limit) => {
      claims.push(limit);
      const taken = queue.splice(0, limit); // what the database would see when the claim runs
      if (claimGate) await claimGate;
      return taken;
    },
    process: (n) =>
      new Promise<void>((resolve) =>
        finish.set(n, () => {
          done.push(n);
          resolve();
        }),
      ),
    wakeWhenDone: opts.wakeWhenDone,
  });
  const until = async (test: () => boolean) => {
    while (!test()) await new Promise((r) => setImmediate(r));
  };
  return { queue, claims, finish, done, loop, until, gate: (p: Promise<void> | null) => (claimGate = p) };
}

describe('ClaimLoop', () => {
  it('claims up to its room, processes items side by side and claims again when one finishes', async () => {
    const h = harness();
    h.queue.push(1, 2, 3);
    h.loop.start();
    await h.until(() => h.finish.has(1) && h.finish.has(2));
    expect(h.loop.inFlight).toBe(2);
    expect(h.finish.has(3)).toBe(false);
    h.finish.get(1)!();
    await h.until(() => h.finish.has(3));
    expect(h.claims.at(-1)).toBe(1);
    h.finish.get(2)!();
    h.finish.get(3)!();
    expect(await h.loop.stop(1000)).toBe(true);
    expect(h.done.sort()).toEqual([1, 2, 3]);
  });

  it(
    'a poke that comes while a claim is running is not lost: ' +
      'the loop claims again instead of waiting for the poll',
    async () => {
      const h = harness();
      let open!: () => void;
      h.gate(new Promise<void>((r) => (open = r)));
      h.loop.start();
      await h.until(() => h.claims.length === 1); // the first claim is running, the queue is still empty
      h.queue.push(7);
      h.loop.poke();
      h.gate(null);
      open();
      await h.until(() => h.finish.has(7)); // the poll is a minute away: only the kept wake-up explains this
      h.finish.get(7)!();
      await h.loop.stop();
    },
  );

  it('with wakeWhenDone false, a finished item does not start a claim by itself', async () => {
    const h = harness({ wakeWhenDone: false });
    h.queue.push(1);
    h.loop.start();
    await h.until(() => h.finish.has(1));
    const claimsBefore = h.claims.length;
    h.queue.push(2);
    h.finish.get(1)!();
    await h.until(() => h.done.length === 1);
    await new Promise((r) => setImmediate(r));
    expect(h.claims.length).toBe(claimsBefore);
    h.loop.poke();
    await h.until(() => h.finish.has(2));
    h.finish.get(2)!();
    await h.loop.stop();
  });

  it(
    'stop() answers false when items are still in flight ' + 'at the end of the grace period; idle() waits for them',
    async () => {
      const h = harness();
      h.queue.push(1);
      h.loop.start();
      await h.until(() => h.finish.has(1));
      expect(await h.loop.stop(10)).toBe(false);
      expect(h.loop.running).toBe(false);
      const idle = h.loop.idle();
      h.finish.get(1)!();
      await idle;
      expect(h.loop.inFlight).toBe(0);
    },
  );
});
