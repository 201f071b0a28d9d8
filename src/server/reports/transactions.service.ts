// The transaction table of the Dashboard and the Recipients tab (docs/console.md §2): what a search
// selects, how its total is found, and the one row → wire mapping (docs/console.md §3 "Transaction").
import type { AppContext } from '../core/context.ts';
import { isUuid } from '../../contract/fields.ts';
import type { DeliveredStatus, MessageStatus, ReportType, TransStatus } from '../../contract/values.ts';
import { transactionsIn } from '../stats/figures.ts';
import { DELIVERED_STATUSES_OF } from '../../lib/figures.ts';
import { sumTransactionCounts } from './transaction-counts.repository.ts';
import type { PageMeta } from '../../contract/reports.ts';
import { COUNT_CAP, TEXT_COUNT_CAP, type Direction, type TimeRange, pageMeta } from './report-input.ts';
import * as repo from './transactions.repository.ts';

/** Sort keys of the transaction table: those of docs/console-reports.md §2 that a transaction has, plus opens. */
export const TRANSACTION_SORT_KEYS = [
  'trans_id',
  'dateSent',
  'firstOpenDate',
  'firstClickDate',
  'clicks',
  'opens',
] as const;
export type TransactionSortKey = (typeof TRANSACTION_SORT_KEYS)[number];

const ORDER_OF: Record<TransactionSortKey, repo.TransactionOrder> = {
  // acceptance order: (queued_at, id) — the id order up to clock ties between processes, and the
  // order the main index serves
  trans_id: 'accepted',
  dateSent: 'sent_or_queued',
  firstOpenDate: 'first_open',
  firstClickDate: 'first_click',
  clicks: 'clicks',
  opens: 'opens',
};

type StatusSets = { statuses: readonly TransStatus[] | null; delivered: readonly DeliveredStatus[] | null };
const ANY: StatusSets = { statuses: null, delivered: null };
/** A figure's transactions (src/lib/figures.ts): the same ones its count counts. */
const stateOf = (figure: keyof typeof DELIVERED_STATUSES_OF): StatusSets => ({
  statuses: null,
  delivered: DELIVERED_STATUSES_OF[figure],
});
const BY_STATUS: Record<MessageStatus, StatusSets> = {
  all: ANY,
  sent: stateOf('sent'),
  failed: stateOf('failed'),
  delivered: stateOf('delivered'),
};
// opens and clicks narrow by counters instead (TransactionFilter.opened / clicked)
const BY_REPORT: Record<ReportType, StatusSets> = {
  all: ANY,
  overview: ANY,
  sent: stateOf('sent'),
  opens: ANY,
  clicks: ANY,
  failed: stateOf('failed'),
  bounced: stateOf('bounced'),
};

export interface TransactionSearch {
  range: TimeRange;
  page: number;
  perPage: number;
  sort: { key: TransactionSortKey; direction: Direction };
  status: MessageStatus;
  reportType: ReportType;
  groupUuid: string | null;
  /** The group's id when the caller has already checked groupUuid against the customer (group reports). */
  groupId?: number;
  /** A whole recipient address (any case). */
  recipient: string | null;
  /** The search box: a whole transaction uuid, or the start of a recipient address or of its domain. */
  text: string | null;
}

/** A transaction as the console shows it (docs/console.md §3). Dates are unix seconds (UTC); 0 means none. */
export interface TransactionWire {
  trans_uuid: string;
  /** 0 when not sent: the table then shows trans_date_queued (docs/console.md §2). */
  trans_date_sent: number;
  trans_date_queued: number;
  trans_to_email: string;
  trans_to_name: string;
  tm_subject: string;
  tm_from_name: string;
  tm_from_email: string;
  /** The message's custom headers as JSON text, '{}' when it has none. */
  tm_additional_headers: string;
  trans_delivered_status: DeliveredStatus;
  /** Stored as is: 'no_quota' is displayed as failed by the console (docs/console.md §4). */
  trans_status: TransStatus;
  trans_group_uuid: string;
  trans_group_name: string;
  trans_read_count: number;
  trans_click_count: number;
  /** Delivery attempts made (a queued transaction with some is deferred). */
  trans_attempts: number;
}

export interface TransactionPage {
  data: TransactionWire[];
  meta: Required<PageMeta>;
}

/** Unix seconds of a moment (the console's dates); 0 for none. */
export function unixSeconds(at: Date | null): number {
  return at ? Math.floor(at.getTime() / 1000) : 0;
}

export function transactionToWire(row: repo.TransactionRow): TransactionWire {
  return {
    trans_uuid: row.uuid,
    trans_date_sent: unixSeconds(row.sent_at),
    trans_date_queued: unixSeconds(row.queued_at),
    trans_to_email: row.to_email,
    trans_to_name: row.to_name ?? '',
    tm_subject: row.subject,
    tm_from_name: row.from_name ?? '',
    tm_from_email: row.from_email,
    tm_additional_headers: JSON.stringify(row.headers ?? {}),
    trans_delivered_status: row.delivered_status,
    trans_status: row.status,
    trans_group_uuid: row.group_uuid,
    trans_group_name: row.group_name,
    trans_read_count: row.open_count,
    trans_click_count: row.click_count,
    trans_attempts: row.attempts,
  };
}

/** Both lists when given: what is in each (null: no constraint). */
function narrow<T>(a: readonly T[] | null, b: readonly T[] | null): readonly T[] | null {
  if (a === null) return b;
  if (b === null) return a;
  return a.filter((x) => b.includes(x));
}

/**
 * The search box (docs/console.md §2 "Search by Recipient Email or Transaction ID"). A whole uuid finds
 * that transaction. Other text matches the start of the recipient address or the start of its
 * domain ('ali' finds ali@x.org, 'example.com' finds everyone there; '@exa' only domains; text
 * with '@' only whole-address prefixes). Prefixes, not substrings: a prefix is an index range
 * (text_pattern_ops, migration 005) at any table size, whereas a substring needs a trigram index
 * (pg_trgm, which embedded PGlite may lack) or a scan of every row of the customer. A partial
 * uuid is not searched: the console shows and copies whole ones.
 */
function textMatch(text: string): repo.TextMatch | null {
  const q = text.toLowerCase();
  if (isUuid(q)) return { uuid: q };
  if (q.startsWith('@')) return q.length > 1 ? { addressPrefix: null, domainPrefix: q.slice(1) } : null;
  if (q.includes('@')) return { addressPrefix: q, domainPrefix: null };
  return { addressPrefix: q, domainPrefix: q };
}

/**
 * One page of the customer's transactions. Dates select by acceptance time (queued_at), the
 * moment the rollups count. `total` is exact and read from a rollup (requests, or
 * transaction_counts when a status or report type narrows too) when the range is whole UTC days
 * and no recipient or text narrows it; otherwise matching rows are counted up to COUNT_CAP + 1
 * (TEXT_COUNT_CAP + 1 for a text search) and `total_capped` says when the count stopped there.
 */
export async function searchTransactions(
  ctx: AppContext,
  customerId: number,
  search: TransactionSearch,
): Promise<TransactionPage> {
  const { rows, meta } = await findTransactions(ctx, customerId, search);
  return { data: rows.map(transactionToWire), meta };
}

/** What a search selects, as a filter of transactions.repository.ts; null when it can select nothing. */
export function transactionFilter(
  groupId: number | null,
  search: Pick<TransactionSearch, 'range' | 'status' | 'reportType' | 'recipient' | 'text'>,
): repo.TransactionFilter | null {
  const statuses = narrow(BY_STATUS[search.status].statuses, BY_REPORT[search.reportType].statuses);
  const delivered = narrow(BY_STATUS[search.status].delivered, BY_REPORT[search.reportType].delivered);
  if (statuses?.length === 0 || delivered?.length === 0) return null;
  return {
    groupId,
    from: search.range.from,
    before: search.range.before,
    statuses,
    deliveredStatuses: delivered,
    opened: search.reportType === 'opens',
    clicked: search.reportType === 'clicks',
    recipient: search.recipient?.toLowerCase() ?? null,
    text: search.text === null ? null : textMatch(search.text),
  };
}

/** searchTransactions' rows before the wire mapping (the group reports add columns of their own). */
export async function findTransactions(
  ctx: AppContext,
  customerId: number,
  search: TransactionSearch,
): Promise<{ rows: repo.TransactionRow[]; meta: Required<PageMeta> }> {
  const { db } = ctx;
  const { ids, meta } = await findTransactionIds(ctx, customerId, search);
  return { rows: await repo.transactionsByIds(db, customerId, ids), meta };
}

/** The ids of one page of a search, in order, and its paging block. */
export async function findTransactionIds(
  ctx: AppContext,
  customerId: number,
  search: TransactionSearch,
): Promise<{ ids: number[]; meta: Required<PageMeta> }> {
  const { db } = ctx;
  const { page, perPage } = search;
  const empty = () => ({ ids: [], meta: pageMeta(page, perPage, 0, false) });

  let groupId: number | null = search.groupId ?? null;
  if (groupId === null && search.groupUuid !== null) {
    const found = await repo.findIdByUuid(db, 'transaction_groups', customerId, search.groupUuid.toLowerCase());
    if (found === undefined) return empty(); // another customer's group looks like no group at all
    groupId = found;
  }

  const filter = transactionFilter(groupId, search);
  if (filter === null) return empty();
  const { statuses, deliveredStatuses: delivered } = filter;

  const { wholeDays, firstDay, lastDay } = search.range;
  const counted = async (): Promise<{ total: number; exact: boolean }> => {
    if (
      wholeDays &&
      !statuses &&
      !delivered &&
      !filter.opened &&
      !filter.clicked &&
      filter.recipient === null &&
      filter.text === null
    ) {
      // only the range and the group: the figures' transactions
      return { total: await transactionsIn(db, customerId, { groupId, firstDay, lastDay }), exact: true };
    }
    if (wholeDays && filter.recipient === null && filter.text === null) {
      // states too: the transaction_counts rollup, one row per group, day and state
      return { total: await sumTransactionCounts(db, customerId, { ...filter, firstDay, lastDay }), exact: true };
    }
    const cap = filter.text === null ? COUNT_CAP : TEXT_COUNT_CAP;
    const total = await repo.countTransactions(db, customerId, filter, cap);
    return { total, exact: total <= cap };
  };

  const offset = (page - 1) * perPage;
  const sort = { by: ORDER_OF[search.sort.key], direction: search.sort.direction };
  const forward = () => repo.pageTransactionIds(db, customerId, filter, { ...sort, fromEnd: false }, perPage, offset);
  if (offset === 0) {
    // the first page never walks from the end: count and read it together (one round trip less
    // on PostgreSQL, where the pool runs them on two connections)
    const [{ total, exact }, ids] = await Promise.all([counted(), forward()]);
    return { ids, meta: pageMeta(page, perPage, total, !exact) };
  }
  const { total, exact } = await counted();
  let ids: number[] = [];
  if (exact && offset > total / 2) {
    // a late page of an exact total: walk from the end, skipping the rows after this page
    const after = total - offset - perPage;
    const limit = perPage + Math.min(0, after);
    if (limit > 0)
      ids = await repo.pageTransactionIds(
        db,
        customerId,
        filter,
        { ...sort, fromEnd: true },
        limit,
        Math.max(0, after),
      );
  } else {
    ids = await forward();
  }
  return { ids, meta: pageMeta(page, perPage, total, !exact) };
}

/** The customer's transaction `id` as the transaction tables show it, or null (a received reply's More Info). */
export async function transactionById(
  ctx: AppContext,
  customerId: number,
  id: number,
): Promise<TransactionWire | null> {
  const [row] = await repo.transactionsByIds(ctx.db, customerId, [id]);
  return row ? transactionToWire(row) : null;
}
