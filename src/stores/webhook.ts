// The customer's webhooks (docs/console.md §2 Settings → Webhooks card, Webhook modal; §7 GET/POST
// /v1/webhooks), shared by the card's list and the modal, and the modal's actions: save (success
// alert, page reload after 2 s; failure alert for 2 s, §4 §8), rotate the signing secret and send a
// test event (ours beyond the spec). Ours too: several webhooks (docs/webhooks.md "Several webhooks"):
// the pencil edits the first, each one of the list has its own Edit, and Add webhook adds another.
import { atom } from 'nanostores';
import type { AnswerOf } from '../contract/client.ts';
import { call, errorMessage } from '../lib/api.ts';
import { ALERT_MS } from '../lib/timings.ts';
import {
  RECEIVED_INLINE_DEFAULT_BYTES,
  RECEIVED_INLINE_LIMIT_BYTES,
  RESEND_WEBHOOK_EVENTS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERBS,
} from '../contract/values.ts';
import { showAlert } from './alerts.ts';

/** The event checkboxes, in the contract's order: the spec's seven, delayed and complaint. */
export const WEBHOOK_EVENTS = WEBHOOK_EVENT_TYPES;
export { RECEIVED_INLINE_LIMIT_BYTES, RESEND_WEBHOOK_EVENTS, WEBHOOK_VERBS };
export const SAVED_MESSAGE = 'Webhook saved successfully.';
export const DELETED_MESSAGE = 'Webhook deleted.';
export const EMPTY_URL_MESSAGE = 'Webhook URL is empty';
/** docs/console.md §4: the page reloads this long after a successful save */
export const RELOAD_AFTER_SAVE_MS = 2_000;

type WebhookWire = AnswerOf<'GET /v1/webhooks'>['data'][number];
/** The webhook as GET /v1/webhooks answers it; a new one has no id, timestamp, secret or reason yet. */
export type Webhook = Omit<WebhookWire, 'id' | 'created_timestamp' | 'secret' | 'disabled_reason'> &
  Partial<Pick<WebhookWire, 'id' | 'created_timestamp' | 'secret' | 'disabled_reason'>>;

export type WebhookState = { status: 'loading' } | { status: 'failed' } | { status: 'loaded'; webhooks: Webhook[] };

export const webhookState = atom<WebhookState>({ status: 'loading' });
/**
 * The modal: closed (null), open on a webhook of the list (its index), on the first one or a new
 * first one ('first', the pencil), or on a new one added beside them ('add').
 */
export const webhookModal = atom<number | 'first' | 'add' | null>(null);

/** The webhook the modal edits (undefined: a new one) for what webhookModal holds. */
export function webhookInModal(state: WebhookState, open: number | 'first' | 'add'): Webhook | undefined {
  if (state.status !== 'loaded' || open === 'add') return undefined;
  return state.webhooks[open === 'first' ? 0 : open];
}

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
    received_content: 'metadata',
    received_inline_max_bytes: RECEIVED_INLINE_DEFAULT_BYTES,
  };
}

let loading: Promise<void> | undefined;

export function loadWebhook(): Promise<void> {
  loading ??= call('GET /v1/webhooks')
    .then(({ data }) => webhookState.set({ status: 'loaded', webhooks: data }))
    .catch(() => {
      webhookState.set({ status: 'failed' });
      loading = undefined;
    });
  return loading;
}

/**
 * Saves the webhook (`add`: as a new one beside the others); true when the server accepted it (the
 * page then reloads after 2 s).
 */
export async function saveWebhook(
  draft: Webhook,
  reload: () => void = () => window.location.reload(),
  add = false,
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
    // the whole message goes with email.received, a Resend event (docs/receiving.md "To a webhook")
    received_content: draft.field_set === 'resend' ? draft.received_content : ('metadata' as const),
    ...(add ? { add: true } : {}),
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

/**
 * Deletes a saved webhook; true when the server did (the page then reloads after 2 s, as after a
 * save, so every card reads the account's webhooks again).
 */
export async function deleteWebhook(id: string, reload: () => void = () => window.location.reload()): Promise<boolean> {
  try {
    await call('DELETE /v1/webhooks/{id}', { params: { id } });
    showAlert('success', DELETED_MESSAGE, RELOAD_AFTER_SAVE_MS);
    setTimeout(reload, RELOAD_AFTER_SAVE_MS);
    return true;
  } catch (err) {
    showAlert('danger', errorMessage(err, 'The webhook could not be deleted.'), ALERT_MS);
    return false;
  }
}

/** The query naming a saved webhook (none: the account's first, as before there were several). */
const which = (id: string | undefined) => (id ? { query: { id } } : {});

export async function rotateSecret(id?: string): Promise<void> {
  try {
    const { secret } = await call('POST /v1/webhooks/secret', which(id));
    const state = webhookState.get();
    if (state.status === 'loaded' && state.webhooks.length > 0) {
      const at = id ? state.webhooks.findIndex((w) => w.id === id) : 0;
      const webhooks = state.webhooks.map((w, i) => (i === at ? { ...w, secret } : w));
      webhookState.set({ status: 'loaded', webhooks });
    }
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
export async function sendTestEvent(id?: string): Promise<TestEventAnswer> {
  try {
    return await call('POST /v1/webhooks/test', which(id));
  } catch (err) {
    return { status_code: null, error: errorMessage(err, 'The test event could not be sent.'), duration_ms: 0 };
  }
}
