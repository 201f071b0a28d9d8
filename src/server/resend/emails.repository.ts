// The queries behind reading messages back on the Resend-compatible surface: a message by one of
// its transactions, pages of a customer's messages newest first, their recipients and the last
// event that names each one's state.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { EventType } from '../db/schema.ts';

/** The customer's transaction `uuid` names, with its message; undefined for another account's or none. */
export function findTransaction(db: Database, customerId: number, uuid: string) {
  return db
    .selectFrom('transactions')
    .select(['id', 'uuid', 'message_id', 'status', 'scheduled_at'])
    .where('customer_id', '=', customerId)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
}

/** A transaction by its uuid in any account: only for a link we signed (email-attachments.service.ts). */
export function findTransactionByUuid(db: Database, uuid: string) {
  return db.selectFrom('transactions').select(['id', 'message_id']).where('uuid', '=', uuid).executeTakeFirst();
}

/** What a message's attachments are read from: the stored list (API) or the source (SMTP). */
export function attachmentSourceOf(db: Database, messageId: number) {
  return db
    .selectFrom('messages')
    .select(['id', 'attachments', 'raw'])
    .where('id', '=', messageId)
    .executeTakeFirstOrThrow();
}

/** The messages with these ids (their stored fields, the raw SMTP source among them). */
export function loadMessages(db: Database, ids: number[]) {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('messages')
    .select([
      'id',
      'from_email',
      'from_name',
      'reply_to',
      'to_header',
      'cc_header',
      'subject',
      'html',
      'text',
      'raw',
      'tags',
      'created_at',
    ])
    .where('id', 'in', ids)
    .execute();
}
export type StoredMessage = Awaited<ReturnType<typeof loadMessages>>[number];

/** Every recipient's transaction of these messages, in the order they were stored. */
export function recipientsOf(db: Database, messageIds: number[]) {
  if (messageIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('transactions')
    .select(['id', 'uuid', 'message_id', 'to_email', 'status', 'scheduled_at', 'message_id_header'])
    .where('message_id', 'in', messageIds)
    .orderBy('id')
    .execute();
}
export type Recipient = Awaited<ReturnType<typeof recipientsOf>>[number];

/** The events that say where a message stands (not unsubscribes, downloads or machines' hits). */
export const STATE_EVENTS = [
  'scheduled',
  'canceled',
  'queued',
  'sent',
  'delivered',
  'deferred',
  'bounced',
  'failed',
  'complaint',
  'open',
  'click',
] as const satisfies readonly EventType[];

/** Each transaction's latest state event (its type and data), by transaction id. */
export async function lastStateEvents(db: Database, transactionIds: number[]) {
  if (transactionIds.length === 0) return new Map<number, { type: EventType; reason: string | null }>();
  const { rows } = await sql<{ transaction_id: number; type: EventType; reason: string | null }>`
    select distinct on (transaction_id) transaction_id, type, data->>'reason' as reason
      from events
     where transaction_id in (${sql.join(transactionIds)})
       and type in (${sql.join([...STATE_EVENTS])})
       and coalesce(data->>'machine', 'false') <> 'true'
     order by transaction_id, id desc`.execute(db);
  return new Map(rows.map((r) => [Number(r.transaction_id), { type: r.type, reason: r.reason }]));
}

/**
 * One page of the customer's message ids, newest first: older than `after`, or newer than `before`
 * (then read oldest first and turned round), one more than `limit` to tell whether more follow.
 */
export async function pageOfMessageIds(
  db: Database,
  customerId: number,
  page: { limit: number; after?: number; before?: number },
): Promise<number[]> {
  let query = db.selectFrom('messages').select('id').where('customer_id', '=', customerId);
  if (page.before !== undefined) {
    const rows = await query
      .where('id', '>', page.before)
      .orderBy('id', 'asc')
      .limit(page.limit + 1)
      .execute();
    return rows.map((r) => Number(r.id));
  }
  if (page.after !== undefined) query = query.where('id', '<', page.after);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  return rows.map((r) => Number(r.id));
}
