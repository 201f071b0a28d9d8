// Received messages (docs/receiving.md): the one writer of inbound_emails. Every read is scoped
// to one customer.
import { type ExpressionBuilder, type Insertable, type Selectable, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { InboundEmailsTable, Tables } from '../db/schema.ts';

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

/** What the console's list shows of a message. */
export type InboundListed = Pick<
  InboundEmail,
  | 'id'
  | 'from_address'
  | 'to_addresses'
  | 'received_for'
  | 'subject'
  | 'received_at'
  | 'spf'
  | 'dkim'
  | 'dmarc'
  | 'flagged'
  | 'attachments'
  | 'reply_to_transaction_id'
>;

/**
 * The console's search: `text` anywhere in From, To, the envelope recipients or Subject, any case. A
 * substring, not a prefix: received mail is kept INBOUND_RETENTION_DAYS, so one account's rows stay few
 * enough to test each (through the customer index), and people search a subject by any word.
 */
function searched(text: string | undefined) {
  return (eb: ExpressionBuilder<Tables, 'inbound_emails'>) => {
    if (!text) return eb.lit(true);
    const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return eb.or([
      eb('from_address', 'ilike', pattern),
      eb('subject', 'ilike', pattern),
      eb(sql<string>`to_addresses::text`, 'ilike', pattern),
      eb(sql<string>`received_for::text`, 'ilike', pattern),
    ]);
  };
}

/** One page of the customer's received mail matching `search`, newest first. */
export function searchInbound(
  db: Database,
  customerId: number,
  opts: { search?: string; offset: number; limit: number },
): Promise<InboundListed[]> {
  return db
    .selectFrom('inbound_emails')
    .select([
      'id',
      'from_address',
      'to_addresses',
      'received_for',
      'subject',
      'received_at',
      'spf',
      'dkim',
      'dmarc',
      'flagged',
      'attachments',
      'reply_to_transaction_id',
    ])
    .where('customer_id', '=', customerId)
    .where(searched(opts.search))
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .offset(opts.offset)
    .limit(opts.limit)
    .execute();
}

/** How many of the customer's messages match `search`, counted up to `cap` + 1. */
export async function countInbound(db: Database, customerId: number, search: string | undefined, cap: number) {
  const row = await db
    .selectFrom((qb) =>
      qb
        .selectFrom('inbound_emails')
        .select('id')
        .where('customer_id', '=', customerId)
        .where(searched(search))
        .limit(cap + 1)
        .as('matched'),
    )
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
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

/** The stored files each of the messages `ids` names: its id (the raw message) and its attachments' keys. */
export function inboundFilesOf(db: Database, ids: string[]): Promise<Pick<InboundEmail, 'id' | 'attachments'>[]> {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('inbound_emails').select(['id', 'attachments']).where('id', 'in', ids).execute();
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
