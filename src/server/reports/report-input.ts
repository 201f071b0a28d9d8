// What the report calls (dashboard, transaction and group searches) make of a request: date ranges
// from either spelling of the contract's date fields (src/contract/fields.ts), sort keys, and the page
// size. Pure, so the subtle rules (UTC days, the swapped order/order_by of docs/console-reports.md §9)
// have their own table-driven tests.
import type { DateBound } from '../../contract/fields.ts';
import type { PageMeta } from '../../contract/reports.ts';
import { DomainError } from '../core/errors.ts';
import { addDays } from '../../lib/dates.ts';

/**
 * Rows per page. One size for the transaction table whether the dashboard (GET /v1/dashboard, its
 * first page) or POST /v1/transaction/search (its later pages, sorts and searches) fills it, so
 * 'Displaying a-b of total' stays consistent; 10 is the spec's fixture page size (docs/console-reports.md §9).
 * The groups table has no stated size (docs/console.md §9: "not shown") and uses the same.
 */
export const PAGE_SIZE = Object.freeze({ transactions: 10, groups: 10 });

/**
 * A search the rollups cannot total (a whole recipient, or a range that is not whole UTC days)
 * counts matching rows only up to this many plus one; `total` is then COUNT_CAP + 1 and
 * `total_capped` true ("more than 10,000"), so a search over 10 M rows never counts them all.
 * Other totals come exact from the requests and transaction_counts rollups instead.
 */
export const COUNT_CAP = 10_000;

/**
 * A search by text (an address or domain prefix) counts only this far: its matches are found by
 * walking the date range and testing each address, so counting 10,000 matches of a domain that
 * gets 14 % of the mail tests 70,000 addresses (measured 60–90 ms; `npm run bench:reports`).
 * Whoever searches for a person or a domain needs the rows, not an exact count beyond this.
 */
export const TEXT_COUNT_CAP = 1_000;

/** The longest range a daily series covers (two years of days). */
export const MAX_SERIES_DAYS = 731;

/** The dashboard's default range (docs/console.md §2, §9): the last 29 days through today. */
export const DEFAULT_RANGE_DAYS_BACK = 29;

const DAY_MS = 86_400_000;

/** The UTC day of a moment. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Every day from `first` to `last`, both included. */
export function daysBetween(first: string, last: string): string[] {
  const out: string[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) out.push(day);
  return out;
}

/**
 * A range of acceptance times, `from` included and `before` excluded. Days are UTC days — the
 * customer's day boundaries, because daily_stats (and so every chart and total) is keyed by UTC
 * day; a day's end is the next day's start. A unix end bound includes its whole second (an
 * end-of-day time is 23:59:59).
 */
export interface TimeRange {
  from: Date | null;
  before: Date | null;
  /** Both ends (when given) fall on UTC midnights, so the daily_stats rollup counts exactly this range. */
  wholeDays: boolean;
  /** The UTC days the range touches (null: unbounded on that side). */
  firstDay: string | null;
  lastDay: string | null;
}

function startOf(bound: DateBound): Date {
  return 'day' in bound ? new Date(`${bound.day}T00:00:00Z`) : new Date(bound.unixSeconds * 1000);
}

function endOf(bound: DateBound): Date {
  return 'day' in bound
    ? new Date(Date.parse(`${bound.day}T00:00:00Z`) + DAY_MS)
    : new Date((bound.unixSeconds + 1) * 1000);
}

function invalid(path: string, message: string): DomainError {
  return new DomainError('validation_failed', `Invalid request: ${path}: ${message}`, { details: [{ path, message }] });
}

/**
 * The one value of two spellings of a field (docs/console.md §7 lists startDate and start_date); 400 when they differ.
 */
function oneOf(
  a: DateBound | undefined,
  b: DateBound | undefined,
  names: string,
  at: (x: DateBound) => Date,
): DateBound | undefined {
  if (a && b && at(a).getTime() !== at(b).getTime()) throw invalid(names, 'the two spellings name different dates');
  return a ?? b;
}

/** The range named by startDate/endDate or start_date/end_date (either spelling); 400 when start is after end. */
export function rangeOf(input: {
  startDate?: DateBound;
  endDate?: DateBound;
  start_date?: DateBound;
  end_date?: DateBound;
}): TimeRange {
  const start = oneOf(input.startDate, input.start_date, 'startDate/start_date', startOf);
  const end = oneOf(input.endDate, input.end_date, 'endDate/end_date', endOf);
  const from = start ? startOf(start) : null;
  const before = end ? endOf(end) : null;
  if (from && before && from >= before) throw invalid('startDate', 'the start date is after the end date');
  return {
    from,
    before,
    wholeDays: (!start || 'day' in start) && (!end || 'day' in end),
    firstDay: from ? dayOf(from) : null,
    lastDay: before ? dayOf(new Date(before.getTime() - 1)) : null,
  };
}

/**
 * The days of a daily series for `range`: the default range (the last 29 days through today) when
 * none is given, an open end closed at today or at the start. 400 beyond MAX_SERIES_DAYS.
 */
export function seriesDays(range: TimeRange, today: string): { first: string; last: string } {
  const last = range.lastDay ?? (range.firstDay && range.firstDay > today ? range.firstDay : today);
  const first =
    range.firstDay ??
    (range.lastDay ? addDays(range.lastDay, -DEFAULT_RANGE_DAYS_BACK) : addDays(today, -DEFAULT_RANGE_DAYS_BACK));
  if (daysBetweenCount(first, last) > MAX_SERIES_DAYS)
    throw invalid('endDate', `a daily series covers at most ${MAX_SERIES_DAYS} days`);
  return { first, last };
}

function daysBetweenCount(first: string, last: string): number {
  return Math.round((Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`)) / DAY_MS) + 1;
}

export type Direction = 'asc' | 'desc';
const DIRECTIONS: readonly string[] = ['asc', 'desc'];

/**
 * The sort of a search: `key` one of `keys` (default `fallback`), direction asc|desc (default
 * desc, docs/console-reports.md §2 "default desc"; case-insensitive). docs/console-reports.md §9 writes the default
 * report sort as "order trans_id, order_by desc" — the two fields swapped — so a direction in the
 * key field and a key in the direction field is read that way round. Anything else: 400.
 */
export function resolveSort<K extends string>(
  keys: readonly K[],
  fallback: K,
  fields: { direction?: string; key?: string; directionName: string; keyName: string },
): { key: K; direction: Direction } {
  let { direction, key, directionName, keyName } = fields;
  const isDirection = (v: string | undefined) => v !== undefined && DIRECTIONS.includes(v.toLowerCase());
  if (direction !== undefined && !isDirection(direction) && (key === undefined || isDirection(key))) {
    [direction, key, directionName, keyName] = [key, direction, keyName, directionName];
  }
  if (direction !== undefined && !isDirection(direction)) throw invalid(directionName, 'must be asc or desc');
  if (key !== undefined && !(keys as readonly string[]).includes(key))
    throw invalid(keyName, `must be one of ${keys.join(', ')}`);
  return {
    key: (key as K | undefined) ?? fallback,
    direction: (direction?.toLowerCase() as Direction | undefined) ?? 'desc',
  };
}

/** The value of a field the spec spells two ways; 400 when both are given and differ. */
export function either<T>(a: T | undefined, b: T | undefined, names: string): T | undefined {
  if (a !== undefined && b !== undefined && a !== b) {
    const message = 'the two spellings have different values';
    throw new DomainError('validation_failed', `Invalid request: ${names}: ${message}`, {
      details: [{ path: names, message }],
    });
  }
  return a ?? b;
}

/** The paging block of a paged response (docs/console.md §3 "Paged response"), counted or capped. */
export function pageMeta(page: number, perPage: number, total: number, capped: boolean): Required<PageMeta> {
  return {
    current_page: page,
    per_page: perPage,
    total,
    last_page: Math.max(1, Math.ceil(total / perPage)),
    total_capped: capped,
  };
}

/** Escapes LIKE's wildcards so user text matches literally (PostgreSQL's default escape is backslash). */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
