// The Overview donut widget (docs/console-reports.md §2, §4, §9): 'No Data' while no answer has come or the
// total is 0, a Retry button once 45 s passed without an answer (the widget's clock is injected and
// moved by the test, not waited for), and the donut with abbreviated counts once the stats arrive.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Timers } from '../../src/lib/answer-watch.ts';
import { json, later, stubNetwork } from './network.ts';

const GROUP = '6f1c2b8e-0d1a-4c55-9a57-3c2f8e1b7d10';
const share = (value: number, percentage: number) => ({ value, percentage });
// the four states add up to the total (src/lib/figures.ts)
const STATS = {
  total: 12_345,
  sent: share(12_100, 98.02),
  delivered: share(11_800, 95.59),
  bounced: share(300, 2.43),
  bouncesHard: share(200, 1.62),
  bouncesSoft: share(100, 0.81),
  complaints: share(4, 0.03),
  failed: share(225, 1.82),
  pending: share(20, 0.16),
  uniqueOpens: share(6_000, 50.8),
  notOpened: share(5_800, 49.2),
  uniqueClicks: share(900, 7.6),
  notClicked: share(10_900, 92.4),
  totalOpens: { value: 7_000 },
  totalClicks: { value: 1_000 },
  machineOpens: { value: 0 },
  machineClicks: { value: 0 },
};

/** A clock the test moves: the timeouts set, each run when the test says. */
function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  const timers: Timers = {
    setTimeout: (fn, ms) => {
      pending.set(++next, { fn, ms });
      return next;
    },
    clearTimeout: (handle) => void pending.delete(handle as number),
  };
  return {
    timers,
    delays: () => [...pending.values()].map((t) => t.ms),
    runAll: () =>
      act(() => {
        for (const [id, t] of [...pending.entries()]) {
          pending.delete(id);
          t.fn();
        }
      }),
  };
}

async function renderWidget(timers: Timers) {
  vi.resetModules();
  const { default: OverviewDelivery } = await import('../../src/islands/OverviewDelivery.tsx');
  render(<OverviewDelivery groupUuid={GROUP} timers={timers} />);
}

beforeEach(() => vi.unstubAllGlobals());
afterEach(cleanup);

describe('Overview delivery widget', () => {
  it("shows 'No Data' while waiting, Retry once 45 s pass without an answer, and the donut after Retry", async () => {
    const held = later();
    let answer: () => Promise<Response> | Response = () => held.promise;
    const calls = stubNetwork({ 'POST /v1/transaction-groups/overview': () => answer() });
    const clock = manualTimers();
    await renderWidget(clock.timers);
    await vi.waitFor(() => expect(calls.length).toBe(1));
    expect(calls[0]!.body).toMatchObject({ group_uuid: GROUP });
    expect(screen.getByTestId('delivery-empty').textContent).toBe('No Data');
    expect(screen.queryByTestId('delivery-retry')).toBeNull();
    expect(clock.delays()).toEqual([45_000]);

    clock.runAll();
    const retry = await screen.findByTestId('delivery-retry');
    answer = () => json({ overviewStats: STATS });
    fireEvent.click(retry);
    await screen.findByTestId('delivery-donut');
    expect(calls.length).toBe(2);
    // abbreviated, the exact count in the tooltip
    expect(screen.getByTestId('delivery-total').textContent).toBe('12.3k');
    expect(screen.getByTestId('delivery-total').getAttribute('title')).toBe('12,345');
    expect(screen.getByTestId('delivery-delivered-share').textContent).toBe('95.6%');
    // pending beside failed, grey in the donut
    expect(screen.getByTestId('delivery-pending').textContent).toBe('20');
    expect(screen.getByTestId('delivery-pending-share').textContent).toBe('0.2%');
    expect(document.querySelectorAll('[data-testid=delivery-donut] .donut-slice.is-pending')).toHaveLength(1);
    // the complaint rate, of the delivered, beside the bounces
    expect(screen.getByTestId('delivery-complaints').textContent).toBe('4');
    expect(screen.getByTestId('delivery-complaints-share').textContent).toBe('0.03%');
    expect(screen.queryByTestId('delivery-retry')).toBeNull();
  });

  it("shows 'No Data' without Retry when the range has no transactions", async () => {
    const empty = Object.fromEntries(
      Object.entries(STATS).map(([k, v]) => [
        k,
        typeof v === 'number' ? 0 : 'percentage' in v ? share(0, 0) : { value: 0 },
      ]),
    );
    stubNetwork({ 'POST /v1/transaction-groups/overview': () => json({ overviewStats: empty }) });
    const clock = manualTimers();
    await renderWidget(clock.timers);
    await vi.waitFor(() => expect(screen.getByTestId('delivery-total').textContent).toBe('0'));
    expect(screen.getByTestId('delivery-empty').textContent).toBe('No Data');
    expect(screen.queryByTestId('delivery-donut')).toBeNull();
    // answered: the 45 s watch was cleared, so no Retry ever
    expect(clock.delays()).toEqual([]);
    clock.runAll();
    expect(screen.queryByTestId('delivery-retry')).toBeNull();
  });
});
