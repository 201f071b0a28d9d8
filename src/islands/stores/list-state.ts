// A console list's state in its store: the rows shown and their paging, and whether the next answer is
// on its way. One shape for every paged list (transactions, groups, reports, links, suppressions,
// templates); a list whose page the server rendered adds the status it starts in (e.g. 'initial').
import type { PageMeta } from '../../lib/wire.ts';

export interface ListState<T, Start extends string = never> {
  status: 'loading' | 'loaded' | 'failed' | Start;
  /** The rows shown; kept while the next page loads so the table does not jump. */
  data: T[];
  meta: PageMeta | null;
}
