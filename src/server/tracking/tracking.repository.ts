// Tracking rows: the `links` of delivered messages and their click counters, moved in one statement
// per batch of hits (the recorder in tracking.service.ts; a transaction's own counters are the
// lifecycle's, lifecycle/transitions.repository.ts).
import { bumpCounters, type CounterDelta } from '../db/counters.ts';
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

/** Adds clicks to links. */
export async function addLinkClicks(db: Database, deltas: CounterDelta[]): Promise<void> {
  await bumpCounters(db, 'links', 'clicks', 'first_click_at', deltas);
}
