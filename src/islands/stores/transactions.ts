// The transaction table of the Dashboard and of the Recipients tab (docs/console.md §2, §4, §7, §8): the
// query (search text, status filter, sort, page), the loaded page, and the actions behind the
// search box, the filter buttons, the sortable headers and the pager. One table per page, so one
// module-level store; the date range comes from date-range.ts and a new one reloads from page 1.
import { atom } from 'nanostores';
import type { Direction, PageMeta, TransactionPage, TransactionWire } from '../../lib/wire.ts';
import { call } from '../../lib/api.ts';
import type { DayRange } from '../../lib/dates.ts';
import { debounced } from '../../lib/debounced.ts';
import { SEARCH_DEBOUNCE_MS } from '../../lib/timings.ts';
import { chosenRange, currentRange } from './date-range.ts';
import type { ListState } from './list-state.ts';

export type { PageMeta, TransactionWire };

/** docs/console.md §9: message status filters all, sent, failed, delivered. */
export type StatusFilter = 'all' | 'sent' | 'failed' | 'delivered';
/** The sortable columns: Date, Opened, Clicks (keys of POST v1/transaction/search); trans_id is acceptance order. */
export type TransactionSortKey = 'trans_id' | 'dateSent' | 'opens' | 'clicks';

export interface TransactionQuery {
  page: number;
  /** The search text in effect (the box's text once the debounce has passed). */
  text: string;
  status: StatusFilter;
  sort: { key: TransactionSortKey; direction: Direction };
}

/** docs/console-reports.md §9: the default report sort, trans_id desc (newest first), page 1. */
export const FIRST_QUERY: TransactionQuery = {
  page: 1,
  text: '',
  status: 'all',
  sort: { key: 'trans_id', direction: 'desc' },
};

export const transactionQuery = atom<TransactionQuery>(FIRST_QUERY);
/** What the search box holds right now. */
export const transactionSearchText = atom('');
export const transactionList = atom<ListState<TransactionWire>>({ status: 'loading', data: [], meta: null });

/** Where the first, unfiltered page comes from: GET /v1/dashboard on the Dashboard (docs/console.md §7). */
let source: 'dashboard' | 'search' = 'search';
let latest = 0;

function dateFields(range: DayRange) {
  // docs/console.md §7 lists both spellings; the API takes either and checks they agree
  return { startDate: range.start, endDate: range.end, start_date: range.start, end_date: range.end };
}

function isFirstView(q: TransactionQuery): boolean {
  return (
    q.page === 1 &&
    q.text === '' &&
    q.status === 'all' &&
    q.sort.key === FIRST_QUERY.sort.key &&
    q.sort.direction === FIRST_QUERY.sort.direction
  );
}

/** GET /v1/dashboard's query for a range (the dashboard renders its first page on the server with it). */
export function dashboardQueryOf(range: DayRange) {
  return { startDate: range.start, endDate: range.end };
}

/**
 * POST v1/transaction/search's body for a query and range (the Recipients tab renders its first page on the server with
 * it).
 */
export function searchBodyOf(q: TransactionQuery, range: DayRange) {
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

async function fetchPage(q: TransactionQuery, range: DayRange): Promise<TransactionPage> {
  if (source === 'dashboard' && isFirstView(q)) {
    const answer = await call('GET /v1/dashboard', { query: dashboardQueryOf(range) });
    return answer.data.transactionStats;
  }
  return call('POST /v1/transaction/search', { body: searchBodyOf(q, range) });
}

/** Loads the page the query names; an answer to an older request is dropped. */
export async function loadTransactions(): Promise<void> {
  const request = ++latest;
  transactionList.set({ ...transactionList.get(), status: 'loading' });
  try {
    const page = await fetchPage(transactionQuery.get(), currentRange());
    if (request === latest) transactionList.set({ status: 'loaded', data: page.data, meta: page.meta });
  } catch {
    // docs/console.md §8: failures are ignored silently; the empty table offers a retry
    if (request === latest) transactionList.set({ status: 'failed', data: [], meta: null });
  }
}

/**
 * The table's island mounted: remember where its first page comes from and load it, unless the server rendered it
 *.
 */
export function startTransactionTable(from: 'dashboard' | 'search', rendered = false): void {
  source = from;
  if (!rendered) void loadTransactions();
}

function changeQuery(change: Partial<TransactionQuery>): void {
  transactionQuery.set({ ...transactionQuery.get(), ...change });
  void loadTransactions();
}

const searchAfterPause = debounced(SEARCH_DEBOUNCE_MS, (text: string) => {
  if (text !== transactionQuery.get().text) changeQuery({ text, page: 1 });
});

/** The search box changed: search once typing has paused (docs/console.md §9: 1000 ms), from page 1 (§4). */
export function typeTransactionSearch(text: string): void {
  transactionSearchText.set(text);
  searchAfterPause(text.trim());
}

/** A status filter button, from page 1 (docs/console.md §4). */
export function chooseStatus(status: StatusFilter): void {
  if (status !== transactionQuery.get().status) changeQuery({ status, page: 1 });
}

/**
 * A sortable header (docs/console.md §4): the same column toggles ascending/descending, another starts
 * descending; either way from page 1. The Date column stands for the default acceptance order
 * too, so its first click turns the newest-first table round.
 */
export function sortTransactions(key: TransactionSortKey): void {
  const { sort } = transactionQuery.get();
  const same = sort.key === key || (key === 'dateSent' && sort.key === 'trans_id');
  const direction: Direction = same && sort.direction === 'desc' ? 'asc' : 'desc';
  changeQuery({ sort: { key, direction }, page: 1 });
}

export function goToTransactionPage(page: number): void {
  if (page !== transactionQuery.get().page) changeQuery({ page });
}

// a new date range: the table from page 1 (the range is part of every search)
chosenRange.listen(() => changeQuery({ page: 1 }));
