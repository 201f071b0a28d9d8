// docs/console-reports.md §2, §4, §9: the Overview widget offers a Retry button after 45 s without an answer.
// The clock is a parameter, so tests can move time instead of waiting.

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

/**
 * Calls `onLate` once `ms` have passed, unless `answered()` was called first. Returns `answered`,
 * which is safe to call more than once.
 */
export function watchForAnswer(ms: number, onLate: () => void, timers: Timers = realTimers): () => void {
  let done = false;
  const handle = timers.setTimeout(() => {
    if (!done) onLate();
    done = true;
  }, ms);
  return () => {
    if (done) return;
    done = true;
    timers.clearTimeout(handle);
  };
}
