// Tracking rows: the `links` of delivered messages, and the open/click counters of transactions and
// links. Counters move in one statement per batch of hits (the recorder in tracking.service.ts).
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export interface NewLink {
  token: string;
  customer_id: number;
  transaction_id: number;
  url: string;
}

/**
 * Stores the links of a message about to be sent. Tokens are derived from the transaction and the
 * URL, so a retried delivery writes the same tokens and adds nothing.
 */
export async function insertLinks(db: Database, links: NewLink[]): Promise<void> {
  if (links.length === 0) return;
  await db
    .insertInto('links')
    .values(links)
    .onConflict((oc) => oc.column('token').doNothing())
    .execute();
}

/** The link a click token names, with the group its transaction belongs to. */
export async function findLink(db: Database, token: string) {
  return db
    .selectFrom('links')
    .innerJoin('transactions', 'transactions.id', 'links.transaction_id')
    .select(['links.id', 'links.url', 'links.customer_id', 'links.transaction_id', 'transactions.group_id'])
    .where('links.token', '=', token)
    .executeTakeFirst();
}
export type FoundLink = NonNullable<Awaited<ReturnType<typeof findLink>>>;

/**
 * Transactions by uuid, for opens (the open token names the transaction's uuid), with the time the
 * recipient's server accepted each (null until then).
 */
export async function transactionsByUuid(db: Database, uuids: string[]) {
  if (uuids.length === 0) return [];
  return db
    .selectFrom('transactions')
    .select(['id', 'uuid', 'customer_id', 'group_id', 'sent_at'])
    .where('uuid', 'in', [...new Set(uuids)])
    .execute();
}

/** When the recipient's server accepted each of these transactions (null: not yet), by id. */
export async function deliveryTimes(db: Database, ids: number[]): Promise<Map<number, Date | null>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('transactions')
    .select(['id', 'sent_at'])
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((r) => [Number(r.id), r.sent_at && new Date(r.sent_at)]));
}

/** How many links (distinct URLs) each of these transactions' messages has, by transaction id. */
export async function linkCounts(db: Database, transactionIds: number[]): Promise<Map<number, number>> {
  if (transactionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('links')
    .select(['transaction_id', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('transaction_id', 'in', [...new Set(transactionIds)])
    .groupBy('transaction_id')
    .execute();
  return new Map(rows.map((r) => [Number(r.transaction_id), Number(r.n)]));
}

export interface CounterDelta {
  id: number;
  count: number;
  /** the earliest hit of the batch: becomes first_*_at when none is set yet */
  at: Date;
}

type Counter = 'open' | 'click';

/**
 * Adds opens or clicks to transactions and returns the ids whose first open (click) this batch is.
 * The rows are locked first (in id order, so concurrent batches cannot deadlock) and their previous
 * first_*_at read under the lock: two web processes never both count the same unique open.
 */
export async function addTransactionHits(db: Database, counter: Counter, deltas: CounterDelta[]): Promise<Set<number>> {
  if (deltas.length === 0) return new Set();
  const countColumn = counter === 'open' ? 'open_count' : 'click_count';
  const firstColumn = counter === 'open' ? 'first_open_at' : 'first_click_at';
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

/** Adds clicks to links. */
export async function addLinkClicks(db: Database, deltas: CounterDelta[]): Promise<void> {
  if (deltas.length === 0) return;
  await bumpCounters(db, 'links', 'clicks', 'first_click_at', deltas);
}

async function bumpCounters(
  db: Database,
  table: 'transactions' | 'links',
  countColumn: string,
  firstColumn: string,
  deltas: CounterDelta[],
): Promise<void> {
  const rows = [...deltas]
    .sort((a, b) => a.id - b.id)
    .map((d) => sql`(${d.id}::bigint, ${d.count}::int, ${d.at}::timestamptz)`);
  await sql`
    update ${sql.table(table)} as t
       set ${sql.ref(countColumn)} = t.${sql.ref(countColumn)} + v.n,
           ${sql.ref(firstColumn)} = coalesce(t.${sql.ref(firstColumn)}, v.at)
      from (values ${sql.join(rows)}) as v(id, n, at)
     where t.id = v.id`.execute(db);
}
