// A console list's state in its store: the rows shown and their paging, whether the next answer is on
// its way, and the query that names the page. One shape and one set of actions for every paged list
// (transactions, groups, reports, links, suppressions, templates); a list whose page the server
// rendered adds the status it starts in (e.g. 'initial').
import { type ReadableAtom, type WritableAtom, atom } from 'nanostores';
import type { PageMeta } from '../contract/reports.ts';
import { debounced } from '../lib/debounced.ts';
import { SEARCH_DEBOUNCE_MS } from '../lib/timings.ts';
import type { Direction } from '../lib/wire.ts';

export interface ListState<T, Start extends string = never> {
  status: 'loading' | 'loaded' | 'failed' | Start;
  /** The rows shown; kept while the next page loads so the table does not jump. */
  data: T[];
  meta: PageMeta | null;
}

/** The fields of Q that hold text: the one the search box fills. */
type TextField<Q> = { [K in keyof Q]: Q[K] extends string ? K : never }[keyof Q];

interface QueryOptions<Q> {
  first: Q;
  searchField: TextField<Q>;
  searchPauseMs?: number;
  onChange?(): void;
}

/**
 * A list's query and the actions behind its search box and pager. Every change of the query is stored,
 * then `onChange` (what else a new query resets) and `load` run. The search box searches once typing
 * has paused for `searchPauseMs` (docs/console.md §9: 1000 ms, report filters 500 ms), from page 1 (§4).
 */
export function listQuery<Q extends { page: number }>(options: QueryOptions<Q> & { load(): Promise<void> }) {
  const query = atom<Q>(options.first);
  /** What the search box holds right now. */
  const searchText = atom('');
  const changeQuery = (change: Partial<Q>): void => {
    query.set({ ...query.get(), ...change });
    options.onChange?.();
    void options.load();
  };
  const searchAfterPause = debounced(options.searchPauseMs ?? SEARCH_DEBOUNCE_MS, (text: string) => {
    if (text !== query.get()[options.searchField]) changeQuery({ [options.searchField]: text, page: 1 } as Partial<Q>);
  });
  return {
    query,
    searchText,
    changeQuery,
    /** The search box changed. */
    typeSearch(text: string): void {
      searchText.set(text);
      searchAfterPause(text.trim());
    },
    /** Empties the search box, dropping a search still waiting for the pause. */
    clearSearch(): void {
      searchAfterPause.cancel();
      searchText.set('');
    },
    goToPage(page: number): void {
      if (page !== query.get().page) changeQuery({ page } as Partial<Q>);
    },
  };
}

/**
 * Loads pages into `list` with `fetch`; an answer to an older request is dropped, and a failure leaves an
 * empty list, whose table offers a retry (docs/console.md §8: failures are ignored silently).
 * `loaded` and `failed` add what a list does beyond that.
 */
export function pageLoader<T, Start extends string, A extends { data: T[]; meta: PageMeta }>(
  list: WritableAtom<ListState<T, Start>>,
  fetch: () => Promise<A>,
  more: { loaded?(answer: A): void; failed?(): void } = {},
): () => Promise<void> {
  let latest = 0;
  return async () => {
    const request = ++latest;
    list.set({ ...list.get(), status: 'loading' });
    try {
      const answer = await fetch();
      if (request !== latest) return;
      list.set({ status: 'loaded', data: answer.data, meta: answer.meta });
      more.loaded?.(answer);
    } catch {
      if (request !== latest) return;
      list.set({ status: 'failed', data: [], meta: null });
      more.failed?.();
    }
  };
}

interface PagedListOptions<Q, T, Start extends string, A> extends QueryOptions<Q> {
  list: WritableAtom<ListState<T, Start>>;
  /** The page a query names. */
  fetch(query: Q): Promise<A>;
  /** What a load does beyond filling `list` (pageLoader's). */
  more?: { loaded?(answer: A): void; failed?(): void };
}

/**
 * A list loaded page by page: listQuery's query and actions, and `load`, which loads the page the query in
 * effect names into `list` (pageLoader).
 */
export function pagedList<Q extends { page: number }, T, Start extends string, A extends { data: T[]; meta: PageMeta }>(
  options: PagedListOptions<Q, T, Start, A>,
) {
  const { list, fetch, more, ...queryOptions } = options;
  const load: () => Promise<void> = pageLoader(list, () => fetch(paged.query.get()), more);
  const paged = listQuery<Q>({ ...queryOptions, load });
  return { ...paged, load };
}

/**
 * A paged list whose rows are deleted one at a time: pagedList and checkedRow, the checked row cleared
 * by every change of the query.
 */
export function checkedList<
  Q extends { page: number },
  T,
  Start extends string,
  A extends { data: T[]; meta: PageMeta },
>(options: Omit<PagedListOptions<Q, T, Start, A>, 'onChange'> & Pick<CheckedRowOptions<Q>, 'remove' | 'failed'>) {
  const { remove, failed, ...listOptions } = options;
  const paged = pagedList<Q, T, Start, A>({
    ...listOptions,
    onChange: () => {
      rows.checked.set(null);
    },
  });
  const rows = checkedRow({ list: options.list, query: paged.query, load: paged.load, remove, failed });
  return { ...paged, ...rows };
}

interface CheckedRowOptions<Q> {
  list: ReadableAtom<{ data: unknown[] }>;
  query: WritableAtom<Q>;
  load(): Promise<void>;
  remove(key: string): Promise<void>;
  failed?(err: unknown): void;
}

/**
 * The one checked row of a list whose rows are deleted one at a time (docs/console-reports.md §4, §5:
 * delete needs exactly one checked row; while one is checked the others cannot be), and the delete:
 * `remove` makes the call and says so; `failed` what a failed one shows. Either way the list reloads,
 * a page back when the last row of a later page went.
 */
function checkedRow<Q extends { page: number }>(options: CheckedRowOptions<Q>) {
  const checked = atom<string | null>(null);
  const deleting = atom(false);
  return {
    checked,
    deleting,
    /** Checks or unchecks a row; another row cannot be checked while one is. */
    toggleChecked(key: string): void {
      const current = checked.get();
      if (current === key) checked.set(null);
      else if (current === null) checked.set(key);
    },
    async deleteChecked(): Promise<void> {
      const key = checked.get();
      if (key === null || deleting.get()) return;
      deleting.set(true);
      try {
        await options.remove(key);
        checked.set(null);
        const { query, list } = options;
        const { page } = query.get();
        if (page > 1 && list.get().data.length === 1) query.set({ ...query.get(), page: page - 1 });
      } catch (err) {
        options.failed?.(err);
      } finally {
        deleting.set(false);
      }
      await options.load();
    },
  };
}

/**
 * A sortable header's click (docs/console.md §4): the column sorted now toggles asc/desc, another starts
 * desc. `same` says whether the clicked column is the one sorted now (a date column may stand for the
 * default order too).
 */
export function nextSort<K extends string>(
  sort: { key: K; direction: Direction },
  key: K,
  same = sort.key === key,
): { key: K; direction: Direction } {
  return { key, direction: same && sort.direction === 'desc' ? 'asc' : 'desc' };
}
