// Webhooks in Resend's shape (contract/resend-webhooks.ts): the account's webhooks and their logged
// requests (webhooks/), answered as Resend answers them. The rules (the URL guard, the secret, what
// is sent to whom) are the webhooks service's, the same as for Settings.
import type { ResendListedWebhook, ResendWebhook } from '../../contract/resend-webhooks.ts';
import { RESEND_WEBHOOK_EVENTS, type ReceivedContent, type ResendWebhookEvent } from '../../contract/values.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { logProgress } from '../webhooks/webhooks.service.ts';
import * as service from '../webhooks/webhooks.service.ts';
import * as requests from '../webhooks/webhook-requests.repository.ts';
import * as repo from '../webhooks/webhooks.repository.ts';

const RESEND = 'resend';
const NO_SUCH_EVENT = 'No event with this id for this webhook';

/**
 * The endpoint as stored. A well-formed address the URL guard refuses (private, loopback, not
 * http(s)) is Resend's 422 validation_error: its 400 means a malformed request.
 */
async function allowedEndpoint(ctx: AppContext, raw: string): Promise<string> {
  try {
    return await service.checkedUrl(ctx, raw);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'webhook_url_not_allowed')
      throw new DomainError('unprocessable', err.message);
    throw err;
  }
}

/** A webhook's events by Resend's names; null for one with Transact's own payloads (its names are ours). */
function eventsOf(row: repo.Webhook): ResendWebhookEvent[] | null {
  if (row.field_set !== RESEND) return null;
  return row.event_types.filter((t): t is ResendWebhookEvent =>
    (RESEND_WEBHOOK_EVENTS as readonly string[]).includes(t),
  );
}

function listed(row: repo.Webhook): ResendListedWebhook {
  return {
    id: row.uuid,
    endpoint: row.url,
    created_at: row.created_at.toISOString(),
    status: row.status === 'enabled' ? 'enabled' : 'disabled',
    events: eventsOf(row),
  };
}

/** Ours: what `email.received` carries (docs/receiving.md "To a webhook"). */
interface ReceivedContentOptions {
  received_content?: ReceivedContent;
  received_inline_max_bytes?: number;
}

/** The received-content columns a create or update sets; a refusal is Resend's 422. */
function receivedContentColumns(
  row: { field_set: string; verb: string; received_content?: string },
  body: ReceivedContentOptions,
) {
  try {
    return {
      received_content: service.receivedContentFor(row, body.received_content, row.received_content),
      ...(body.received_inline_max_bytes === undefined
        ? {}
        : { received_inline_max_bytes: body.received_inline_max_bytes }),
    };
  } catch (err) {
    if (err instanceof DomainError) throw new DomainError('unprocessable', err.message);
    throw err;
  }
}

/** POST /resend/webhooks: a webhook with Resend's payloads, POSTed, with a new signing secret. */
export async function createWebhook(
  ctx: AppContext,
  customerId: number,
  body: { endpoint: string; events: string[] } & ReceivedContentOptions,
) {
  const url = await allowedEndpoint(ctx, body.endpoint);
  const row = await service.createWebhook(ctx, customerId, {
    url,
    verb: 'post',
    status: 'enabled',
    event_types: JSON.stringify([...new Set(body.events)]),
    field_set: RESEND,
    ...receivedContentColumns({ field_set: RESEND, verb: 'post' }, body),
  });
  return { object: 'webhook' as const, id: row.uuid, signing_secret: ctx.secrets.decrypt(row.secret_sealed!) };
}

/** The webhook a cursor names (404 when it is not this account's). */
async function cursorOf(ctx: AppContext, customerId: number, id: string | undefined): Promise<number | undefined> {
  if (id === undefined) return undefined;
  return Number((await service.findWebhook(ctx, customerId, id)).id);
}

/** GET /resend/webhooks: a cursor page of the account's webhooks, newest first. */
export async function listWebhooks(
  ctx: AppContext,
  customerId: number,
  query: { limit: number; after?: string; before?: string },
) {
  const after = await cursorOf(ctx, customerId, query.after);
  const before = await cursorOf(ctx, customerId, query.before);
  const rows = await repo.pageOfWebhooks(ctx.db, customerId, { limit: query.limit, after, before });
  const page = rows.slice(0, query.limit);
  if (before !== undefined) page.reverse(); // read oldest first: newest first again
  return { object: 'list' as const, has_more: rows.length > query.limit, data: page.map(listed) };
}

/** GET /resend/webhooks/{id}: one webhook with its signing secret (one saved before signing gets its own now). */
export async function getWebhook(ctx: AppContext, customerId: number, id: string): Promise<ResendWebhook> {
  const row = await service.findWebhook(ctx, customerId, id);
  const wire = (await service.webhooksForConsole(ctx, customerId)).find((w) => w.id === row.uuid)!;
  return {
    object: 'webhook',
    ...listed(row),
    signing_secret: wire.secret!,
    received_content: wire.received_content,
    received_inline_max_bytes: wire.received_inline_max_bytes,
  };
}

/** PATCH /resend/webhooks/{id}: what is given of the endpoint, events and status. */
export async function updateWebhook(
  ctx: AppContext,
  customerId: number,
  id: string,
  body: { endpoint?: string; events?: string[]; status?: 'enabled' | 'disabled' } & ReceivedContentOptions,
) {
  const row = await service.findWebhook(ctx, customerId, id);
  if (body.events !== undefined && row.field_set !== RESEND)
    throw new DomainError(
      'unprocessable',
      `This webhook sends Transact's ${row.field_set} payloads: change its events on Settings.`,
    );
  await service.changeWebhook(ctx, row, {
    ...(body.endpoint === undefined ? {} : { url: await allowedEndpoint(ctx, body.endpoint) }),
    ...(body.events === undefined ? {} : { event_types: JSON.stringify([...new Set(body.events)]) }),
    ...(body.status === undefined ? {} : { status: body.status }),
    ...receivedContentColumns(row, body),
  });
  return { object: 'webhook' as const, id: row.uuid };
}

export async function removeWebhook(ctx: AppContext, customerId: number, id: string) {
  const row = await service.findWebhook(ctx, customerId, id);
  await service.removeWebhook(ctx, row);
  return { object: 'webhook' as const, id: row.uuid, deleted: true as const };
}

export async function rotateSigningSecret(ctx: AppContext, customerId: number, id: string) {
  const row = await service.findWebhook(ctx, customerId, id);
  return { object: 'webhook' as const, id: row.uuid, signing_secret: await service.replaceSecret(ctx, row) };
}

// ---- a webhook's events: its logged requests ----

/** An event id is a request's id, digits; anything else is an unknown event. */
const eventIdOf = (raw: string) => (/^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN);

/** Resend's status of a logged request. */
function statusOf(row: requests.RequestRow) {
  const progress = logProgress(row);
  if (progress === 'retrying') return 'attempting' as const;
  if (progress === 'queued' || progress === 'replayed') return 'pending' as const;
  return progress;
}

/** The event's name: Resend's for a `resend` webhook (stored so), the standard payload's `type` otherwise. */
const typeOf = (row: requests.RequestRow) =>
  row.event_type.includes('.') ? row.event_type : `email.${row.event_type}`;

function listedEvent(row: requests.RequestRow) {
  return {
    id: String(row.id),
    type: typeOf(row),
    created_at: new Date(row.created_at).toISOString(),
    status: statusOf(row),
  };
}

async function findEvent(ctx: AppContext, customerId: number, webhookId: string, eventId: string) {
  const webhook = await service.findWebhook(ctx, customerId, webhookId);
  const id = eventIdOf(eventId);
  const row = Number.isNaN(id) ? undefined : await requests.findWebhookRequest(ctx.db, Number(webhook.id), id);
  if (!row) throw new DomainError('not_found', NO_SUCH_EVENT);
  return { webhook, row };
}

/** GET /resend/webhooks/{id}/events: the webhook's requests, newest first, in cursor pages. */
export async function listEvents(
  ctx: AppContext,
  customerId: number,
  webhookId: string,
  query: { limit: number; after?: string },
) {
  const webhook = await service.findWebhook(ctx, customerId, webhookId);
  let after: { created_at: Date; id: number } | undefined;
  if (query.after !== undefined) {
    const { row } = await findEvent(ctx, customerId, webhookId, query.after);
    after = { created_at: new Date(row.created_at), id: Number(row.id) };
  }
  const rows = await requests.pageOfWebhookRequests(ctx.db, Number(webhook.id), { limit: query.limit, after });
  return {
    object: 'list' as const,
    has_more: rows.length > query.limit,
    data: rows.slice(0, query.limit).map(listedEvent),
  };
}

export async function getEvent(ctx: AppContext, customerId: number, webhookId: string, eventId: string) {
  const { row } = await findEvent(ctx, customerId, webhookId, eventId);
  return {
    object: 'webhook_event' as const,
    ...listedEvent(row),
    next_attempt_at:
      row.status === 'pending' && row.next_attempt_at ? new Date(row.next_attempt_at).toISOString() : null,
    payload: (row.payload as Record<string, unknown> | null) ?? null,
  };
}

export async function replayEvent(ctx: AppContext, customerId: number, webhookId: string, eventId: string) {
  const { row } = await findEvent(ctx, customerId, webhookId, eventId);
  await service.replayLog(ctx, customerId, Number(row.id));
  return { object: 'webhook_event' as const, id: String(row.id) };
}

/** GET …/events/{eventId}/attempts: every try, oldest first, in cursor pages. */
export async function listAttempts(
  ctx: AppContext,
  customerId: number,
  path: { webhookId: string; eventId: string },
  query: { limit: number; after?: string },
) {
  const { row } = await findEvent(ctx, customerId, path.webhookId, path.eventId);
  const after = query.after === undefined ? undefined : eventIdOf(query.after);
  if (Number.isNaN(after)) throw new DomainError('not_found', 'No attempt with this id (the cursor)');
  const rows = await requests.pageOfAttempts(ctx.db, Number(row.id), { limit: query.limit, after });
  return {
    object: 'list' as const,
    has_more: rows.length > query.limit,
    data: rows.slice(0, query.limit).map((a) => ({
      id: String(a.id),
      http_status_code: a.status_code,
      response: a.response_body ?? a.error ?? '',
      sent_at: new Date(a.at).toISOString(),
    })),
  };
}
