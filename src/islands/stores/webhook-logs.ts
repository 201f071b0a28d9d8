// The Webhook Logs page's state (spec part two §2, §3 Webhook log, §7 POST /v1/webhook-logs
// {page, order_by}): one page of logged requests sorted by date, More info for one of them
// (GET /v1/webhook-logs/{id}), and Replay (POST /v1/webhook-logs/{id}/replay), ours beyond the spec.
import { atom } from 'nanostores';
import { api, errorMessage } from '../../lib/api.ts';
import { ALERT_MS } from '../../lib/timings.ts';
import type { PageMeta } from '../../server/reports/report-input.ts';
import type { WebhookAttemptWire, WebhookLogDetail, WebhookLogWire as WebhookLog } from '../../server/webhooks/webhooks.service.ts';
import { showAlert } from './alerts.ts';

// the server's wire shapes (types only: nothing of the server reaches the browser)
export type { WebhookAttemptWire as WebhookAttempt, WebhookLogDetail, WebhookLog };

export type LogsState = { status: 'loading' | 'failed'; data: WebhookLog[]; meta: PageMeta | null } | { status: 'loaded'; data: WebhookLog[]; meta: PageMeta };

export const logs = atom<LogsState>({ status: 'loading', data: [], meta: null });
export const order = atom<'asc' | 'desc'>('desc');
export const page = atom(1);
/** More info: the open entry, loading or loaded */
export const openLog = atom<{ id: number; detail: WebhookLogDetail | null; failed: boolean } | null>(null);
export const replaying = atom(false);

let request = 0;

export async function loadLogs(): Promise<void> {
  const mine = ++request;
  logs.set({ ...logs.get(), status: 'loading' } as LogsState);
  try {
    const answer = await api<{ data: WebhookLog[]; meta: PageMeta }>('/v1/webhook-logs', { method: 'POST', body: { page: page.get(), order_by: order.get() } });
    if (mine === request) logs.set({ status: 'loaded', data: answer.data, meta: answer.meta });
  } catch {
    if (mine === request) logs.set({ status: 'failed', data: [], meta: null });
  }
}

/** spec core §4: a sort click toggles the direction and goes back to page 1 */
export function toggleOrder(): void {
  order.set(order.get() === 'desc' ? 'asc' : 'desc');
  page.set(1);
  void loadLogs();
}

export function goToPage(n: number): void {
  page.set(n);
  void loadLogs();
}

export async function showLog(id: number): Promise<void> {
  openLog.set({ id, detail: null, failed: false });
  try {
    const detail = await api<WebhookLogDetail>(`/v1/webhook-logs/${id}`);
    if (openLog.get()?.id === id) openLog.set({ id, detail, failed: false });
  } catch {
    if (openLog.get()?.id === id) openLog.set({ id, detail: null, failed: true });
  }
}

export function closeLog(): void {
  openLog.set(null);
}

/** Queues the open entry again now; the modal and the table show it pending. */
export async function replayLog(id: number): Promise<void> {
  replaying.set(true);
  try {
    await api(`/v1/webhook-logs/${id}/replay`, { method: 'POST' });
    showAlert('success', 'The event was queued again; it is sent within seconds.', ALERT_MS);
    await Promise.all([showLog(id), loadLogs()]);
  } catch (err) {
    showAlert('danger', errorMessage(err, 'The event could not be queued again.'), ALERT_MS);
  } finally {
    replaying.set(false);
  }
}
