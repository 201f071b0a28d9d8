// The Groups tab of Transactions (docs/console.md §2, §4, §7): the query (search text, sort, page), the
// loaded page of groups, and the actions behind its search box, sortable headers and pager.
import { atom } from 'nanostores';
import { call } from '../../lib/api.ts';
import { debounced } from '../../lib/debounced.ts';
import { SEARCH_DEBOUNCE_MS } from '../../lib/timings.ts';
import type { Direction, GroupWire } from '../../lib/wire.ts';
import type { ListState } from './list-state.ts';

export type { GroupWire };

/** Sortable columns, as POST /v1/transaction-groups/search names them (docs/console-reports.md §2: default desc). */
export type GroupSortKey =
  | 'group_name'
  | 'group_last_send_date'
  | 'sent'
  | 'failed'
  | 'delivered'
  | 'bounces'
  | 'opens'
  | 'clicks';

export interface GroupQuery {
  page: number;
  text: string;
  sort: { key: GroupSortKey; direction: Direction };
}

/** docs/console.md §9: group search default page 1; docs/console-reports.md §2: last send date, newest first. */
export const FIRST_QUERY: GroupQuery = { page: 1, text: '', sort: { key: 'group_last_send_date', direction: 'desc' } };

export const groupQuery = atom<GroupQuery>(FIRST_QUERY);
export const groupSearchText = atom('');
export const groupList = atom<ListState<GroupWire>>({ status: 'loading', data: [], meta: null });

let latest = 0;

/** POST /v1/transaction-groups/search's body for a query (the page renders the first one on the server with it). */
export function searchBodyOf({ page, text, sort }: GroupQuery) {
  // docs/console.md §7: searchQuery, also sent as search_query
  return { page, searchQuery: text, search_query: text, order: sort.direction, orderBy: sort.key };
}

/** The table mounted: its first page, unless the server rendered it. */
export function startGroups(rendered: boolean): void {
  if (!rendered) void loadGroups();
}

/** Loads the page the query names; an answer to an older request is dropped. */
export async function loadGroups(): Promise<void> {
  const request = ++latest;
  groupList.set({ ...groupList.get(), status: 'loading' });
  try {
    const answer = await call('POST /v1/transaction-groups/search', { body: searchBodyOf(groupQuery.get()) });
    if (request === latest) groupList.set({ status: 'loaded', data: answer.data, meta: answer.meta });
  } catch {
    // docs/console.md §8: failures are ignored silently; the empty table offers a retry
    if (request === latest) groupList.set({ status: 'failed', data: [], meta: null });
  }
}

function changeQuery(change: Partial<GroupQuery>): void {
  groupQuery.set({ ...groupQuery.get(), ...change });
  void loadGroups();
}

const searchAfterPause = debounced(SEARCH_DEBOUNCE_MS, (text: string) => {
  if (text !== groupQuery.get().text) changeQuery({ text, page: 1 });
});

/** The search box changed: search once typing has paused (docs/console.md §9: 1000 ms), from page 1. */
export function typeGroupSearch(text: string): void {
  groupSearchText.set(text);
  searchAfterPause(text.trim());
}

/** A sortable header (docs/console.md §4): the same column toggles asc/desc, another starts desc; page 1. */
export function sortGroups(key: GroupSortKey): void {
  const { sort } = groupQuery.get();
  const direction: Direction = sort.key === key && sort.direction === 'desc' ? 'asc' : 'desc';
  changeQuery({ sort: { key, direction }, page: 1 });
}

export function goToGroupPage(page: number): void {
  if (page !== groupQuery.get().page) changeQuery({ page });
}
