// The fields the report calls (dashboard, transaction and group searches) read from a request: date
// bounds in either form, pages, short texts, uuids. Their rules (UTC days, unix bounds) have their own
// table-driven tests (tests/unit/report-input.test.ts); src/server/reports/report-input.ts turns them into ranges.
import { z } from '@hono/zod-openapi';

const MAX_PAGE = 10_000_000;
// unix seconds up to 9999-12-31T23:59:59Z
const MAX_UNIX_SECONDS = 253_402_300_799;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** 'YYYY-MM-DD' of a real calendar day, or null. */
export function parseDay(text: string): string | null {
  const m = DAY_PATTERN.exec(text);
  if (!m) return null;
  const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return at.toISOString().slice(0, 10) === text ? text : null;
}

/**
 * One end of a date range as sent: a day 'YYYY-MM-DD' (docs/console.md §9, the API date format) or
 * unix seconds (docs/console-reports.md §7: report pages send start-of-day / end-of-day unix times).
 */
export type DateBound = { day: string } | { unixSeconds: number };

const dayText = z.string().refine((s) => parseDay(s) !== null, { message: 'must be a date YYYY-MM-DD' });
const unixSeconds = z.number().int().min(0).max(MAX_UNIX_SECONDS);

/** A date field: 'YYYY-MM-DD', unix seconds (number or digits), or empty/null for none. */
export const dateField = z
  .union(
    [
      z.literal('').transform(() => undefined),
      z
        .string()
        .regex(/^\d{1,12}$/)
        .transform(Number)
        .pipe(unixSeconds)
        .transform((n): DateBound => ({ unixSeconds: n })),
      dayText.transform((day): DateBound => ({ day })),
      unixSeconds.transform((n): DateBound => ({ unixSeconds: n })),
    ],
    { error: 'must be a date YYYY-MM-DD or unix seconds' },
  )
  .nullish()
  .transform((v) => v ?? undefined);

/** A page number: a positive integer, as a number or digits; absent or null means 1. */
export const pageField = z
  .union([z.number(), z.string().regex(/^\d+$/, 'must be a whole number').transform(Number)])
  .pipe(z.number().int().min(1, 'must be 1 or more').max(MAX_PAGE))
  .nullish()
  .transform((v) => v ?? 1);

/** Optional short text; empty or null means none. */
export function textField(max: number) {
  return z
    .string()
    .max(max)
    .nullish()
    .transform((v) => (v ?? '').trim() || undefined);
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `text` is a whole uuid (any case). */
export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}
