// The webhook outbox: when events are recorded, a `webhook_requests` row is added for
// each event and each enabled webhook of its customer subscribed to its type, in the same database
// transaction as the event (no event without its webhook, no webhook for a rolled-back event).
// A `resend` webhook names the types as Resend does (resend-events.ts). Which customers have webhooks
// is read through a per-process cache (src/server/core/lookup-cache.ts), cleared on every save,
// rotation, deletion or disable, so the send path of a customer without a webhook
// costs no query; without a context (a caller that has none) the subscriptions are read in the
// transaction itself, which is always right, only one query dearer.
import type { AppContext } from '../core/context.ts';
import type { Database } from '../db/database.ts';
import type { EventType, WebhookEventType } from '../../contract/values.ts';
import { lookupCache } from '../core/lookup-cache.ts';
import { resendNamesOf } from './resend-events.ts';

/**
 * The webhook type of a recorded event. `queued` and `delivered` are not webhook events: a delivered
 * message is reported once, as `sent` (the worker records both on success). A `deferred` event is
 * `delayed`, reported for a transaction's first deferral only (withoutRepeatedDeferrals).
 */
export function webhookTypeOf(type: EventType): WebhookEventType | null {
  switch (type) {
    case 'sent':
    case 'failed':
    case 'complaint':
    case 'open':
    case 'click':
    case 'unsubscribe':
    case 'resubscribe':
      return type;
    case 'bounced':
      return 'bounce';
    case 'deferred':
      return 'delayed';
    default:
      return null;
  }
}

/**
 * docs/webhooks.md "Events": a message is reported `delayed` once, at its first deferral, and not for
 * the retries after it. "First" is read from the event log, not from the attempt number: an attempt
 * whose outcome was never recorded (its lease ran out) or that spent no attempt still leaves the
 * first recorded deferral the one reported. `earlier` holds the transactions deferred before
 * `events`; a second deferral of one transaction within `events` is dropped as well.
 */
export function withoutRepeatedDeferrals<E extends Pick<OutboxEvent, 'type' | 'transaction_id'>>(
  events: E[],
  earlier: ReadonlySet<number>,
): E[] {
  const deferred = new Set(earlier);
  return events.filter((e) => {
    if (e.type !== 'deferred') return true;
    if (deferred.has(e.transaction_id)) return false;
    deferred.add(e.transaction_id);
    return true;
  });
}

export interface Subscription {
  webhookId: number;
  url: string;
  verb: string;
  fieldSet: string;
  /** our webhook types, or Resend's names for a `resend` webhook */
  types: ReadonlySet<string>;
  /** what `email.received` carries: 'metadata' or 'full' (docs/receiving.md "To a webhook") */
  receivedContent: string;
  /** with 'full': attachments inline while they total at most this many bytes */
  receivedInlineMaxBytes: number;
}

export interface OutboxEvent {
  customer_id: number;
  transaction_id: number;
  type: EventType;
  at?: Date;
  data?: Record<string, unknown> | null;
}

const CACHE = 'webhook-subscriptions';

async function readSubscriptions(db: Database, customerIds: number[]): Promise<Map<number, Subscription[]>> {
  const rows = await db
    .selectFrom('webhooks')
    .select([
      'id',
      'customer_id',
      'url',
      'verb',
      'field_set',
      'event_types',
      'status',
      'received_content',
      'received_inline_max_bytes',
    ])
    .where('customer_id', 'in', customerIds)
    .orderBy('id')
    .execute();
  const found = new Map<number, Subscription[]>(customerIds.map((id) => [id, []]));
  for (const r of rows) {
    if (r.status !== 'enabled' || r.event_types.length === 0) continue;
    found.get(Number(r.customer_id))!.push({
      webhookId: Number(r.id),
      url: r.url,
      verb: r.verb,
      fieldSet: r.field_set,
      types: new Set(r.event_types),
      receivedContent: r.received_content,
      receivedInlineMaxBytes: r.received_inline_max_bytes,
    });
  }
  return found;
}

/** Each customer's enabled webhooks (none: empty), through the cache when there is a context. */
export async function subscriptionsOf(
  ctx: Pick<AppContext, 'lookups'> | undefined,
  db: Database,
  customerIds: number[],
): Promise<Map<number, Subscription[]>> {
  if (!ctx) return readSubscriptions(db, customerIds);
  const cache = lookupCache<Subscription[]>(ctx, CACHE);
  const result = new Map<number, Subscription[]>();
  const missing: number[] = [];
  for (const id of customerIds) {
    const hit = cache.get(String(id));
    if (hit === undefined) missing.push(id);
    else result.set(id, hit);
  }
  if (missing.length > 0) {
    for (const [id, subs] of await readSubscriptions(db, missing)) {
      cache.set(String(id), subs);
      result.set(id, subs);
    }
  }
  return result;
}

/**
 * The transactions among `ids` with a `deferred` event in the log. insertEvents asks before it writes
 * the new events, so these are the deferrals recorded earlier.
 */
async function deferredBefore(db: Database, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('events')
    .select('transaction_id')
    .distinct()
    .where('type', '=', 'deferred')
    .where('transaction_id', 'in', [...new Set(ids)])
    .execute();
  return new Set(rows.map((r) => Number(r.transaction_id)));
}

/** The name an event has for a webhook of this field set (null: it does not hear of it). */
function nameFor(fieldSet: string, e: OutboxEvent, resendName: string | null): string | null {
  return fieldSet === 'resend' ? resendName : webhookTypeOf(e.type);
}

/**
 * Adds the outbox rows of `events`, one per event and enabled webhook subscribed to it (called by
 * insertEvents, inside the caller's transaction, before the events themselves are written).
 */
export async function insertOutbox(
  ctx: Pick<AppContext, 'lookups'> | undefined,
  db: Database,
  events: OutboxEvent[],
): Promise<number> {
  const resendNames = resendNamesOf(events);
  const relevant = events
    .map((e, i) => ({ e, resendName: resendNames[i] }))
    .filter(({ e, resendName }) => resendName !== null || webhookTypeOf(e.type) !== null);
  if (relevant.length === 0) return 0;
  const subs = await subscriptionsOf(ctx, db, [...new Set(relevant.map(({ e }) => e.customer_id))]);
  const wanted = relevant.flatMap(({ e, resendName }) =>
    (subs.get(e.customer_id) ?? []).flatMap((sub) => {
      const name = nameFor(sub.fieldSet, e, resendName);
      return name !== null && sub.types.has(name) ? [{ ...e, sub, name }] : [];
    }),
  );
  // only a subscribed deferral costs the look-up in the log; each webhook hears of the first one
  const deferrals = wanted.filter((w) => w.type === 'deferred').map((w) => w.transaction_id);
  const earlier = await deferredBefore(db, deferrals);
  const bySub = Map.groupBy(wanted, (w) => w.sub.webhookId);
  const reported = [...bySub.values()].flatMap((list) => withoutRepeatedDeferrals(list, earlier));
  const rows = reported.map((w) => {
    const at = w.at ?? new Date();
    return {
      customer_id: w.customer_id,
      webhook_id: w.sub.webhookId,
      transaction_id: w.transaction_id,
      event_type: w.name,
      event_at: at,
      event_data: w.data ? JSON.stringify(w.data) : null,
      url: w.sub.url,
      verb: w.sub.verb,
      field_set: w.sub.fieldSet,
      next_attempt_at: at,
    };
  });
  // in slices: one statement may carry at most 65,535 parameters
  for (let i = 0; i < rows.length; i += 5000)
    await db
      .insertInto('webhook_requests')
      .values(rows.slice(i, i + 5000))
      .execute();
  return rows.length;
}

/** A received message's `email.received` event (docs/receiving.md "To a webhook"). */
export interface ReceivedEvent {
  customerId: number;
  /** the received message's id */
  emailId: string;
  at: Date;
  /** Resend's data: the message's fields, without its content */
  data: Record<string, unknown>;
  /** the data with the whole message, for a webhook whose attachments come inline up to the limit given */
  fullData(inlineMaxBytes: number): Promise<Record<string, unknown>>;
}

/**
 * Queues `email.received` for each enabled `resend` webhook of the customer subscribed to it, in the
 * caller's transaction (the one that stores the received message, docs/receiving.md): the fields for
 * a webhook of 'metadata', the whole message for one of 'full'. The payload is complete now: the event
 * names no transaction for the worker to read it from. Each row names its message (the console's
 * message page lists them).
 */
export async function insertReceivedOutbox(
  ctx: Pick<AppContext, 'lookups'>,
  db: Database,
  event: ReceivedEvent,
): Promise<number> {
  const subs = (await subscriptionsOf(ctx, db, [event.customerId])).get(event.customerId) ?? [];
  const wanted = subs.filter((sub) => sub.fieldSet === 'resend' && sub.types.has('email.received'));
  const createdAt = event.at.toISOString();
  const metadata = JSON.stringify(event.data);
  // one row at a time, each written as its payload is made: a full payload may be large
  for (const sub of wanted) {
    const data = sub.receivedContent === 'full' ? await event.fullData(sub.receivedInlineMaxBytes) : event.data;
    const row = {
      customer_id: event.customerId,
      webhook_id: sub.webhookId,
      transaction_id: null,
      inbound_email_id: event.emailId,
      event_type: 'email.received',
      event_at: event.at,
      event_data: metadata,
      url: sub.url,
      verb: sub.verb,
      field_set: sub.fieldSet,
      payload: JSON.stringify({ type: 'email.received', created_at: createdAt, data }),
      next_attempt_at: event.at,
    };
    await db.insertInto('webhook_requests').values(row).execute();
  }
  return wanted.length;
}
