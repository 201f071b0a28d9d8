// The transaction table's query (Dashboard, Recipients tab) and the request each view of it becomes:
// pure, so the page renders the first page on the server with the same request the store sends later.
import type { DayRange } from './dates.ts';
import type { SearchQuery } from './wire.ts';

/** docs/console.md §9: message status filters all, sent, failed, delivered. */
export type StatusFilter = 'all' | 'sent' | 'failed' | 'delivered';
/** The sortable columns: Date, Opened, Clicks (keys of POST v1/transaction/search); trans_id is acceptance order. */
export type TransactionSortKey = 'trans_id' | 'dateSent' | 'opens' | 'clicks';

export interface TransactionQuery extends SearchQuery<TransactionSortKey> {
  status: StatusFilter;
}

/** docs/console-reports.md §9: the default report sort, trans_id desc (newest first), page 1. */
export const FIRST_TRANSACTION_QUERY: TransactionQuery = {
  page: 1,
  text: '',
  status: 'all',
  sort: { key: 'trans_id', direction: 'desc' },
};

function dateFields(range: DayRange) {
  // docs/console.md §7 lists both spellings; the API takes either and checks they agree
  return { startDate: range.start, endDate: range.end, start_date: range.start, end_date: range.end };
}

/** Whether a query is the table's first view: the one GET /v1/dashboard answers on the Dashboard. */
export function isFirstView(q: TransactionQuery): boolean {
  return (
    q.page === 1 &&
    q.text === '' &&
    q.status === 'all' &&
    q.sort.key === FIRST_TRANSACTION_QUERY.sort.key &&
    q.sort.direction === FIRST_TRANSACTION_QUERY.sort.direction
  );
}

/** GET /v1/dashboard's query for a range (the dashboard renders its first page on the server with it). */
export function dashboardQueryOf(range: DayRange) {
  return { startDate: range.start, endDate: range.end };
}

/**
 * POST v1/transaction/search's body for a query and range (the Recipients tab renders its first page on the server
 * with it).
 */
export function transactionSearchBody(q: TransactionQuery, range: DayRange) {
  return {
    reportType: 'all' as const,
    page: q.page,
    order: q.sort.direction,
    order_by: q.sort.key,
    ...dateFields(range),
    transaction_search_string: q.text,
    message_status: q.status,
  };
}
