// Reading transactions for the console's tables (spec core §2 Dashboard and Transactions). Built to
// stay fast at 10 M rows with the indexes of migration 005: every query is bounded by customer,
// ordered by an indexed expression with the id as unique tiebreaker (stable pages; the index walk
// stops after offset + limit rows), and pages are chosen by id first and joined to their message
// and group afterwards, so skipped rows are never joined.
import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DeliveredStatus, Tables, TransStatus } from '../db/schema.ts';
import { type Direction, likeLiteral } from './report-input.ts';

/** Recipient text to match: a whole transaction uuid, or the start of the address and/or of its domain (lower case). */
export type TextMatch = { uuid: string } | { addressPrefix: string | null; domainPrefix: string | null };

/** Which of a customer's transactions a search selects; null means "any". */
export interface TransactionFilter {
  groupId: number | null;
  /** queued_at >= from */
  from: Date | null;
  /** queued_at < before */
  before: Date | null;
  /** Non-empty when given (the service answers an empty page for an empty set). */
  statuses: readonly TransStatus[] | null;
  deliveredStatuses: readonly DeliveredStatus[] | null;
  opened: boolean;
  clicked: boolean;
  /** A whole address, lower case. */
  recipient: string | null;
  text: TextMatch | null;
}

/** Orders the searches support; each is served by an index or bounded by the filter (migration 005). */
export type TransactionOrder = 'accepted' | 'sent_or_queued' | 'first_open' | 'first_click' | 'clicks' | 'opens';

const ORDER_EXPRESSIONS: Record<TransactionOrder, { expression: RawBuilder<unknown>; nullable: boolean }> = {
  // acceptance order: queued_at with the id breaking ties (index transactions_customer_queued_id_idx)
  accepted: { expression: sql`t.queued_at`, nullable: false },
  // the table's date column, "sent date, or queued date when sent date is 0" (spec core §2);
  // must stay textually equal to the expression of transactions_customer_date_idx
  sent_or_queued: { expression: sql`coalesce(t.sent_at, t.queued_at)`, nullable: false },
  first_open: { expression: sql`t.first_open_at`, nullable: true },
  first_click: { expression: sql`t.first_click_at`, nullable: true },
  clicks: { expression: sql`t.click_count`, nullable: false },
  opens: { expression: sql`t.open_count`, nullable: false },
};

export interface TransactionSort {
  by: TransactionOrder;
  direction: Direction;
  /**
   * Walk the order backwards (and reverse the rows found) — cheap access to the last pages when
   * the total is known exactly; the rows come back in the requested order either way.
   */
  fromEnd: boolean;
}

const CLOCK_SKEW_MS = 3_600_000;

type Query = SelectQueryBuilder<Tables & { t: Tables['transactions'] }, 't', object>;

/** The LIKE pattern "starts with `prefix`" (wildcards in the prefix match literally). */
function startsWith(prefix: string): string {
  return `${likeLiteral(prefix)}%`;
}

/** The rows of `customerId` that `filter` selects. */
function matching(db: Database, customerId: number, filter: TransactionFilter): Query {
  let query: Query = db.selectFrom('transactions as t').where('t.customer_id', '=', customerId);
  if (filter.groupId !== null) query = query.where('t.group_id', '=', filter.groupId);
  if (filter.from) query = query.where('t.queued_at', '>=', filter.from);
  if (filter.before) query = query.where('t.queued_at', '<', filter.before);
  // literals, not parameters, so the planner can match the partial index on failures
  if (filter.statuses) query = query.where(sql<boolean>`t.status in (${sql.join(filter.statuses.map((s) => sql.lit(s)))})`);
  if (filter.deliveredStatuses) query = query.where(sql<boolean>`t.delivered_status in (${sql.join(filter.deliveredStatuses.map((s) => sql.lit(s)))})`);
  if (filter.opened) query = query.where('t.open_count', '>', 0);
  if (filter.clicked) query = query.where('t.click_count', '>', 0);
  // the expressions below are those of the indexes in migration 005
  if (filter.recipient !== null) query = query.where(sql<boolean>`lower(t.to_email) = ${filter.recipient}`);
  const text = filter.text;
  if (text !== null) {
    if ('uuid' in text) {
      query = query.where('t.uuid', '=', text.uuid);
    } else {
      const address = text.addressPrefix === null ? null : sql<boolean>`lower(t.to_email) like ${startsWith(text.addressPrefix)}`;
      const domain = text.domainPrefix === null ? null : sql<boolean>`split_part(lower(t.to_email), '@', 2) like ${startsWith(text.domainPrefix)}`;
      if (address && domain) query = query.where((eb) => eb.or([address, domain]));
      else if (address ?? domain) query = query.where((address ?? domain)!);
    }
  }
  return query;
}

/** The ids of one page of matches, in the requested order. */
export async function pageTransactionIds(db: Database, customerId: number, filter: TransactionFilter, sort: TransactionSort, limit: number, offset: number): Promise<number[]> {
  const { expression, nullable } = ORDER_EXPRESSIONS[sort.by];
  const flip = (d: Direction): Direction => (d === 'asc' ? 'desc' : 'asc');
  const direction = sort.fromEnd ? flip(sort.direction) : sort.direction;
  let query = matching(db, customerId, filter);
  if (sort.by === 'sent_or_queued' && filter.from) {
    // Implied by queued_at >= from (a message is sent after it is queued), and lets the walk of
    // transactions_customer_date_idx start at the range instead of at the oldest row. The hour
    // absorbs clock skew between the accepting and the delivering process.
    query = query.where(sql<boolean>`coalesce(t.sent_at, t.queued_at) >= ${new Date(filter.from.getTime() - CLOCK_SKEW_MS)}`);
  }
  const rows = await query
    .select('t.id')
    .orderBy(expression, (ob) => {
      const ordered = direction === 'asc' ? ob.asc() : ob.desc();
      // never-opened / never-clicked rows go last in either direction
      if (!nullable) return ordered;
      return sort.fromEnd ? ordered.nullsFirst() : ordered.nullsLast();
    })
    .orderBy('t.id', direction)
    .limit(limit)
    .offset(offset)
    .execute();
  const ids = rows.map((r) => Number(r.id));
  return sort.fromEnd ? ids.reverse() : ids;
}

/** How many rows match, counting no further than `cap` + 1. */
export async function countTransactions(db: Database, customerId: number, filter: TransactionFilter, cap: number): Promise<number> {
  const row = await db
    .selectFrom(matching(db, customerId, filter).select(sql`1`.as('one')).limit(cap + 1).as('m'))
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A transaction with its message and group, as the tables show it. */
export interface TransactionRow {
  id: number;
  uuid: string;
  queued_at: Date;
  sent_at: Date | null;
  to_email: string;
  to_name: string | null;
  status: TransStatus;
  delivered_status: DeliveredStatus;
  open_count: number;
  click_count: number;
  subject: string;
  from_email: string;
  from_name: string | null;
  headers: Record<string, string> | null;
  group_uuid: string;
  group_name: string;
}

/** The customer's transactions with these ids, joined to message and group, in the order of `ids`. */
export async function transactionsByIds(db: Database, customerId: number, ids: readonly number[]): Promise<TransactionRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('transactions as t')
    .innerJoin('messages as m', 'm.id', 't.message_id')
    .innerJoin('transaction_groups as g', 'g.id', 't.group_id')
    .select([
      't.id',
      't.uuid',
      't.queued_at',
      't.sent_at',
      't.to_email',
      't.to_name',
      't.status',
      't.delivered_status',
      't.open_count',
      't.click_count',
      'm.subject',
      'm.from_email',
      'm.from_name',
      'm.headers',
      'g.uuid as group_uuid',
      'g.name as group_name',
    ])
    .where('t.customer_id', '=', customerId)
    .where('t.id', 'in', ids)
    .execute();
  const byId = new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id) }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
