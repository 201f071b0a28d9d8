// A received message's Replay (the Inbound message page's Webhook requests card): it counts the attempts
// recorded, queues the request again with Webhook Logs' call, says 'Replayed, queued' while it reads the
// entry every second, and shows the new attempt's answer once it is recorded; a refusal is shown in the
// row; the reading stops after REPLAY_WATCH_TRIES.
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubNetwork, until } from './network.ts';

type Progress = 'replayed' | 'success' | 'retrying';

function detail(progress: Progress, results: (number | null)[]) {
  return {
    log: {
      id: 7,
      date: 1_795_000_000,
      url: 'https://hooks.example/in',
      status: progress === 'success' ? 'success' : 'pending',
      progress,
      verb: 'post',
      field_set: 'resend',
      content_type: 'application/json',
      payload: { type: 'email.received' },
      event_type: 'email.received',
      webhook_id: 'msg_7',
      webhook: null,
      attempts: results.length,
      last_status_code: results.at(-1) ?? null,
      next_attempt: null,
    },
    request: { method: 'POST', url: 'https://hooks.example/in', headers: {}, payload: { type: 'email.received' } },
    attempts: results.map((code, i) => ({
      at: 1_795_000_100 + i,
      duration_ms: 12,
      status_code: code,
      error: code === null ? 'connect ECONNREFUSED' : null,
      response_body: null,
      next_retry_at: null,
    })),
  };
}

async function renderReplay() {
  vi.resetModules();
  const { default: InboundWebhookReplay } = await import('../../src/islands/InboundWebhookReplay.tsx');
  render(<InboundWebhookReplay logId={7} attempts={1} />);
}

/** Lets pending promises and React updates run without moving the fake clock. */
const settle = () => act(() => new Promise<void>((resolve) => setImmediate(resolve)));
const statusText = () => screen.queryByTestId('inbound-webhook-replay-status')?.textContent;

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('InboundWebhookReplay', () => {
  it('queues the request again and shows the new attempt once it is recorded', async () => {
    let reads = 0;
    // the first read counts one attempt; the second read after the replay finds the new one
    const calls = stubNetwork({
      'GET /v1/webhook-logs/7': () =>
        json(reads++ < 2 ? detail(reads === 1 ? 'success' : 'replayed', [200]) : detail('retrying', [200, null])),
      'POST /v1/webhook-logs/7/replay': () => json({ message: 'Queued again.' }, 202),
    });
    await renderReplay();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await act(async () => screen.getByTestId('inbound-webhook-replay').click());
    await until(() => statusText());
    expect(statusText()).toBe('Replayed, queued: waiting for the new attempt…');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'GET /v1/webhook-logs/7',
      'POST /v1/webhook-logs/7/replay',
    ]);
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    await settle();
    expect(statusText()).toBe('Replayed, queued: waiting for the new attempt…');
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    await settle();
    expect(statusText()).toBe('New attempt: no answer (connect ECONNREFUSED). Retrying.');
    // done: no more reads
    const reads0 = calls.length;
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(calls.length).toBe(reads0);
  });

  it('shows a refusal in the row, and gives up watching after REPLAY_WATCH_TRIES reads', async () => {
    const { REPLAY_WATCH_MS, REPLAY_WATCH_TRIES } = await import('../../src/stores/webhook-logs.ts');
    let refuse = true;
    const calls = stubNetwork({
      'GET /v1/webhook-logs/7': () => json(detail('success', [200])),
      'POST /v1/webhook-logs/7/replay': () =>
        refuse
          ? json({ error: { code: 'not_found', message: 'No such webhook log entry' } }, 404)
          : json({ message: 'Queued again.' }, 202),
    });
    await renderReplay();
    await act(async () => screen.getByTestId('inbound-webhook-replay').click());
    const error = await until(() => screen.queryByTestId('inbound-webhook-replay-error'));
    expect(error.textContent).toBe('No such webhook log entry');
    expect(error.getAttribute('role')).toBe('alert');

    refuse = false;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await act(async () => screen.getByTestId('inbound-webhook-replay').click());
    await until(() => statusText());
    const before = calls.filter((c) => c.method === 'GET').length;
    for (let i = 0; i < REPLAY_WATCH_TRIES + 5; i++) {
      await act(() => vi.advanceTimersByTimeAsync(REPLAY_WATCH_MS));
      await settle();
    }
    expect(calls.filter((c) => c.method === 'GET').length - before).toBe(REPLAY_WATCH_TRIES);
    expect(statusText()).toBe('Replayed, queued: reload the page to see the new attempt.');
    expect(screen.queryByTestId('inbound-webhook-replay-error')).toBeNull();
  });
});
