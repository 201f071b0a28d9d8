// The outbox table `webhook_requests` as a queue (like transactions, docs/architecture.md §6.1): workers claim due
// rows with FOR UPDATE SKIP LOCKED and push next_attempt_at past a lease, so a killed worker's rows
// come due again by themselves; results are written back guarded by the attempt number, so a worker
// whose lease ran out cannot overwrite a newer attempt. Also the Webhook Logs queries.
import { type Insertable, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { type ValuesColumns, updateFromValues } from '../db/values.ts';
import type { WebhookRequestsTable } from '../db/schema.ts';

export interface ClaimedRequest {
  id: number;
  customer_id: number;
  webhook_id: number | null;
  msg_id: string;
  transaction_id: number | null;
  event_type: string;
  event_at: Date;
  event_data: Record<string, unknown> | null;
  field_set: string;
  payload: Record<string, unknown> | null;
  attempts: number;
  retry_step: number;
}

/**
 * A claimed request with what sending it needs: its webhook now, and its transaction when the payload is still to be
 * built.
 */
export interface ClaimedWithContext extends ClaimedRequest {
  w_url: string | null;
  w_verb: string | null;
  w_status: string | null;
  w_auth_type: string | null;
  w_auth_details_sealed: string | null;
  w_secret_sealed: string | null;
  w_updated_at: Date | null;
  t_uuid: string | null;
  t_message_id_header: string | null;
  t_group_uuid: string | null;
  t_group_name: string | null;
  t_from_email: string | null;
  t_from_name: string | null;
  t_to_email: string | null;
  t_to_name: string | null;
  t_subject: string | null;
  t_tags: string[] | null;
  t_metadata: Record<string, unknown> | null;
  t_created_at: Date | null;
}

const CLAIMED_COLUMNS = sql`id, customer_id, webhook_id, msg_id, transaction_id, event_type, event_at, event_data,
  field_set, payload, attempts, retry_step`;

function claimedRow<T extends ClaimedRequest>(r: T): T {
  return {
    ...r,
    id: Number(r.id),
    customer_id: Number(r.customer_id),
    webhook_id: r.webhook_id === null ? null : Number(r.webhook_id),
    transaction_id: r.transaction_id === null ? null : Number(r.transaction_id),
    event_at: new Date(r.event_at),
  };
}

interface ClaimOptions {
  now: Date;
  limit: number;
  perCustomer: number;
  busy: number[];
  leaseSeconds: number;
}

/**
 * Claims up to `limit` due requests, at most `perCustomer` of one customer and none of the customers
 * in `busy` (those already at their bound in this worker), for `leaseSeconds` after `now`. One
 * statement returns each with its webhook and, when its payload is not built yet, its transaction.
 */
export async function claimDueRequests(db: Database, opts: ClaimOptions): Promise<ClaimedWithContext[]> {
  const notBusy = opts.busy.length ? sql`and customer_id not in (${sql.join(opts.busy)})` : sql``;
  const result = await sql<ClaimedWithContext>`
    with due as (
      -- candidates are locked here (SKIP LOCKED), so two workers rank disjoint rows instead of
      -- both picking the same first few and one coming away empty
      select id, customer_id, next_attempt_at from webhook_requests
       where status = 'pending' and next_attempt_at <= ${opts.now} ${notBusy}
       order by next_attempt_at
       limit ${opts.limit * 2}
       for update skip locked),
    fair as (
      select id from (select id, next_attempt_at, row_number() over (partition by customer_id order by
        next_attempt_at, id) as n from due) d
       where n <= ${opts.perCustomer}
       order by next_attempt_at
       limit ${opts.limit}),
    claimed as (
      update webhook_requests
         set next_attempt_at = ${opts.now}::timestamptz + make_interval(secs => ${opts.leaseSeconds}),
             attempts = attempts + 1,
             updated_at = ${opts.now}
       where id in (select id from fair)
      returning ${CLAIMED_COLUMNS})
    select c.*,
           w.url as w_url, w.verb as w_verb, w.status as w_status, w.auth_type as w_auth_type,
           w.auth_details_sealed as w_auth_details_sealed, w.secret_sealed as w_secret_sealed, w.updated_at as
             w_updated_at,
           t.uuid as t_uuid, t.message_id_header as t_message_id_header, g.uuid as t_group_uuid, g.name as t_group_name,
           m.from_email as t_from_email, m.from_name as t_from_name, t.to_email as t_to_email, t.to_name as t_to_name,
           m.subject as t_subject, m.tags as t_tags, m.metadata as t_metadata, t.queued_at as t_created_at
      from claimed c
      left join webhooks w on w.id = c.webhook_id
      left join transactions t on t.id = c.transaction_id and c.payload is null
      left join messages m on m.id = t.message_id
      left join transaction_groups g on g.id = t.group_id`.execute(db);
  return result.rows.map(claimedRow);
}

/** Claims one request by id for an attempt now (the test event, sent while the caller waits). */
export async function claimRequest(
  db: Database,
  id: number,
  now: Date,
  leaseSeconds: number,
): Promise<ClaimedRequest | undefined> {
  const result = await sql<ClaimedRequest>`
    update webhook_requests
       set next_attempt_at = ${now}::timestamptz + make_interval(secs => ${leaseSeconds}), attempts = attempts + 1,
         updated_at = ${now}
     where id = ${id} and status = 'pending'
    returning ${CLAIMED_COLUMNS}`.execute(db);
  return result.rows.map(claimedRow)[0];
}

export interface RequestUpdate {
  id: number;
  attempts: number;
  status: 'pending' | 'success' | 'failed';
  next_attempt_at: Date | null;
  retry_step: number;
  last_status_code: number | null;
  url: string;
  verb: string;
  payload: Record<string, unknown> | null;
  at: Date;
}

const REQUEST_UPDATE_COLUMNS: ValuesColumns<RequestUpdate> = {
  id: 'bigint',
  attempts: 'int',
  status: 'text',
  next_attempt_at: 'timestamptz',
  retry_step: 'int',
  last_status_code: 'int',
  url: 'text',
  verb: 'text',
  payload: 'jsonb',
  at: 'timestamptz',
};

/** Writes results in one statement; returns the ids that were still this attempt's to write. */
export function applyRequestUpdates(db: Database, updates: RequestUpdate[]): Promise<Set<number>> {
  return updateFromValues(db, 'webhook_requests', REQUEST_UPDATE_COLUMNS, updates, {
    set: sql`status = v.status, next_attempt_at = v.next_attempt_at, retry_step = v.retry_step,
           last_status_code = v.last_status_code, url = coalesce(nullif(v.url, ''), t.url), verb =
             coalesce(nullif(v.verb, ''), t.verb),
           payload = coalesce(t.payload, v.payload), updated_at = v.at`,
    status: 'pending',
    where: sql`t.attempts = v.attempts`,
  });
}

export interface NewAttempt {
  request_id: number;
  at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  next_retry_at: Date | null;
}

// rows per statement: 19 parameters each, well under the protocol's 65,535
const RESULTS_PER_STATEMENT = 2000;

/**
 * Writes results and their attempt rows in one statement per 2,000 (the attempt insert is a CTE fed
 * by the update's RETURNING): an attempt is logged exactly when its result was still this attempt's
 * to write (the same guard as applyRequestUpdates). Returns the ids written. A profile of
 * bench:webhooks put the webhook worker's time in the embedded database's per-statement work, so
 * two statements per batch became one.
 */
export async function recordResults(
  db: Database,
  results: { update: RequestUpdate; attempt: NewAttempt | null }[],
): Promise<Set<number>> {
  const applied = new Set<number>();
  for (let i = 0; i < results.length; i += RESULTS_PER_STATEMENT) {
    const rows = results.slice(i, i + RESULTS_PER_STATEMENT).map(({ update: u, attempt: a }) => {
      const payload = u.payload === null ? null : JSON.stringify(u.payload);
      return sql`(${u.id}::bigint, ${u.attempts}::int, ${u.status}::text, ${u.next_attempt_at}::timestamptz,
        ${u.retry_step}::int, ${u.last_status_code}::int, ${u.url}::text, ${u.verb}::text, ${payload}::jsonb,
          ${u.at}::timestamptz,
        ${a !== null}::boolean, ${a?.at ?? null}::timestamptz, ${a?.duration_ms ?? null}::int,
          ${a?.status_code ?? null}::int, ${a?.error ?? null}::text, ${a?.response_body ?? null}::text,
            ${a?.next_retry_at ?? null}::timestamptz)`;
    });
    const result = await sql<{ id: number }>`
      with v(id, attempts, status, next_attempt_at, retry_step, last_status_code, url, verb, payload, at, logged,
        a_at, a_duration_ms, a_status_code, a_error, a_response_body, a_next_retry_at) as (
        values ${sql.join(rows)}),
      applied as (
        update webhook_requests as r
           set status = v.status, next_attempt_at = v.next_attempt_at, retry_step = v.retry_step,
               last_status_code = v.last_status_code, url = coalesce(nullif(v.url, ''), r.url), verb =
                 coalesce(nullif(v.verb, ''), r.verb),
               payload = coalesce(r.payload, v.payload), updated_at = v.at
          from v
         where r.id = v.id and r.attempts = v.attempts and r.status = 'pending'
        returning r.id),
      logged as (
        insert into webhook_attempts (request_id, at, duration_ms, status_code, error, response_body, next_retry_at)
        select v.id, v.a_at, v.a_duration_ms, v.a_status_code, v.a_error, v.a_response_body, v.a_next_retry_at
          from v join applied on applied.id = v.id
         where v.logged)
      select id from applied`.execute(db);
    for (const r of result.rows) applied.add(Number(r.id));
  }
  return applied;
}

/** Turns webhooks off after a 410 Gone answer, saying why (the Settings card shows it). */
export async function disableWebhooks(db: Database, disabled: { id: number; reason: string }[]): Promise<void> {
  for (const d of disabled) {
    await db
      .updateTable('webhooks')
      .set({ status: 'disabled', disabled_reason: d.reason, updated_at: new Date() })
      .where('id', '=', d.id)
      .execute();
  }
}

/** The columns the Webhook Logs list and its detail show of a request. */
const REQUEST_COLUMNS = [
  'id',
  'webhook_id',
  'msg_id',
  'event_type',
  'url',
  'verb',
  'field_set',
  'payload',
  'status',
  'attempts',
  'retry_step',
  'next_attempt_at',
  'last_status_code',
  'created_at',
  'event_at',
] as const;

/** Whether a request has a recorded attempt (with retry_step, it tells a replay from a retry). */
const triedBefore = sql<boolean>`exists (select 1 from webhook_attempts a where a.request_id = webhook_requests.id)`.as(
  'tried',
);

/** One page of a customer's log (or one webhook's), newest (or oldest) first, and a count capped at `countCap`. */
export async function listRequests(
  db: Database,
  customerId: number,
  opts: { page: number; perPage: number; ascending: boolean; countCap: number; webhookId?: number },
) {
  const direction = opts.ascending ? 'asc' : 'desc';
  let query = db
    .selectFrom('webhook_requests')
    .select([...REQUEST_COLUMNS, triedBefore])
    .where('customer_id', '=', customerId);
  // one webhook's requests (the Webhook Logs' filter), through webhook_requests_webhook
  if (opts.webhookId !== undefined) query = query.where('webhook_id', '=', opts.webhookId);
  const rows = await query
    .orderBy('created_at', direction)
    .orderBy('id', direction)
    .limit(opts.perPage)
    .offset((opts.page - 1) * opts.perPage)
    .execute();
  const ofWebhook = opts.webhookId === undefined ? sql`` : sql`and webhook_id = ${opts.webhookId}`;
  const counted = await sql<{ n: number }>`
    select count(*)::int as n from (select 1 from webhook_requests where customer_id = ${customerId} ${ofWebhook}
      limit ${opts.countCap}) c`.execute(db);
  return { rows, total: Number(counted.rows[0].n) };
}
export type RequestRow = Awaited<ReturnType<typeof listRequests>>['rows'][number];

export async function findRequest(db: Database, customerId: number, id: number) {
  return db
    .selectFrom('webhook_requests')
    .select([...REQUEST_COLUMNS, triedBefore])
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The customer's requests of one received message's `email.received` event, oldest first. */
export function requestsOfReceived(db: Database, customerId: number, inboundEmailId: string) {
  return db
    .selectFrom('webhook_requests')
    .select([...REQUEST_COLUMNS, triedBefore])
    .where('inbound_email_id', '=', inboundEmailId)
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
}

export async function listAttempts(db: Database, requestId: number) {
  return db.selectFrom('webhook_attempts').selectAll().where('request_id', '=', requestId).orderBy('id').execute();
}

/** Queues a logged request again now, with the schedule from the start (same webhook-id). */
export async function replayRequest(db: Database, customerId: number, id: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('webhook_requests')
    .set({ status: 'pending', next_attempt_at: now, retry_step: 0, updated_at: now })
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes up to `batch` finished requests created before `before`; returns how many went. */
export async function purgeRequests(db: Database, before: Date, batch: number): Promise<number> {
  const result = await sql`
    delete from webhook_requests where id in (
      select id from webhook_requests where created_at < ${before} and status <> 'pending' order by created_at limit
        ${batch})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** Stores one request to send (the test event); answers its id. */
export async function insertRequest(db: Database, row: Insertable<WebhookRequestsTable>): Promise<number> {
  const inserted = await db.insertInto('webhook_requests').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(inserted.id);
}

/**
 * A cursor page of one webhook's requests, newest first (Resend's events list): up to `limit + 1`
 * rows older than the request `after` names, so the caller can tell whether more follow.
 */
export async function pageOfWebhookRequests(
  db: Database,
  webhookId: number,
  page: { limit: number; after?: { created_at: Date; id: number } },
) {
  let query = db
    .selectFrom('webhook_requests')
    .select([...REQUEST_COLUMNS, triedBefore])
    .where('webhook_id', '=', webhookId);
  const after = page.after;
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', '<', after.id)]),
      ]),
    );
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
}

/** One request of a webhook, by its id. */
export function findWebhookRequest(db: Database, webhookId: number, id: number) {
  return db
    .selectFrom('webhook_requests')
    .select([...REQUEST_COLUMNS, triedBefore])
    .where('webhook_id', '=', webhookId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A cursor page of a request's attempts, oldest first: up to `limit + 1` after the attempt `after`. */
export function pageOfAttempts(db: Database, requestId: number, page: { limit: number; after?: number }) {
  let query = db.selectFrom('webhook_attempts').selectAll().where('request_id', '=', requestId);
  if (page.after !== undefined) query = query.where('id', '>', page.after);
  return query
    .orderBy('id')
    .limit(page.limit + 1)
    .execute();
}
