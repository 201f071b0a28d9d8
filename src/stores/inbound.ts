// The Inbound page's list (docs/console.md §2 "Inbound", §4, §8): the query (search text, page), the loaded
// page of received mail, and the actions behind the search box and the pager. Shared by its islands.
import { atom } from 'nanostores';
import type { InboundRowWire } from '../contract/inbound.ts';
import { call } from '../lib/api.ts';
import { FIRST_INBOUND_QUERY, inboundSearchBody } from '../lib/inbound-view.ts';
import { type ListState, pagedList } from './list-state.ts';

export type { InboundRowWire };

export const inboundList = atom<ListState<InboundRowWire>>({ status: 'loading', data: [], meta: null });

const inbound = pagedList({
  list: inboundList,
  first: FIRST_INBOUND_QUERY,
  searchField: 'search',
  fetch: (q) => call('POST /v1/inbound/search', { body: inboundSearchBody(q) }),
});
export const {
  query: inboundQuery,
  searchText: inboundSearchText,
  typeSearch: typeInboundSearch,
  goToPage: goToInboundPage,
  load: loadInbound,
} = inbound;

/** The table mounted: its first page, unless the server rendered it. */
export function startInbound(rendered: boolean): void {
  if (!rendered) void loadInbound();
}
