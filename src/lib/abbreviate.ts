// Large counts in the Overview widget, abbreviated with the suffixes of docs/console-reports.md §2: k, M, G,
// T, P, E (powers of 1,000). Pure, so the rounding rules have their own table-driven test.

const SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'] as const;

/**
 * 999 → '999', 1,500 → '1.5k', 12,345 → '12.3k', 123,456 → '123k', 999,999 → '1M',
 * 2.5e18 → '2.5E'. One decimal below 100 of a unit, none above; a trailing '.0' is dropped;
 * a value that rounds up to 1,000 of a unit moves to the next suffix. Negative counts keep their sign.
 */
export function abbreviateCount(count: number): string {
  if (!Number.isFinite(count)) return '0';
  const sign = count < 0 ? '-' : '';
  const n = Math.abs(count);
  if (n < 1000) return `${sign}${Math.round(n)}`;
  let unit = Math.min(SUFFIXES.length - 1, Math.floor(Math.log10(n) / 3));
  let rounded = roundFor(n / 1000 ** unit);
  if (rounded >= 1000 && unit < SUFFIXES.length - 1) {
    unit += 1;
    rounded = roundFor(n / 1000 ** unit);
  }
  return `${sign}${String(rounded)}${SUFFIXES[unit]}`;
}

function roundFor(value: number): number {
  return value < 100 ? Math.round(value * 10) / 10 : Math.round(value);
}
