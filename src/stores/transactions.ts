// The transaction table of the Dashboard and of the Recipients tab (docs/console.md §2, §4, §7, §8): the
// query (search text, status filter, sort, page), the loaded page, and the actions behind the
// search box, the filter buttons, the sortable headers and the pager. One table per page, so one
// module-level store; the date range comes from date-range.ts and a new one reloads from page 1.
import { atom } from 'nanostores';
import { call } from '../lib/api.ts';
import type { DayRange } from '../lib/dates.ts';
import {
  FIRST_TRANSACTION_QUERY,
  type StatusFilter,
  type TransactionQuery,
  type TransactionSortKey,
  dashboardQueryOf,
  isFirstView,
  transactionSearchBody,
} from '../lib/transaction-query.ts';
import type { TransactionPage, TransactionWire } from '../lib/wire.ts';
import { chosenRange, currentRange } from './date-range.ts';
import { type ListState, nextSort, pagedList } from './list-state.ts';

export type { StatusFilter, TransactionWire };

export const transactionList = atom<ListState<TransactionWire>>({ status: 'loading', data: [], meta: null });

/** Where the first, unfiltered page comes from: GET /v1/dashboard on the Dashboard (docs/console.md §7). */
let source: 'dashboard' | 'search' = 'search';

async function fetchPage(q: TransactionQuery, range: DayRange): Promise<TransactionPage> {
  if (source === 'dashboard' && isFirstView(q)) {
    const answer = await call('GET /v1/dashboard', { query: dashboardQueryOf(range) });
    return answer.data.transactionStats;
  }
  return call('POST /v1/transaction/search', { body: transactionSearchBody(q, range) });
}

const transactions = pagedList({
  list: transactionList,
  first: FIRST_TRANSACTION_QUERY,
  searchField: 'text',
  fetch: (q) => fetchPage(q, currentRange()),
});
export const {
  query: transactionQuery,
  searchText: transactionSearchText,
  typeSearch: typeTransactionSearch,
  goToPage: goToTransactionPage,
  /** Loads the page the query names. */
  load: loadTransactions,
} = transactions;

/**
 * The table's island mounted: remember where its first page comes from and load it, unless the server
 * rendered it for the range in effect (`rendered`: the range of the server's page, null for none).
 */
export function startTransactionTable(from: 'dashboard' | 'search', rendered: DayRange | null = null): void {
  source = from;
  const range = currentRange();
  if (rendered === null || rendered.start !== range.start || rendered.end !== range.end) void loadTransactions();
}

/** A status filter button, from page 1 (docs/console.md §4). */
export function chooseStatus(status: StatusFilter): void {
  if (status !== transactionQuery.get().status) transactions.changeQuery({ status, page: 1 });
}

/**
 * A sortable header (docs/console.md §4), from page 1. The Date column stands for the default acceptance
 * order too, so its first click turns the newest-first table round.
 */
export function sortTransactions(key: TransactionSortKey): void {
  const { sort } = transactionQuery.get();
  const same = sort.key === key || (key === 'dateSent' && sort.key === 'trans_id');
  transactions.changeQuery({ sort: nextSort(sort, key, same), page: 1 });
}

// a new date range: the table from page 1 (the range is part of every search)
chosenRange.listen(() => transactions.changeQuery({ page: 1 }));
