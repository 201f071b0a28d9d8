// The Webhook Logs island: it shows the first page the server rendered without asking
// again, then takes over sorting; after Replay the row and More info say 'Replayed, queued' (not
// 'Retrying': nothing failed), and the entry is read again every second until its new attempt is
// recorded, which then shows without a reload; the reading stops after REPLAY_WATCH_TRIES.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, stubNetwork, type Call } from './network.ts';

type Progress = 'queued' | 'replayed' | 'retrying' | 'success' | 'failed';

function log(id: number, progress: Progress, attempts = 1) {
  return {
    id,
    date: 1_795_000_000 + id,
    url: 'https://hooks.example/in',
    status: progress === 'success' || progress === 'failed' ? progress : 'pending',
    progress,
    verb: 'post',
    field_set: 'standard',
    content_type: 'application/json',
    payload: { type: 'email.sent' },
    event_type: 'sent',
    webhook_id: `msg_${id}`,
    webhook: null,
    attempts,
    last_status_code: progress === 'success' ? 200 : 500,
    next_attempt: null,
  };
}

function detail(id: number, progress: Progress, results: number[]) {
  return {
    log: log(id, progress, results.length),
    request: { method: 'POST', url: 'https://hooks.example/in', headers: {}, payload: { type: 'email.sent' } },
    attempts: results.map((code, i) => ({
      at: 1_795_000_100 + i,
      duration_ms: 12,
      status_code: code,
      error: null,
      response_body: null,
      next_retry_at: null,
    })),
  };
}

const FIRST = {
  data: [log(2, 'failed'), log(1, 'success')],
  meta: { current_page: 1, per_page: 10, total: 2, last_page: 1, total_capped: false },
};
const statuses = () => screen.getAllByTestId('webhook-log-status').map((s) => s.textContent);

const WEBHOOKS = [
  { id: '11111111-1111-4111-8111-111111111111', url: 'https://hooks.example/in' },
  { id: '22222222-2222-4222-8222-222222222222', url: 'https://hooks.example/resend' },
];

async function renderLogs(webhooks: typeof WEBHOOKS = []) {
  vi.resetModules();
  const { default: WebhookLogs } = await import('../../src/islands/WebhookLogs.tsx');
  const { default: Alerts } = await import('../../src/islands/Alerts.tsx');
  // the island loads its modal lazily: loaded here first, so a query for what the modal shows waits
  // for React alone, not for a module's first load (over a second on a loaded machine)
  await import('../../src/components/WebhookLogModal.tsx');
  render(
    <>
      <WebhookLogs initial={FIRST} webhooks={webhooks} />
      <Alerts />
    </>,
  );
}

/** Lets pending promises and React updates run without moving the fake clock. */
const settle = () => act(() => new Promise<void>((resolve) => setImmediate(resolve)));

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Webhook Logs island', () => {
  it('offers no Webhook select for one webhook; with several, the select asks for one webhook’s page 1', async () => {
    await renderLogs(WEBHOOKS.slice(0, 1));
    expect(screen.queryByTestId('webhook-logs-filter')).toBeNull();
    cleanup();
    const calls = stubNetwork({ 'POST /v1/webhook-logs': () => json({ ...FIRST, data: [FIRST.data[1]] }) });
    await renderLogs(WEBHOOKS);
    const select = screen.getByTestId<HTMLSelectElement>('webhook-logs-filter');
    expect([...select.options].map((o) => o.textContent)).toEqual(['All webhooks', ...WEBHOOKS.map((w) => w.url)]);
    await act(async () => void fireEvent.change(select, { target: { value: WEBHOOKS[1].id } }));
    await vi.waitFor(() => expect(statuses()).toEqual(['Success']));
    await act(async () => void fireEvent.change(select, { target: { value: '' } }));
    await vi.waitFor(() => expect(calls).toHaveLength(2));
    expect(calls.map((c) => c.body)).toEqual([
      { page: 1, order_by: 'desc', webhook: WEBHOOKS[1].id },
      { page: 1, order_by: 'desc' },
    ]);
  });

  it('shows the page the server rendered without loading it again, then sorts through the API', async () => {
    const calls = stubNetwork({ 'POST /v1/webhook-logs': () => json({ ...FIRST, data: [...FIRST.data].reverse() }) });
    await renderLogs();
    expect(statuses()).toEqual(['Failed', 'Success']);
    await settle();
    expect(calls).toEqual([]);
    await act(async () => screen.getByTestId('sort-date').querySelector('button')!.click());
    await vi.waitFor(() => expect(statuses()).toEqual(['Success', 'Failed']));
    expect(calls.map((c) => [c.method, c.path, c.body])).toEqual([
      ['POST', '/v1/webhook-logs', { page: 1, order_by: 'asc' }],
    ]);
  });

  it("says 'Replayed, queued' after Replay and shows the new attempt's result when it is recorded", async () => {
    let reads = 0;
    // the third read after the replay finds the new attempt
    const calls = stubNetwork({
      'GET /v1/webhook-logs/2': () =>
        json(
          reads++ === 0
            ? detail(2, 'failed', [500])
            : reads < 4
              ? detail(2, 'replayed', [500])
              : detail(2, 'success', [500, 200]),
        ),
      'POST /v1/webhook-logs/2/replay': () => json({ message: 'Queued again.' }, 202),
    });
    await renderLogs();
    await act(async () => screen.getAllByTestId('webhook-log-more')[0].click());
    await screen.findByTestId('webhook-log-replay');
    await vi.waitFor(() => expect(screen.getByTestId('webhook-log-detail-status').textContent).toBe('Failed'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await act(async () => screen.getByTestId('webhook-log-replay').click());
    await settle();
    expect(statuses()).toEqual(['Replayed, queued', 'Success']);
    expect(screen.getAllByTestId('webhook-log-status')[0].className).not.toContain('is-warning');
    expect(screen.getByTestId('webhook-log-detail-status').textContent).toBe('Replayed, queued');
    expect(screen.getByTestId('alert').textContent).toBe('Replayed: the event is queued and sent within seconds.');

    await act(() => vi.advanceTimersByTimeAsync(1_000));
    await settle();
    expect(statuses()[0]).toBe('Replayed, queued');
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    await settle();
    expect(statuses()).toEqual(['Success', 'Success']);
    expect(screen.getAllByTestId('webhook-log-attempt')).toHaveLength(2);
    expect(screen.getByTestId('webhook-log-detail-status').textContent).toBe('Success');
    // done: no more reads
    const read = (cs: Call[]) => cs.filter((c) => c.method === 'GET').length;
    const after = read(calls);
    await act(() => vi.advanceTimersByTimeAsync(10_000));
    expect(read(calls)).toBe(after);
  });

  it('stops reading a replayed entry after REPLAY_WATCH_TRIES reads', async () => {
    const { REPLAY_WATCH_MS, REPLAY_WATCH_TRIES } = await import('../../src/stores/webhook-logs.ts');
    let first = true;
    const calls = stubNetwork({
      'GET /v1/webhook-logs/2': () => {
        const answer = first ? detail(2, 'failed', [500]) : detail(2, 'replayed', [500]);
        first = false;
        return json(answer);
      },
      'POST /v1/webhook-logs/2/replay': () => json({ message: 'Queued again.' }, 202),
    });
    await renderLogs();
    await act(async () => screen.getAllByTestId('webhook-log-more')[0].click());
    await vi.waitFor(() => expect(screen.getByTestId('webhook-log-detail-status').textContent).toBe('Failed'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await act(async () => screen.getByTestId('webhook-log-replay').click());
    await settle();
    for (let i = 0; i < REPLAY_WATCH_TRIES + 5; i++) {
      await act(() => vi.advanceTimersByTimeAsync(REPLAY_WATCH_MS));
      await settle();
    }
    // the More info read, the read right after the replay, then the bounded watch
    expect(calls.filter((c) => c.method === 'GET')).toHaveLength(2 + REPLAY_WATCH_TRIES);
    expect(statuses()[0]).toBe('Replayed, queued');
  });
});
