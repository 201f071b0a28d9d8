// The Webhook Logs page's state (docs/console-reports.md §2, §3 Webhook log, §7 POST /v1/webhook-logs
// {page, order_by}): one page of logged requests sorted by date, More info for one of them
// (GET /v1/webhook-logs/{id}), and Replay (POST /v1/webhook-logs/{id}/replay), ours beyond the spec, as is
// the filter by webhook (an account may have several).
// After a replay the entry is read again every second until its new attempt is recorded (at most
// REPLAY_WATCH_TRIES times), so its row and More info show the result without a reload.
import { atom } from 'nanostores';
import { call, errorMessage } from '../lib/api.ts';
import { ALERT_MS } from '../lib/timings.ts';
import type { PageMeta } from '../contract/reports.ts';
import type { WebhookLogDetail, WebhookLogWire as WebhookLog } from '../lib/wire.ts';
import { showAlert } from './alerts.ts';

// the server's wire shapes (types only: nothing of the server reaches the browser)
export type { WebhookLogDetail, WebhookLog };

/** 'unset': nothing loaded in this browser yet; the island shows the page the server rendered. */
export type LogsState =
  | { status: 'unset' | 'loading' | 'failed'; data: WebhookLog[]; meta: PageMeta | null }
  | { status: 'loaded'; data: WebhookLog[]; meta: PageMeta };

export const logs = atom<LogsState>({ status: 'unset', data: [], meta: null });

/** Takes over the first page the server rendered (newest first, page 1: the store's defaults). */
export function seedLogs(first: { data: WebhookLog[]; meta: PageMeta }): void {
  if (logs.get().status === 'unset') logs.set({ status: 'loaded', data: first.data, meta: first.meta });
}

/** How often, and how many times, a replayed entry is read again until its new attempt shows. */
export const REPLAY_WATCH_MS = 1_000;
export const REPLAY_WATCH_TRIES = 60;
export const order = atom<'asc' | 'desc'>('desc');
export const page = atom(1);
/** ours: the webhook whose requests are shown (its uuid); '' for all of the account's */
export const webhookFilter = atom('');
/** More info: the open entry, loading or loaded */
export const openLog = atom<{ id: number; detail: WebhookLogDetail | null; failed: boolean } | null>(null);
export const replaying = atom(false);

let request = 0;

export async function loadLogs(): Promise<void> {
  const mine = ++request;
  logs.set({ ...logs.get(), status: 'loading' } as LogsState);
  try {
    const webhook = webhookFilter.get();
    const body = { page: page.get(), order_by: order.get(), ...(webhook ? { webhook } : {}) };
    const answer = await call('POST /v1/webhook-logs', { body });
    if (mine === request)
      logs.set({ status: 'loaded', data: answer.data, meta: { ...answer.meta, total_capped: false } });
  } catch {
    if (mine === request) logs.set({ status: 'failed', data: [], meta: null });
  }
}

/** docs/console.md §4: a sort click toggles the direction and goes back to page 1 */
export function toggleOrder(): void {
  order.set(order.get() === 'desc' ? 'asc' : 'desc');
  page.set(1);
  void loadLogs();
}

/** Shows one webhook's requests ('' all), from page 1. */
export function filterByWebhook(id: string): void {
  webhookFilter.set(id);
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
    const detail = await call('GET /v1/webhook-logs/{id}', { params: { id: String(id) } });
    if (openLog.get()?.id === id) openLog.set({ id, detail, failed: false });
  } catch {
    if (openLog.get()?.id === id) openLog.set({ id, detail: null, failed: true });
  }
}

export function closeLog(): void {
  openLog.set(null);
}

/** The entry's row on the page shown, replaced by what the server says now. */
function updateRow(log: WebhookLog): void {
  const state = logs.get();
  if (state.data.some((l) => l.id === log.id))
    logs.set({ ...state, data: state.data.map((l) => (l.id === log.id ? log : l)) } as LogsState);
}

/** Reads the entry and shows it in its row and, when open, in More info. */
async function refreshEntry(id: number): Promise<WebhookLogDetail | null> {
  try {
    const detail = await call('GET /v1/webhook-logs/{id}', { params: { id: String(id) } });
    updateRow(detail.log);
    if (openLog.get()?.id === id) openLog.set({ id, detail, failed: false });
    return detail;
  } catch {
    return null;
  }
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Reads a replayed entry again until an attempt newer than the `before` recorded ones is there, or
 * the entry is no longer waiting; gives up after REPLAY_WATCH_TRIES reads (the row then shows the
 * last state read, and a reload shows the rest).
 */
async function watchReplay(id: number, before: number): Promise<void> {
  for (let i = 0; i < REPLAY_WATCH_TRIES; i++) {
    await wait(REPLAY_WATCH_MS);
    const detail = await refreshEntry(id);
    if (detail && (detail.attempts.length > before || detail.log.progress !== 'replayed')) return;
  }
}

/** Queues the entry again now; its row says 'Replayed, queued' until its new attempt's result shows. */
export async function replayLog(id: number): Promise<void> {
  replaying.set(true);
  let before = openLog.get()?.id === id ? (openLog.get()?.detail?.attempts.length ?? null) : null;
  try {
    await call('POST /v1/webhook-logs/{id}/replay', { params: { id: String(id) } });
    showAlert('success', 'Replayed: the event is queued and sent within seconds.', ALERT_MS);
    const detail = await refreshEntry(id);
    before ??= detail ? detail.attempts.length : 0;
    // a fast worker may have recorded the new attempt already
    if (detail && detail.attempts.length > before) return;
    void watchReplay(id, before);
  } catch (err) {
    showAlert('danger', errorMessage(err, 'The event could not be queued again.'), ALERT_MS);
  } finally {
    replaying.set(false);
  }
}
