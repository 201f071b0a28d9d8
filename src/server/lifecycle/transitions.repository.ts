// The rows of transactions as the lifecycle writes them: stored at acceptance, then their status and
// counter columns, each change guarded by the state it starts from (lifecycle.service.ts decides
// what to write from the policy table). Claims and leases are the queue's (delivery/queue.repository.ts).
import { sql } from 'kysely';
import { bumpCounters, type CounterDelta } from '../db/counters.ts';
import type { Database } from '../db/database.ts';
import { type ValuesColumns, updateFromValues } from '../db/values.ts';
import type { Insertable } from 'kysely';
import type { DeliveredStatus, TransactionsTable, TransStatus } from '../db/schema.ts';

/** Stores accepted transactions (their status given by the policy); answers what the lifecycle records of each. */
export function insertTransactions(db: Database, rows: Insertable<TransactionsTable>[]) {
  return db
    .insertInto('transactions')
    .values(rows)
    .returning(['id', 'uuid', 'customer_id', 'group_id', 'to_email'])
    .execute();
}

export interface AttemptUpdate {
  id: number;
  attempts: number;
  status: TransStatus;
  delivered_status: DeliveredStatus;
  sent_at: Date | null;
  next_attempt_at: Date | null;
  last_reply: string;
  bounce_type: 'hard' | 'soft' | null;
  bounce_reason: string | null;
}

const ATTEMPT_COLUMNS: ValuesColumns<AttemptUpdate> = {
  id: 'bigint',
  attempts: 'int',
  status: 'text',
  delivered_status: 'text',
  sent_at: 'timestamptz',
  next_attempt_at: 'timestamptz',
  last_reply: 'text',
  bounce_type: 'text',
  bounce_reason: 'text',
};

/**
 * Writes the outcomes of delivery attempts in one statement; returns the ids that were still this
 * attempt's to write (queued, same attempt number: a worker whose lease expired writes nothing).
 */
export function applyAttempts(db: Database, updates: AttemptUpdate[]): Promise<Set<number>> {
  return updateFromValues(db, 'transactions', ATTEMPT_COLUMNS, updates, {
    set: sql`status = v.status,
           delivered_status = v.delivered_status,
           sent_at = coalesce(v.sent_at, t.sent_at),
           next_attempt_at = v.next_attempt_at,
           locked_until = null,
           last_reply = v.last_reply,
           bounce_type = coalesce(v.bounce_type, t.bounce_type),
           bounce_reason = coalesce(v.bounce_reason, t.bounce_reason)`,
    status: 'queued',
    where: sql`t.attempts = v.attempts`,
  });
}

/**
 * Records a bounce report on a transaction that is still queued or was sent and not bounced yet
 * (docs/architecture.md §5.3); false when it was in neither state, so nothing changed.
 */
export async function markBounced(
  db: Database,
  id: number,
  bounce: { status: TransStatus; type: 'hard' | 'soft'; reason: string },
): Promise<boolean> {
  const result = await db
    .updateTable('transactions')
    .set({
      status: bounce.status,
      delivered_status: 'bounced',
      next_attempt_at: null,
      locked_until: null,
      bounce_type: bounce.type,
      bounce_reason: bounce.reason,
    })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([eb('status', '=', 'sent'), eb('delivered_status', 'in', ['pending', 'delivered'])]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Adds people's opens or clicks to transactions and returns the ids whose first open (click) this
 * batch is. The rows are locked first (in id order, so concurrent batches cannot deadlock) and their
 * previous first_*_at read under the lock: two web processes never both count the same unique open.
 */
export async function addHits(db: Database, kind: 'open' | 'click', deltas: CounterDelta[]): Promise<Set<number>> {
  if (deltas.length === 0) return new Set();
  const countColumn = kind === 'open' ? 'open_count' : 'click_count';
  const firstColumn = kind === 'open' ? 'first_open_at' : 'first_click_at';
  const ids = deltas.map((d) => d.id).sort((a, b) => a - b);
  const before = await db
    .selectFrom('transactions')
    .select(['id', firstColumn])
    .where('id', 'in', ids)
    .orderBy('id')
    .forUpdate()
    .execute();
  await bumpCounters(db, 'transactions', countColumn, firstColumn, deltas);
  return new Set(before.filter((row) => row[firstColumn] === null).map((row) => Number(row.id)));
}

/**
 * Scheduled transactions whose moment has come, oldest first, locked (SKIP LOCKED: another process
 * releases the others), through the index of waiting scheduled rows (migration 019).
 */
export async function dueScheduledRows(db: Database, limit: number) {
  const { rows } = await sql<{ id: number; customer_id: number; group_id: number; to_email: string }>`
    select id, customer_id, group_id, to_email from transactions
     where status = 'scheduled' and next_attempt_at <= now()
     order by next_attempt_at
     limit ${limit}
     for update skip locked`.execute(db);
  return rows.map((r) => ({
    ...r,
    id: Number(r.id),
    customer_id: Number(r.customer_id),
    group_id: Number(r.group_id),
  }));
}

/** A message's transactions still scheduled, locked, for a change of its moment or its cancellation. */
export function lockScheduledOfMessage(db: Database, customerId: number, messageId: number) {
  return db
    .selectFrom('transactions')
    .select(['id', 'customer_id', 'group_id', 'to_email'])
    .where('customer_id', '=', customerId)
    .where('message_id', '=', messageId)
    .where('status', '=', 'scheduled')
    .orderBy('id')
    .forUpdate()
    .execute();
}

/**
 * Moves scheduled transactions on (released to the queue, due at once; over the quota; canceled):
 * only rows still scheduled change. Answers the ids that did.
 */
export async function leaveSchedule(
  db: Database,
  rows: { id: number; status: TransStatus; delivered_status: DeliveredStatus; last_reply: string | null }[],
): Promise<Set<number>> {
  if (rows.length === 0) return new Set();
  const values = rows.map(
    (r) => sql`(${r.id}::bigint, ${r.status}::text, ${r.delivered_status}::text, ${r.last_reply}::text)`,
  );
  const result = await sql<{ id: number }>`
    update transactions as t
       set status = v.status,
           delivered_status = v.delivered_status,
           next_attempt_at = case when v.status = 'queued' then now() else null end,
           last_reply = coalesce(v.last_reply, t.last_reply)
      from (values ${sql.join(values)}) as v(id, status, delivered_status, last_reply)
     where t.id = v.id and t.status = 'scheduled'
    returning t.id`.execute(db);
  return new Set(result.rows.map((r) => Number(r.id)));
}

/** Moves the moment of scheduled transactions (still scheduled). */
export async function moveSchedule(db: Database, ids: number[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('transactions')
    .set({ next_attempt_at: at, scheduled_at: at })
    .where('id', 'in', ids)
    .where('status', '=', 'scheduled')
    .execute();
}

/** The message of the customer's transaction `uuid`, with that transaction's status; undefined for none. */
export function findMessageOf(db: Database, customerId: number, uuid: string) {
  return db
    .selectFrom('transactions')
    .select(['message_id', 'status'])
    .where('customer_id', '=', customerId)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
}
