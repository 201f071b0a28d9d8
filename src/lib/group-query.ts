// The Groups tab's query and the search request it becomes: pure, so the page renders the first page
// on the server with the same request the store sends later.
import type { SearchQuery } from './wire.ts';

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

export type GroupQuery = SearchQuery<GroupSortKey>;

/** docs/console.md §9: group search default page 1; docs/console-reports.md §2: last send date, newest first. */
export const FIRST_GROUP_QUERY: GroupQuery = {
  page: 1,
  text: '',
  sort: { key: 'group_last_send_date', direction: 'desc' },
};

/** POST /v1/transaction-groups/search's body for a query. */
export function groupSearchBody({ page, text, sort }: GroupQuery) {
  // docs/console.md §7: searchQuery, also sent as search_query
  return { page, searchQuery: text, search_query: text, order: sort.direction, orderBy: sort.key };
}
