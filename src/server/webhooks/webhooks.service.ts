// Webhooks as the console sees them (docs/console.md §3 Webhook, §5, §7; docs/console-reports.md §3 Webhook log, §7):
// the one mapping from a row to the wire (basic-auth details and the signing secret decrypted so the
// modal can show them), saving with the URL checks of url-guard.ts, secret rotation, the test event
// (sent while the caller waits), and the Webhook Logs with More info and Replay.
import { randomBytes } from 'node:crypto';
import type { Insertable, Updateable } from 'kysely';
import { z } from 'zod';
import { isUuid } from '../../contract/fields.ts';
import { RESEND_WEBHOOK_EVENTS, type ReceivedContent, WEBHOOK_EVENT_TYPES } from '../../contract/values.ts';
import { type logSearch, webhookInput } from '../../contract/webhooks.ts';
import type { Database } from '../db/database.ts';
import type { WebhooksTable } from '../db/schema.ts';
import type { Config } from '../core/config.ts';
import type { AppContext } from '../core/context.ts';
import { createResolver } from '../core/resolver.ts';
import { DomainError } from '../core/errors.ts';
import { inTransaction } from '../core/transaction.ts';
import { check } from '../core/check.ts';
import { clearLookupCaches, invalidateLookups } from '../core/lookup-cache.ts';
import type { Secrets } from '../core/secrets.ts';
import { WebhookSender, USER_AGENT } from './deliver.ts';
import { buildPayload, flatten } from './payload.ts';
import { webhookUrlProblem } from './url-guard.ts';
import * as requests from './webhook-requests.repository.ts';
import * as repo from './webhooks.repository.ts';
import { attempt, recordAttempts } from './worker.ts';

export const SAVED_MESSAGE = 'Webhook saved successfully.';
export const DELETED_MESSAGE = 'Webhook deleted.';
export const EMPTY_URL_MESSAGE = 'Webhook URL is empty';
const LOG_PAGE_SIZE = 10;
const LOG_COUNT_CAP = 10_000;
const TEST_LEASE_SECONDS = 60;

export interface WebhookWire {
  /** ours: its uuid, its id on /resend/webhooks too */
  id: string;
  url: string;
  verb: string;
  status: string;
  /** docs/console.md §5: an empty authentication type is sent as null */
  auth_type: string | null;
  auth_details: { username: string; password: string } | null;
  event_types: string[];
  field_set: string;
  /** ISO 8601 */
  created_timestamp: string;
  /** ours: the Standard Webhooks signing secret, whsec_… */
  secret: string | null;
  /** ours: why the service disabled the webhook (410 Gone), until the next save */
  disabled_reason: string | null;
  /** ours: what `email.received` carries (docs/receiving.md "To a webhook") */
  received_content: ReceivedContent;
  /** ours: with 'full', the attachments' total up to which they come inline */
  received_inline_max_bytes: number;
}

const authDetails = z.object({ username: z.string(), password: z.string() });

export function webhookToWire(secrets: Secrets, row: repo.Webhook): WebhookWire {
  return {
    id: row.uuid,
    url: row.url,
    verb: row.verb,
    status: row.status,
    auth_type: row.auth_type || null,
    auth_details: row.auth_details_sealed
      ? authDetails.parse(JSON.parse(secrets.decrypt(row.auth_details_sealed)))
      : null,
    event_types: row.event_types,
    field_set: row.field_set,
    created_timestamp: row.created_at.toISOString(),
    secret: row.secret_sealed ? secrets.decrypt(row.secret_sealed) : null,
    disabled_reason: row.disabled_reason,
    received_content: row.received_content === 'full' ? 'full' : 'metadata',
    received_inline_max_bytes: row.received_inline_max_bytes,
  };
}

/** A new Standard Webhooks secret: whsec_ and 24 random bytes in base64. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** The signed-in customer's webhooks, mapped for the console. */
export async function webhooksForConsole(ctx: AppContext, customerId: number): Promise<WebhookWire[]> {
  const rows = await repo.listWebhooks(ctx.db, customerId);
  const secrets = ctx.secrets;
  for (const row of rows) {
    // a webhook saved before signing existed (migration 008) gets its secret when first shown
    if (row.secret_sealed) continue;
    const sealed = secrets.encrypt(newSigningSecret());
    row.secret_sealed = await repo.fillMissingSecret(ctx.db, row.id, sealed);
  }
  return rows.map((row) => webhookToWire(secrets, row));
}

/** The URL as it is stored; a DomainError when empty or not allowed (url-guard.ts). */
export async function checkedUrl(ctx: AppContext, raw: string): Promise<string> {
  const url = raw.trim();
  if (url === '') throw new DomainError('validation_failed', EMPTY_URL_MESSAGE);
  const problem = await webhookUrlProblem(url, {
    allowed: ctx.config.webhookAllowedNetworks,
    resolver: createResolver(ctx.config),
  });
  if (problem) throw new DomainError('webhook_url_not_allowed', problem);
  return url;
}

const NO_SUCH_WEBHOOK = 'No webhook with this id in this account';

/** One of the customer's webhooks by its uuid; a malformed, unknown or another account's id is 404. */
export async function findWebhook(ctx: AppContext, customerId: number, id: string): Promise<repo.Webhook> {
  const row = isUuid(id) ? await repo.findWebhookByUuid(ctx.db, customerId, id.toLowerCase()) : undefined;
  if (!row) throw new DomainError('not_found', NO_SUCH_WEBHOOK);
  return row;
}

/** The event types a webhook of this field set may subscribe to: Resend's names for `resend`, ours otherwise. */
function checkedEventTypes(fieldSet: string, types: readonly string[]): string[] {
  const allowed: readonly string[] = fieldSet === 'resend' ? RESEND_WEBHOOK_EVENTS : WEBHOOK_EVENT_TYPES;
  const wrong = types.filter((t) => !allowed.includes(t));
  if (wrong.length > 0)
    throw new DomainError('validation_failed', `Not an event of the ${fieldSet} field set: ${wrong.join(', ')}.`);
  return [...new Set(types)];
}

/** Why a webhook cannot carry the whole message in `email.received`; null when it can. */
function fullContentProblem(webhook: { field_set: string; verb: string }): string | null {
  // docs/receiving.md "To a webhook": email.received is an event of the resend field set, and the
  // message goes in a body (a query string could not hold it)
  if (webhook.field_set !== 'resend')
    return 'The full message is sent with email.received, an event of the Resend field set: choose Resend.';
  if (webhook.verb === 'get' || webhook.verb === 'delete')
    return 'The full message needs a method that carries a body: POST, PUT or PATCH.';
  return null;
}

/**
 * What `email.received` will carry once the webhook is saved: `asked` when given (a 400 when `full`
 * cannot be), else what it had, falling back to metadata where full no longer can be (another field
 * set or method).
 */
export function receivedContentFor(
  webhook: { field_set: string; verb: string },
  asked: ReceivedContent | undefined,
  had: string | undefined,
): ReceivedContent {
  const problem = fullContentProblem(webhook);
  if (asked === 'full' && problem) throw new DomainError('validation_failed', problem);
  if (asked) return asked;
  return had === 'full' && !problem ? 'full' : 'metadata';
}

/** Runs a change to the webhooks and makes the outbox read them again (the lookup cache). */
async function changingWebhooks<T>(ctx: AppContext, change: (trx: Database) => Promise<T>): Promise<T> {
  const result = await inTransaction(ctx.db, async (trx) => {
    const done = await change(trx);
    await invalidateLookups(ctx, trx);
    return done;
  });
  clearLookupCaches(ctx); // again after commit: an event recorded meanwhile may have cached the old webhooks
  return result;
}

/** Adds a webhook with a new signing secret. */
export function createWebhook(
  ctx: AppContext,
  customerId: number,
  values: Omit<Insertable<WebhooksTable>, 'customer_id' | 'secret_sealed'>,
): Promise<repo.Webhook> {
  const sealed = ctx.secrets.encrypt(newSigningSecret());
  return changingWebhooks(ctx, (trx) =>
    repo.insertWebhook(trx, { ...values, customer_id: customerId, secret_sealed: sealed }),
  );
}

/** Changes a webhook (found through its customer); a save clears why the service disabled it. */
export function changeWebhook(ctx: AppContext, row: repo.Webhook, changes: Updateable<WebhooksTable>) {
  return changingWebhooks(ctx, (trx) =>
    repo.updateWebhook(trx, row.id, { ...changes, disabled_reason: null, updated_at: new Date() }),
  );
}

/** Deletes a webhook (found through its customer). */
export function removeWebhook(ctx: AppContext, row: repo.Webhook): Promise<void> {
  return changingWebhooks(ctx, (trx) => repo.deleteWebhook(trx, row.id));
}

/** The webhook a Settings call without an id means: the account's first one saved on Settings. */
async function firstSettingsWebhook(ctx: AppContext, customerId: number): Promise<repo.Webhook | undefined> {
  return (await repo.listWebhooks(ctx.db, customerId)).find((w) => w.field_set !== 'resend');
}

/**
 * Checks and saves a webhook from the modal: the one `id` names, a new one (`add`), or else the
 * account's first Settings webhook (created if none); 400 with a message the modal shows on any problem.
 */
export async function saveWebhook(ctx: AppContext, customerId: number, body: unknown): Promise<WebhookWire> {
  const input = check(webhookInput, body);
  const url = await checkedUrl(ctx, input.url);
  const basic = input.auth_type === 'basic';
  if (basic && !input.auth_details?.username.trim())
    throw new DomainError('validation_failed', 'Basic authentication needs a username.');
  if (basic && input.auth_details!.username.includes(':'))
    throw new DomainError('validation_failed', 'A Basic authentication username cannot contain a colon.');
  const secrets = ctx.secrets;
  const values = {
    url,
    verb: input.verb,
    status: input.status,
    auth_type: basic ? 'basic' : null,
    auth_details_sealed: basic
      ? secrets.encrypt(
          JSON.stringify({ username: input.auth_details!.username.trim(), password: input.auth_details!.password }),
        )
      : null,
    event_types: JSON.stringify(checkedEventTypes(input.field_set, input.event_types)),
    field_set: input.field_set,
    ...(input.received_inline_max_bytes === undefined
      ? {}
      : { received_inline_max_bytes: input.received_inline_max_bytes }),
  };
  const target = input.add
    ? undefined
    : input.id
      ? await findWebhook(ctx, customerId, input.id)
      : await firstSettingsWebhook(ctx, customerId);
  await refuseDuplicate(ctx, customerId, target, values);
  const saved = {
    ...values,
    received_content: receivedContentFor(values, input.received_content, target?.received_content),
  };
  const row = target ? await changeWebhook(ctx, target, saved) : await createWebhook(ctx, customerId, saved);
  return webhookToWire(secrets, row);
}

/**
 * A 409 when another webhook of the account has the same URL, field set and events as `values`: every
 * event would be posted twice.
 */
async function refuseDuplicate(
  ctx: AppContext,
  customerId: number,
  target: repo.Webhook | undefined,
  values: { url: string; field_set: string; event_types: string },
): Promise<void> {
  const events = (types: readonly string[]) => [...types].sort().join(',');
  const asked = events(JSON.parse(values.event_types) as string[]);
  const twin = (await repo.listWebhooks(ctx.db, customerId)).find(
    (w) =>
      w.id !== target?.id &&
      w.url === values.url &&
      w.field_set === values.field_set &&
      events(w.event_types) === asked,
  );
  if (twin)
    throw new DomainError(
      'conflict',
      'Another webhook already sends these events to this URL: each event would be posted twice.',
    );
}

/** Deletes one of the customer's webhooks (Settings); its logged requests stay. */
export async function deleteWebhook(ctx: AppContext, customerId: number, id: string): Promise<void> {
  await removeWebhook(ctx, await findWebhook(ctx, customerId, id));
}

async function requireWebhook(ctx: AppContext, customerId: number, id?: string): Promise<repo.Webhook> {
  if (id !== undefined) return findWebhook(ctx, customerId, id);
  const [row] = await repo.listWebhooks(ctx.db, customerId);
  if (!row) throw new DomainError('not_found', 'No webhook is set up yet; save one first.');
  return row;
}

/** Replaces a webhook's signing secret; the next attempt of every request is signed with the new one. */
export async function rotateSecret(ctx: AppContext, customerId: number, id?: string): Promise<{ secret: string }> {
  return { secret: await replaceSecret(ctx, await requireWebhook(ctx, customerId, id)) };
}

/** Gives the webhook a new signing secret and answers it. */
export async function replaceSecret(ctx: AppContext, row: repo.Webhook): Promise<string> {
  const secret = newSigningSecret();
  await repo.setSecret(ctx.db, row.id, ctx.secrets.encrypt(secret), new Date());
  clearLookupCaches(ctx);
  return secret;
}

declare module '../core/context.ts' {
  interface AppContext {
    /** Sends the console's test events (create-context.ts; its sockets are closed at shutdown). */
    readonly webhookSender: WebhookSender;
  }
}

/** The context's sender of test events: up to 2 sockets per host. */
export function createTestEventSender(config: Pick<Config, 'webhookAllowedNetworks'>): WebhookSender {
  return new WebhookSender({ allowedNetworks: config.webhookAllowedNetworks, maxSocketsPerHost: 2 });
}

export interface TestEventAnswer {
  id: number;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

/** Sends an `email.test` event now (logged like any request, never retried) and reports the answer. */
export async function sendTestEvent(ctx: AppContext, customerId: number, id?: string): Promise<TestEventAnswer> {
  const webhook = await requireWebhook(ctx, customerId, id);
  const secrets = ctx.secrets;
  const now = new Date();
  const payload = buildPayload(webhook.field_set, { type: 'test', at: now, data: null }, null);
  // stored already out of the worker's reach (due only after the lease): a worker that claimed the
  // row between this insert and the claim below would send the test event a second time
  const leased = new Date(now.getTime() + TEST_LEASE_SECONDS * 1000);
  const insertedId = await requests.insertRequest(ctx.db, {
    customer_id: customerId,
    webhook_id: webhook.id,
    event_type: 'test',
    event_at: now,
    url: webhook.url,
    verb: webhook.verb,
    field_set: webhook.field_set,
    payload: JSON.stringify(payload),
    next_attempt_at: leased,
  });
  const claimed = await requests.claimRequest(ctx.db, insertedId, now, TEST_LEASE_SECONDS);
  if (!claimed) throw new DomainError('conflict', 'The test event was taken by another process.');
  const secret = webhook.secret_sealed ? secrets.decrypt(webhook.secret_sealed) : newSigningSecret();
  const auth =
    webhook.auth_type === 'basic' && webhook.auth_details_sealed
      ? authDetails.parse(JSON.parse(secrets.decrypt(webhook.auth_details_sealed)))
      : null;
  const target = {
    updatedAt: 0,
    url: webhook.url,
    verb: webhook.verb,
    enabled: webhook.status === 'enabled',
    secret,
    auth,
  };
  const outcome = await attempt(ctx.webhookSender, claimed, target, now, Math.random, {
    final: true,
    evenIfDisabled: true,
  });
  // a test is never what disables a webhook
  await recordAttempts(ctx, [{ ...outcome, disable: undefined }]);
  return {
    id: claimed.id,
    status_code: outcome.attempt!.status_code,
    error: outcome.attempt!.error,
    duration_ms: outcome.attempt!.duration_ms,
  };
}

// ---- Webhook Logs (docs/console-reports.md §2, §3, §7) ----

export interface WebhookLogWire {
  id: number;
  /** unix seconds: when the event happened */
  date: number;
  url: string;
  /** 'success', 'pending' (queued, replayed or retrying) or 'failed' */
  status: string;
  /**
   * What the console says: 'queued' (never tried yet), 'replayed' (queued again by Replay,
   * not tried since), 'retrying' (the last try failed, another is due), 'success' or 'failed'.
   */
  progress: LogProgress;
  verb: string;
  field_set: string;
  content_type: string;
  /** what was (or will be) sent; `type` (standard) or `event` (legacy) names the event */
  payload: Record<string, unknown> | null;
  /** ours */
  event_type: string;
  webhook_id: string;
  /** ours: the uuid of the webhook it went to; null once that webhook is deleted */
  webhook: string | null;
  attempts: number;
  last_status_code: number | null;
  /** unix seconds of the next try while pending, else null */
  next_attempt: number | null;
}

export type LogProgress = 'queued' | 'replayed' | 'retrying' | 'success' | 'failed';

/**
 * A pending request whose retry step is still 0 has not failed since it was queued: queued for the
 * first time if it has no recorded attempt, else queued again by Replay (which resets the step).
 */
export function logProgress(row: { status: string; retry_step: number; tried: boolean | null }): LogProgress {
  if (row.status !== 'pending') return row.status === 'success' ? 'success' : 'failed';
  if (row.retry_step > 0) return 'retrying';
  return row.tried ? 'replayed' : 'queued';
}

const unix = (d: Date | string) => Math.floor(new Date(d).getTime() / 1000);
const inQuery = (verb: string) => verb === 'get' || verb === 'delete';

function logToWire(row: requests.RequestRow, uuidOf: ReadonlyMap<number, string>): WebhookLogWire {
  return {
    id: Number(row.id),
    date: unix(row.created_at),
    url: row.url,
    status: row.status,
    progress: logProgress(row),
    verb: row.verb,
    field_set: row.field_set,
    content_type: inQuery(row.verb) ? 'application/x-www-form-urlencoded (query string)' : 'application/json',
    payload: (row.payload as Record<string, unknown> | null) ?? null,
    event_type: row.event_type,
    webhook_id: row.msg_id,
    webhook: row.webhook_id === null ? null : (uuidOf.get(Number(row.webhook_id)) ?? null),
    attempts: row.attempts,
    last_status_code: row.last_status_code,
    next_attempt: row.status === 'pending' && row.next_attempt_at ? unix(row.next_attempt_at) : null,
  };
}

/** The customer's webhooks' uuids by id: the log names the webhook of each request by its uuid. */
async function webhookUuids(ctx: AppContext, customerId: number): Promise<Map<number, string>> {
  return new Map((await repo.listWebhooks(ctx.db, customerId)).map((w) => [Number(w.id), w.uuid]));
}

/** One page of the Webhook Logs: all the account's requests, or those of the webhook `input.webhook` names. */
export async function searchLogs(ctx: AppContext, customerId: number, input: z.infer<typeof logSearch>) {
  const webhook = input.webhook ? await findWebhook(ctx, customerId, input.webhook) : undefined;
  const { rows, total } = await requests.listRequests(ctx.db, customerId, {
    page: input.page,
    perPage: LOG_PAGE_SIZE,
    ascending: input.order_by === 'asc',
    countCap: LOG_COUNT_CAP,
    webhookId: webhook === undefined ? undefined : Number(webhook.id),
  });
  const uuids = await webhookUuids(ctx, customerId);
  return {
    data: rows.map((row) => logToWire(row, uuids)),
    meta: {
      current_page: input.page,
      per_page: LOG_PAGE_SIZE,
      total,
      last_page: Math.max(1, Math.ceil(total / LOG_PAGE_SIZE)),
    },
  };
}

/**
 * The requests a received message's `email.received` event made, oldest first, as Webhook Logs shows
 * them (the caller checked that the message is the customer's).
 */
export async function logsOfReceived(ctx: AppContext, customerId: number, inboundEmailId: string) {
  const rows = await requests.requestsOfReceived(ctx.db, customerId, inboundEmailId);
  const uuids = rows.length ? await webhookUuids(ctx, customerId) : new Map<number, string>();
  return rows.map((row) => logToWire(row, uuids));
}

export interface WebhookAttemptWire {
  /** unix seconds */
  at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  /** the first 1 KB of the answer, as text */
  response_body: string | null;
  next_retry_at: number | null;
}

export interface WebhookLogDetail {
  log: WebhookLogWire;
  request: { method: string; url: string; headers: Record<string, string>; payload: Record<string, unknown> | null };
  attempts: WebhookAttemptWire[];
}

/** More info: the request as sent (secrets hidden) and every attempt. */
export async function logDetail(ctx: AppContext, customerId: number, id: number): Promise<WebhookLogDetail> {
  const row = await requests.findRequest(ctx.db, customerId, id);
  if (!row) throw new DomainError('not_found', 'No such webhook log entry');
  const attempts = await requests.listAttempts(ctx.db, Number(row.id));
  const webhook =
    row.webhook_id === null
      ? undefined
      : (await repo.listWebhooks(ctx.db, customerId)).find((w) => Number(w.id) === Number(row.webhook_id));
  const payload = (row.payload as Record<string, unknown> | null) ?? {};
  let url = row.url;
  if (inQuery(row.verb) && row.url) {
    const u = new URL(row.url);
    const query = new URLSearchParams(flatten(payload)).toString();
    u.search = u.search ? `${u.search.slice(1)}&${query}` : query;
    url = u.toString();
  }
  const headers: Record<string, string> = { 'User-Agent': USER_AGENT };
  if (!inQuery(row.verb)) headers['Content-Type'] = 'application/json';
  headers['webhook-id'] = row.msg_id;
  headers['webhook-timestamp'] = '(the time of each attempt)';
  headers['webhook-signature'] = 'v1,… (HMAC-SHA256 of each attempt, with your signing secret)';
  if (webhook?.auth_type === 'basic') headers.Authorization = 'Basic … (hidden)';
  return {
    log: logToWire(row, await webhookUuids(ctx, customerId)),
    request: { method: row.verb.toUpperCase(), url, headers, payload: inQuery(row.verb) ? null : payload },
    attempts: attempts.map((a) => ({
      at: unix(a.at),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      error: a.error,
      response_body: a.response_body,
      next_retry_at: a.next_retry_at ? unix(a.next_retry_at) : null,
    })),
  };
}

export async function replayLog(ctx: AppContext, customerId: number, id: number): Promise<void> {
  if (!(await requests.replayRequest(ctx.db, customerId, id, new Date())))
    throw new DomainError('not_found', 'No such webhook log entry');
}
