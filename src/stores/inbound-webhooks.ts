// Replay on a received message's page (docs/console.md §2 "Inbound", its Webhook requests card): the
// rows are rendered on the server; each row's Replay queues its request again through Webhook Logs'
// call (POST /v1/webhook-logs/{id}/replay), then reads the entry (GET /v1/webhook-logs/{id}) every
// REPLAY_WATCH_MS, at most REPLAY_WATCH_TRIES times, until its new attempt is recorded, and the row
// shows it. A refusal is shown in the row.
import { map } from 'nanostores';
import { call, errorMessage } from '../lib/api.ts';
import type { WebhookLogDetail } from '../lib/wire.ts';
import { REPLAY_WATCH_MS, REPLAY_WATCH_TRIES } from './webhook-logs.ts';

/** Where one request's Replay stands. */
export type DeliveryReplay =
  | { state: 'sending' }
  /** queued again; its new attempt is not recorded yet */
  | { state: 'queued' }
  /** the new attempt, as recorded, and the request now */
  | { state: 'tried'; attempt: WebhookLogDetail['attempts'][number]; log: WebhookLogDetail['log'] }
  /** no new attempt was recorded while the page watched */
  | { state: 'unseen' }
  | { state: 'failed'; message: string };

/** Each request's Replay by its id (the log entry's). */
export const deliveryReplays = map<Record<string, DeliveryReplay>>({});

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The entry with its recorded attempts; null when it could not be read. */
async function entry(id: number): Promise<WebhookLogDetail | null> {
  try {
    return await call('GET /v1/webhook-logs/{id}', { params: { id: String(id) } });
  } catch {
    return null;
  }
}

/**
 * Queues request `id` again now. The attempts recorded before it are counted first (`recorded`, as
 * the page was rendered, when they cannot be read), so the next one recorded is the replay's.
 */
export async function replayDelivery(id: number, recorded: number): Promise<void> {
  const key = String(id);
  deliveryReplays.setKey(key, { state: 'sending' });
  const before = (await entry(id))?.attempts.length ?? recorded;
  try {
    await call('POST /v1/webhook-logs/{id}/replay', { params: { id: key } });
  } catch (err) {
    const message = errorMessage(err, 'The event could not be queued again.');
    deliveryReplays.setKey(key, { state: 'failed', message });
    return;
  }
  deliveryReplays.setKey(key, { state: 'queued' });
  for (let i = 0; i < REPLAY_WATCH_TRIES; i++) {
    await wait(REPLAY_WATCH_MS);
    const detail = await entry(id);
    if (detail && detail.attempts.length > before) {
      deliveryReplays.setKey(key, { state: 'tried', attempt: detail.attempts.at(-1)!, log: detail.log });
      return;
    }
  }
  deliveryReplays.setKey(key, { state: 'unseen' });
}
