// Reading transactions for the console's tables (docs/console.md §2 Dashboard and Transactions). Built to
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

/** Orders the searches support; each is served by an index or bounded by the filter (migrations 005, 006). */
export type TransactionOrder = 'accepted' | 'sent_or_queued' | 'first_open' | 'first_click' | 'clicks' | 'opens';

const ORDER_EXPRESSIONS: Record<'accepted' | 'sent_or_queued', { expression: RawBuilder<unknown> }> = {
  // acceptance order: queued_at with the id breaking ties (index transactions_customer_queued_id_idx)
  accepted: { expression: sql`t.queued_at` },
  // the table's date column, "sent date, or queued date when sent date is 0" (docs/console.md §2);
  // must stay textually equal to the expression of transactions_customer_date_idx
  sent_or_queued: { expression: sql`coalesce(t.sent_at, t.queued_at)` },
};

/**
 * Orders by a tracking column, each served in two parts (migration 006): the rows that have a value
 * (opened, clicked: a partial index on the column, then acceptance) and the rest (by acceptance,
 * from the range index). Counts order zero before one, so `asc` lists the zero part first; a never
 * opened or clicked row has no first time and goes last in either direction. Ties fall back to the
 * acceptance order (queued_at, id), which is the id order up to clock ties between processes.
 */
interface SplitOrder {
  column: 'first_open_at' | 'first_click_at' | 'click_count' | 'open_count';
  /** a first time (null when it never happened) or a count (0 when it never happened) */
  kind: 'time' | 'count';
}
const SPLIT_ORDERS: Record<Exclude<TransactionOrder, 'accepted' | 'sent_or_queued'>, SplitOrder> = {
  first_open: { column: 'first_open_at', kind: 'time' },
  first_click: { column: 'first_click_at', kind: 'time' },
  clicks: { column: 'click_count', kind: 'count' },
  opens: { column: 'open_count', kind: 'count' },
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

/** The rows of `customerId` that `filter` selects (also the report exports' stream, src/server/exports). */
export function matching(db: Database, customerId: number, filter: TransactionFilter): Query {
  let query: Query = db.selectFrom('transactions as t').where('t.customer_id', '=', customerId);
  if (filter.groupId !== null) query = query.where('t.group_id', '=', filter.groupId);
  if (filter.from) query = query.where('t.queued_at', '>=', filter.from);
  if (filter.before) query = query.where('t.queued_at', '<', filter.before);
  // literals, not parameters, so the planner can match the partial index on failures
  if (filter.statuses)
    query = query.where(sql<boolean>`t.status in (${sql.join(filter.statuses.map((s) => sql.lit(s)))})`);
  if (filter.deliveredStatuses)
    query = query.where(
      sql<boolean>`t.delivered_status in (${sql.join(filter.deliveredStatuses.map((s) => sql.lit(s)))})`,
    );
  if (filter.opened) query = query.where('t.open_count', '>', 0);
  if (filter.clicked) query = query.where('t.click_count', '>', 0);
  // the expressions below are those of the indexes in migration 005
  if (filter.recipient !== null) query = query.where(sql<boolean>`lower(t.to_email) = ${filter.recipient}`);
  const text = filter.text;
  if (text !== null) {
    if ('uuid' in text) {
      query = query.where('t.uuid', '=', text.uuid);
    } else {
      const address =
        text.addressPrefix === null ? null : sql<boolean>`lower(t.to_email) like ${startsWith(text.addressPrefix)}`;
      const domain =
        text.domainPrefix === null
          ? null
          : sql<boolean>`split_part(lower(t.to_email), '@', 2) like ${startsWith(text.domainPrefix)}`;
      if (address && domain) query = query.where((eb) => eb.or([address, domain]));
      else if (address ?? domain) query = query.where((address ?? domain)!);
    }
  }
  return query;
}

/** The ids of one page of matches, in the requested order. */
export async function pageTransactionIds(
  db: Database,
  customerId: number,
  filter: TransactionFilter,
  sort: TransactionSort,
  limit: number,
  offset: number,
): Promise<number[]> {
  const flip = (d: Direction): Direction => (d === 'asc' ? 'desc' : 'asc');
  const direction = sort.fromEnd ? flip(sort.direction) : sort.direction;
  if (sort.by !== 'accepted' && sort.by !== 'sent_or_queued') {
    const ids = await pageSplitOrder(
      db,
      customerId,
      filter,
      SPLIT_ORDERS[sort.by],
      { direction, fromEnd: sort.fromEnd },
      limit,
      offset,
    );
    return sort.fromEnd ? ids.reverse() : ids;
  }
  const { expression } = ORDER_EXPRESSIONS[sort.by];
  let query = matching(db, customerId, filter);
  if (sort.by === 'sent_or_queued' && filter.from) {
    // Implied by queued_at >= from (a message is sent after it is queued), and lets the walk of
    // transactions_customer_date_idx start at the range instead of at the oldest row. The hour
    // absorbs clock skew between the accepting and the delivering process.
    query = query.where(
      sql<boolean>`coalesce(t.sent_at, t.queued_at) >= ${new Date(filter.from.getTime() - CLOCK_SKEW_MS)}`,
    );
  }
  const rows = await query
    .select('t.id')
    .orderBy(expression, direction)
    .orderBy('t.id', direction)
    .limit(limit)
    .offset(offset)
    .execute();
  const ids = rows.map((r) => Number(r.id));
  return sort.fromEnd ? ids.reverse() : ids;
}

/**
 * One page of a split order (SPLIT_ORDERS), walking `direction` (already flipped when walking from
 * the end): the part that comes first, and the other only when the first runs out. Each part is an
 * index walk that stops after offset + limit rows, so the page costs the same at any table size.
 */
async function pageSplitOrder(
  db: Database,
  customerId: number,
  filter: TransactionFilter,
  order: SplitOrder,
  walk: { direction: Direction; fromEnd: boolean },
  limit: number,
  offset: number,
): Promise<number[]> {
  const column = sql.ref(`t.${order.column}`);
  const valued = order.kind === 'count' ? sql<boolean>`${column} > 0` : sql<boolean>`${column} is not null`;
  const unvalued = order.kind === 'count' ? sql<boolean>`${column} = 0` : sql<boolean>`${column} is null`;
  const valuedFirst = order.kind === 'count' ? walk.direction === 'desc' : !walk.fromEnd;
  const wanted = offset + limit;

  const valuedPart = async (n: number) => {
    let query = matching(db, customerId, filter).where(valued);
    if (order.kind === 'time' && filter.from) {
      // implied by queued_at >= from (opens and clicks come after acceptance); the ascending walk
      // of the partial index then starts at the range (the hour absorbs clock skew, as for dateSent)
      query = query.where(sql<boolean>`${column} >= ${new Date(filter.from.getTime() - CLOCK_SKEW_MS)}`);
    }
    // plain asc/desc: the part has no nulls, and NULLS LAST on a descending walk would not match the index
    const rows = await query
      .select('t.id')
      .orderBy(column, walk.direction)
      .orderBy('t.queued_at', walk.direction)
      .orderBy('t.id', walk.direction)
      .limit(n)
      .execute();
    return rows.map((r) => Number(r.id));
  };
  const unvaluedPart = async (n: number) => {
    const rows = await matching(db, customerId, filter)
      .where(unvalued)
      .select('t.id')
      .orderBy('t.queued_at', walk.direction)
      .orderBy('t.id', walk.direction)
      .limit(n)
      .execute();
    return rows.map((r) => Number(r.id));
  };

  const [first, second] = valuedFirst ? [valuedPart, unvaluedPart] : [unvaluedPart, valuedPart];
  const ids = await first(wanted);
  if (ids.length < wanted) ids.push(...(await second(wanted - ids.length)));
  return ids.slice(offset, wanted);
}

/**
 * How many rows match, counting no further than `cap` + 1: the newest ones, walked in acceptance
 * order. Without the order the planner may take a sequential scan that stops after cap + 1 matches,
 * expecting them spread evenly over the table — but a date range's rows sit together (the recent
 * ones at the end), so that scan reads most of the table first (measured: 100–200 ms at 1 M rows,
 * one request in ten).
 */
export async function countTransactions(
  db: Database,
  customerId: number,
  filter: TransactionFilter,
  cap: number,
): Promise<number> {
  const row = await db
    .selectFrom(
      matching(db, customerId, filter)
        .select(sql`1`.as('one'))
        .orderBy('t.queued_at', 'desc')
        .orderBy('t.id', 'desc')
        .limit(cap + 1)
        .as('m'),
    )
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
  /** Delivery attempts made: a queued transaction with some was deferred. */
  attempts: number;
  subject: string;
  from_email: string;
  from_name: string | null;
  headers: Record<string, string> | null;
  group_uuid: string;
  group_name: string;
  bounce_type: string | null;
  bounce_reason: string | null;
  last_reply: string | null;
  first_open_at: Date | null;
  first_click_at: Date | null;
}

/** The customer's transactions with these ids, joined to message and group, in the order of `ids`. */
export async function transactionsByIds(
  db: Database,
  customerId: number,
  ids: readonly number[],
): Promise<TransactionRow[]> {
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
      't.attempts',
      'm.subject',
      'm.from_email',
      'm.from_name',
      'm.headers',
      'g.uuid as group_uuid',
      'g.name as group_name',
      't.bounce_type',
      't.bounce_reason',
      't.last_reply',
      't.first_open_at',
      't.first_click_at',
    ])
    .where('t.customer_id', '=', customerId)
    .where('t.id', 'in', ids)
    .execute();
  const byId = new Map(rows.map((r) => [Number(r.id), { ...r, id: Number(r.id) }]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/**
 * The id of the customer's transaction or group with this uuid (lower case): a request names them by
 * uuid only. Undefined when unknown or another customer's.
 */
export async function findIdByUuid(
  db: Database,
  table: 'transactions' | 'transaction_groups',
  customerId: number,
  uuid: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('customer_id', '=', customerId)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
  return row ? Number(row.id) : undefined;
}

/**
 * The customer's received messages that answer transaction `transactionId` (linked when received:
 * docs/receiving.md), oldest first: the Transaction Info timeline's "Reply received" entries. A read
 * of inbound_emails, whose writer is inbound/inbound.repository.ts.
 */
export function repliesToTransaction(
  db: Database,
  customerId: number,
  transactionId: number,
): Promise<{ id: string; from_address: string; received_at: Date }[]> {
  return db
    .selectFrom('inbound_emails')
    .select(['id', 'from_address', 'received_at'])
    .where('reply_to_transaction_id', '=', transactionId)
    .where('customer_id', '=', customerId)
    .orderBy('received_at')
    .orderBy('id')
    .limit(100)
    .execute();
}

/** Per row of a page: the time of its last event of `types` (a failure or bounce) and its clicked links. */
export interface RowExtras {
  outcomeAt: Date | null;
  uniqueClicks: number;
}

/** The extras of the rows of one page (at most a page of ids; each an index lookup). */
export async function rowExtras(
  db: Database,
  ids: readonly number[],
  types: readonly string[],
): Promise<Map<number, RowExtras>> {
  if (ids.length === 0) return new Map();
  const outcome = types.length
    ? sql<Date | null>`(select max(e.at) from events e where e.transaction_id = t.id and e.type in
      (${sql.join(types.map((x) => sql.lit(x)))}))`
    : sql<Date | null>`null::timestamptz`;
  const rows = await db
    .selectFrom('transactions as t')
    .select([
      't.id',
      outcome.as('outcome_at'),
      sql<string | number>`(select count(*) from links l where l.transaction_id = t.id and l.clicks > 0)`.as(
        'unique_clicks',
      ),
    ])
    .where('t.id', 'in', ids)
    .execute();
  return new Map(
    rows.map((r) => [
      Number(r.id),
      { outcomeAt: r.outcome_at ? new Date(r.outcome_at) : null, uniqueClicks: Number(r.unique_clicks) },
    ]),
  );
}
