// A function that runs once calls have paused: the search boxes wait for typing to stop (docs/console.md §9).

export interface Debounced<A extends unknown[]> {
  (...args: A): void;
  /** Drops the pending call, if any. */
  cancel(): void;
}

/** `fn`, run `ms` after the last call with that call's arguments; earlier calls are dropped. */
export function debounced<A extends unknown[]>(ms: number, fn: (...args: A) => void): Debounced<A> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const call = (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  return Object.assign(call, { cancel: () => clearTimeout(timer) });
}
