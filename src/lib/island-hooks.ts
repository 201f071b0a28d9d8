// Hooks that keep an island's first render in the browser identical to the HTML the server sent
// (React error #418: a hydration mismatch). Islands hydrate one by one, each when its script has
// arrived, while the shared stores fill as soon as the first of them asks: an island that hydrates
// after a store loaded must still render what the server rendered, then the store's value.
import { useStore } from '@nanostores/react';
import type { ReadableAtom, WritableAtom } from 'nanostores';
import { useState, useSyncExternalStore } from 'react';

/**
 * A store's value for an island. While the island hydrates: the store's initial value, which is
 * what the server rendered (the server never changes the stores: they load in effects); right
 * after, React renders again with the current value.
 */
export function useIslandStore<T>(store: ReadableAtom<T>): T {
  return useStore(store, { ssr: 'initial' });
}

const never = () => () => {};

/** False on the server and while hydrating, true once the island is live in the browser. */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}

/**
 * A store whose first value the server rendered from the island's props (lists render
 * their first page on the server). On the server and while hydrating the island shows `seed`; in
 * the browser the store takes `seed` once, before anything reads it, and the island follows the
 * store from then on (paging, sorting, searching). A store that changed before the island
 * hydrated (a new date range while the table was still below the fold) keeps its newer value.
 * Stores are module-level, shared by every request on the server, so they are never set there.
 * Without a seed: useIslandStore.
 */
export function useSeededStore<T>(store: WritableAtom<T>, seed: T | null): T {
  // the first render's value, kept: React asks for the server's value more than once
  const [rendered] = useState(() => {
    if (seed !== null && typeof document !== 'undefined' && store.get() === store.init) store.set(seed);
    return seed ?? (store.init as T);
  });
  return useStore(store, { ssr: () => rendered });
}
