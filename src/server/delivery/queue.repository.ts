// The queue is the transactions table (docs/architecture.md §6.1): a worker claims due rows with FOR UPDATE SKIP
// LOCKED and sets their locked_until a lease ahead, so a crashed worker's rows come due again by
// themselves when it passes. The lease lives only in locked_until, which no index covers:
// next_attempt_at (transactions_queue_idx) is left as it was, so a claim and a renewal are HOT
// updates that write no index entry, where moving next_attempt_at wrote one in each of the table's
// sixteen indexes. A row is due when next_attempt_at has come and no lease is running. Outcomes are
// written back by the lifecycle (lifecycle/transitions.repository.ts), guarded by the attempt number
// so a worker whose lease expired cannot overwrite a newer attempt.
import { type Selectable, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { TransactionsTable } from '../db/schema.ts';

/** The columns of a claimed transaction the worker reads: claimDue's RETURNING. */
const CLAIMED = [
  'id',
  'uuid',
  'customer_id',
  'message_id',
  'group_id',
  'to_email',
  'to_name',
  'message_id_header',
  'attempts',
  'queued_at',
] as const;
export type ClaimedTransaction = Pick<Selectable<TransactionsTable>, (typeof CLAIMED)[number]>;

/**
 * Claims up to `limit` due transactions for `leaseSeconds`: attempts + 1 and a lease in locked_until, nothing
 * else (a HOT update). On PGlite the worker runs it after forceIndexOrder (db/index-order.ts).
 */
export async function claimDue(db: Database, limit: number, leaseSeconds: number): Promise<ClaimedTransaction[]> {
  // Leased rows keep their (past) next_attempt_at, so they stay at the head of the index and the
  // walk steps over them (at most the claims in flight); in exchange no index entry is written.
  const result = await sql<ClaimedTransaction>`
    update transactions
       set locked_until = now() + make_interval(secs => ${leaseSeconds}),
           attempts = attempts + 1
     where id in (
       select id from transactions
        where status = 'queued' and next_attempt_at <= now() and (locked_until is null or locked_until <= now())
        order by next_attempt_at
        limit ${limit}
        for update skip locked)
    returning ${sql.join(CLAIMED.map((c) => sql.ref(c)))}`.execute(db);
  return result.rows.map((r) => ({ ...r, queued_at: new Date(r.queued_at) }));
}

/** The messages and sending domains of claimed transactions. */
export async function loadMessages(db: Database, messageIds: number[]) {
  if (messageIds.length === 0) return [];
  return db
    .selectFrom('messages')
    .innerJoin('domains', 'domains.id', 'messages.domain_id')
    .innerJoin('customers', 'customers.id', 'messages.customer_id')
    .select([
      'messages.id',
      'messages.customer_id',
      'messages.from_email',
      'messages.from_name',
      'messages.reply_to',
      'messages.to_header',
      'messages.cc_header',
      'messages.subject',
      'messages.headers',
      'messages.html',
      'messages.text',
      'messages.attachments',
      'messages.raw',
      'messages.attachment_group_id',
      'domains.id as domain_id',
      'domains.domain',
      'domains.dkim_selector',
      'domains.dkim_private_key_sealed',
      // read with every delivery: the tracking settings at delivery time apply, the domain's own
      // choice first and the account's where it has none (migration 025)
      (eb) => eb.fn.coalesce('domains.open_tracking', 'customers.track_opens').as('track_opens'),
      (eb) => eb.fn.coalesce('domains.click_tracking', 'customers.track_links').as('track_links'),
      'domains.tls',
      // the service's own mail: no tracking, no List-Unsubscribe
      'customers.is_system',
    ])
    .where('messages.id', 'in', [...new Set(messageIds)])
    .execute();
}
export type LoadedMessage = Awaited<ReturnType<typeof loadMessages>>[number];

/**
 * The heartbeat: pushes the lease of claims this worker still holds `leaseSeconds`
 * ahead, each guarded by its attempt number so a claim that was taken over is left alone. Only
 * locked_until moves (a HOT update, as the claim).
 */
export async function renewLeases(
  db: Database,
  held: { id: number; attempts: number }[],
  leaseSeconds: number,
): Promise<number> {
  if (held.length === 0) return 0;
  const rows = held.map((h) => sql`(${h.id}::bigint, ${h.attempts}::int)`);
  const result = await sql`
    update transactions as t
       set locked_until = now() + make_interval(secs => ${leaseSeconds})
      from (values ${sql.join(rows)}) as v(id, attempts)
     where t.id = v.id and t.attempts = v.attempts and t.status = 'queued' and t.locked_until is not null`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * Gives claims back so they are due now: on SIGTERM, what a worker had not delivered; with `held`
 * omitted, every claim in the database (PGlite at start-up, where one process owns the data
 * directory, so any claim found belongs to a process that is gone). A claim left next_attempt_at
 * where it was, already come, so clearing locked_until is what makes it due; `least` keeps that
 * column's value (and the update HOT) and brings a later one to now (a claim written by a version
 * that kept the lease in next_attempt_at).
 */
export async function releaseClaims(db: Database, held?: { id: number; attempts: number }[]): Promise<number> {
  if (held && held.length === 0) return 0;
  const result = held
    ? await sql`
        update transactions as t
           set next_attempt_at = least(t.next_attempt_at, now()), locked_until = null
          from (values ${sql.join(held.map((h) => sql`(${h.id}::bigint, ${h.attempts}::int)`))}) as v(id, attempts)
         where t.id = v.id and t.attempts = v.attempts and t.status = 'queued' and t.locked_until is not null`.execute(
        db,
      )
    : await sql`
        update transactions set next_attempt_at = least(next_attempt_at, now()), locked_until = null
         where status = 'queued' and locked_until is not null and locked_until > now()`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
