// Hooks that keep an island's first render in the browser identical to the HTML the server sent
// (issue 11: React error #418). Islands hydrate one by one, each when its script has arrived, while
// the shared stores fill as soon as the first of them asks: an island that hydrates after a store
// loaded must still render what the server rendered, then the store's value.
import { useStore } from '@nanostores/react';
import type { ReadableAtom } from 'nanostores';
import { useSyncExternalStore } from 'react';

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
  return useSyncExternalStore(never, () => true, () => false);
}
