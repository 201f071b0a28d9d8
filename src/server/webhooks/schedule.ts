// The retry schedule of webhook requests: after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h,
// 20 h and 24 h (±10 % jitter; about three days in all), then the request fails for good.
// `Retry-After` on 429 and 503 is honoured, capped at twice the step it replaces.

export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400] as const;

/**
 * When to try again after the `step`-th failure (0 for the first), or null when the schedule is
 * used up. `random` in [0, 1) sets the jitter; tests pass a fixed one.
 */
export function nextRetryAt(step: number, now: Date, random: () => number, retryAfterSeconds?: number): Date | null {
  const base = RETRY_DELAYS_SECONDS[step];
  if (base === undefined) return null;
  const seconds =
    retryAfterSeconds !== undefined ? Math.min(retryAfterSeconds, base * 2) : base * (0.9 + 0.2 * random());
  return new Date(now.getTime() + Math.round(seconds * 1000));
}

/** A Retry-After value (seconds or an HTTP date) in seconds from `now`, or undefined. */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.round((at - now.getTime()) / 1000));
}
