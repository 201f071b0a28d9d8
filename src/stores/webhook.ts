// The customer's webhook (docs/console.md §2 Settings → Webhooks card, Webhook modal; §7 GET/POST
// /v1/webhooks), shared by the card's summary and the pencil's modal, and the modal's actions:
// save (success alert, page reload after 2 s; failure alert for 2 s, §4 §8), rotate the signing
// secret and send a test event (ours beyond the spec).
import { atom } from 'nanostores';
import type { AnswerOf } from '../contract/client.ts';
import { call, errorMessage } from '../lib/api.ts';
import { ALERT_MS } from '../lib/timings.ts';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_VERBS } from '../contract/values.ts';
import { showAlert } from './alerts.ts';

/** The event checkboxes, in the contract's order: the spec's seven, delayed and complaint. */
export const WEBHOOK_EVENTS = WEBHOOK_EVENT_TYPES;
export { WEBHOOK_VERBS };
export const SAVED_MESSAGE = 'Webhook saved successfully.';
export const EMPTY_URL_MESSAGE = 'Webhook URL is empty';
/** docs/console.md §4: the page reloads this long after a successful save */
export const RELOAD_AFTER_SAVE_MS = 2_000;

type WebhookWire = AnswerOf<'GET /v1/webhooks'>['data'][number];
/** The webhook as GET /v1/webhooks answers it; a new one has no timestamp, secret or reason yet. */
export type Webhook = Omit<WebhookWire, 'created_timestamp' | 'secret' | 'disabled_reason'> &
  Partial<Pick<WebhookWire, 'created_timestamp' | 'secret' | 'disabled_reason'>>;

export type WebhookState =
  | { status: 'loading' }
  | { status: 'failed' }
  | { status: 'loaded'; webhook: Webhook | undefined };

export const webhookState = atom<WebhookState>({ status: 'loading' });
export const webhookModalOpen = atom(false);

/**
 * docs/console.md §9: post, enabled, standard, every event — delayed and complaint too. A saved
 * webhook keeps the list it was saved with: the two are added to it only by ticking them.
 */
export function defaultWebhook(): Webhook {
  return {
    url: '',
    verb: 'post',
    status: 'enabled',
    auth_type: null,
    auth_details: null,
    event_types: [...WEBHOOK_EVENTS],
    field_set: 'standard',
  };
}

let loading: Promise<void> | undefined;

export function loadWebhook(): Promise<void> {
  loading ??= call('GET /v1/webhooks')
    .then(({ data }) => webhookState.set({ status: 'loaded', webhook: data[0] }))
    .catch(() => {
      webhookState.set({ status: 'failed' });
      loading = undefined;
    });
  return loading;
}

/** Saves the webhook; true when the server accepted it (the page then reloads after 2 s). */
export async function saveWebhook(
  draft: Webhook,
  reload: () => void = () => window.location.reload(),
): Promise<boolean> {
  if (draft.url.trim() === '') {
    showAlert('danger', EMPTY_URL_MESSAGE, ALERT_MS);
    return false;
  }
  // docs/console.md §5: an empty authentication type is sent as null
  const body = {
    ...draft,
    auth_type: draft.auth_type || null,
    auth_details: draft.auth_type ? draft.auth_details : null,
  };
  try {
    await call('POST /v1/webhooks', { body });
    showAlert('success', SAVED_MESSAGE, RELOAD_AFTER_SAVE_MS);
    setTimeout(reload, RELOAD_AFTER_SAVE_MS);
    return true;
  } catch (err) {
    showAlert('danger', errorMessage(err, 'The webhook could not be saved.'), ALERT_MS);
    return false;
  }
}

export async function rotateSecret(): Promise<void> {
  try {
    const { secret } = await call('POST /v1/webhooks/secret');
    const state = webhookState.get();
    if (state.status === 'loaded' && state.webhook)
      webhookState.set({ status: 'loaded', webhook: { ...state.webhook, secret } });
    showAlert('success', 'A new signing secret is in use.', ALERT_MS);
  } catch (err) {
    showAlert('danger', errorMessage(err, 'The secret could not be rotated.'), ALERT_MS);
  }
}

export interface TestEventAnswer {
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** Sends a test event to the saved webhook; the answer (or the error) is what the modal shows. */
export async function sendTestEvent(): Promise<TestEventAnswer> {
  try {
    return await call('POST /v1/webhooks/test');
  } catch (err) {
    return { status_code: null, error: errorMessage(err, 'The test event could not be sent.'), duration_ms: 0 };
  }
}
