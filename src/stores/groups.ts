// The Groups tab of Transactions (docs/console.md §2, §4, §7): the query (search text, sort, page), the
// loaded page of groups, and the actions behind its search box, sortable headers and pager.
import { atom } from 'nanostores';
import { call } from '../lib/api.ts';
import { FIRST_GROUP_QUERY, type GroupSortKey, groupSearchBody } from '../lib/group-query.ts';
import type { GroupWire } from '../lib/wire.ts';
import { type ListState, nextSort, pagedList } from './list-state.ts';

export type { GroupSortKey, GroupWire };

export const groupList = atom<ListState<GroupWire>>({ status: 'loading', data: [], meta: null });

const groups = pagedList({
  list: groupList,
  first: FIRST_GROUP_QUERY,
  searchField: 'text',
  fetch: (q) => call('POST /v1/transaction-groups/search', { body: groupSearchBody(q) }),
});
export const {
  query: groupQuery,
  searchText: groupSearchText,
  typeSearch: typeGroupSearch,
  goToPage: goToGroupPage,
  /** Loads the page the query names. */
  load: loadGroups,
} = groups;

/** The table mounted: its first page, unless the server rendered it. */
export function startGroups(rendered: boolean): void {
  if (!rendered) void loadGroups();
}

/** A sortable header (docs/console.md §4): the same column toggles asc/desc, another starts desc; page 1. */
export function sortGroups(key: GroupSortKey): void {
  groups.changeQuery({ sort: nextSort(groupQuery.get().sort, key), page: 1 });
}
