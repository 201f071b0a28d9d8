// Received messages (docs/receiving.md): the one writer of inbound_emails. Every read is scoped
// to one customer.
import type { Insertable, Selectable } from 'kysely';
import type { Database } from '../db/database.ts';
import type { InboundEmailsTable } from '../db/schema.ts';

export type InboundEmail = Selectable<InboundEmailsTable>;

export async function insertInbound(db: Database, row: Insertable<InboundEmailsTable>): Promise<void> {
  await db.insertInto('inbound_emails').values(row).execute();
}

export function findInbound(db: Database, customerId: number, id: string): Promise<InboundEmail | undefined> {
  return db
    .selectFrom('inbound_emails')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A page of the customer's received mail, newest first, after or before the message `cursor`. */
export async function pageInbound(
  db: Database,
  customerId: number,
  opts: { limit: number; after?: InboundEmail; before?: InboundEmail },
): Promise<InboundEmail[]> {
  let query = db.selectFrom('inbound_emails').selectAll().where('customer_id', '=', customerId);
  const { after, before } = opts;
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('received_at', '<', after.received_at),
        eb.and([eb('received_at', '=', after.received_at), eb('id', '<', after.id)]),
      ]),
    );
  if (before)
    query = query.where((eb) =>
      eb.or([
        eb('received_at', '>', before.received_at),
        eb.and([eb('received_at', '=', before.received_at), eb('id', '>', before.id)]),
      ]),
    );
  const order = before ? 'asc' : 'desc';
  const rows = await query.orderBy('received_at', order).orderBy('id', order).limit(opts.limit).execute();
  return before ? rows.reverse() : rows;
}

/** Messages received before `before`, oldest first, at most `limit` (the retention purge). */
export function expiredInbound(
  db: Database,
  before: Date,
  limit: number,
): Promise<Pick<InboundEmail, 'id' | 'attachments'>[]> {
  return db
    .selectFrom('inbound_emails')
    .select(['id', 'attachments'])
    .where('received_at', '<', before)
    .orderBy('received_at')
    .limit(limit)
    .execute();
}

export async function deleteInbound(db: Database, ids: string[]): Promise<void> {
  if (ids.length) await db.deleteFrom('inbound_emails').where('id', 'in', ids).execute();
}

/** The customer's sent transaction with uuid `uuid` whose Message-ID is `messageId`, if any. */
export async function sentTransaction(
  db: Database,
  customerId: number,
  uuid: string,
  messageId: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('transactions')
    .select('id')
    .where('uuid', '=', uuid)
    .where('customer_id', '=', customerId)
    .where('message_id_header', '=', messageId)
    .executeTakeFirst();
  return row?.id;
}

/** The uuids of the transactions `ids` (the sent messages received mail answers). */
export async function transactionUuids(db: Database, ids: number[]): Promise<Map<number, string>> {
  if (!ids.length) return new Map();
  const rows = await db.selectFrom('transactions').select(['id', 'uuid']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r.uuid]));
}

/** What the download links of message `id` serve (any account's: the link's signature is the check). */
export function findInboundFiles(
  db: Database,
  id: string,
): Promise<Pick<InboundEmail, 'attachments' | 'auth_headers' | 'raw_size'> | undefined> {
  return db
    .selectFrom('inbound_emails')
    .select(['attachments', 'auth_headers', 'raw_size'])
    .where('id', '=', id)
    .executeTakeFirst();
}
