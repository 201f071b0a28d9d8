// The date rules of the Dashboard and Transactions pages (docs/console.md §2, §9): the default range of
// 29 days back to today in UTC days (as the API counts them), the 'MMMM D, YYYY' display, the
// groups' 'DD MMMM YYYY', and days picked in a calendar as 'YYYY-MM-DD'.
import { describe, expect, it } from 'vitest';
import {
  addDays,
  presetRanges,
  dayOfLocalDate,
  defaultRange,
  rangeEndingOn,
  formatDate,
  formatDateTime,
  formatDay,
  formatGroupDate,
  formatLongDate,
  formatMoment,
  formatRange,
  formatReportDate,
  formatTime,
  localDate,
  rangeToUnix,
  shortDay,
} from '../../src/lib/dates.ts';

/** Unix seconds of a UTC wall-clock time (the console shows every moment in UTC). */
const local = (y: number, m: number, d: number, h = 0, min = 0, s = 0) => Date.UTC(y, m - 1, d, h, min, s) / 1000;

describe('defaultRange', () => {
  it.each([
    ['2025-03-30T12:00:00Z', { start: '2025-03-01', end: '2025-03-30' }],
    ['2025-03-01T00:00:00Z', { start: '2025-01-31', end: '2025-03-01' }],
    ['2024-03-29T23:59:59Z', { start: '2024-02-29', end: '2024-03-29' }],
    ['2025-01-15T08:00:00Z', { start: '2024-12-17', end: '2025-01-15' }],
  ])('at %s is 29 days back to today (UTC days)', (now, range) => {
    expect(defaultRange(new Date(now))).toEqual(range);
  });
});

describe('rangeEndingOn', () => {
  it("is the default range ending on a given day (the server's today, while an island hydrates)", () => {
    expect(rangeEndingOn('2025-03-30')).toEqual({ start: '2025-03-01', end: '2025-03-30' });
    expect(rangeEndingOn('2024-03-29')).toEqual(defaultRange(new Date('2024-03-29T23:59:59Z')));
    expect(() => rangeEndingOn('2025-02-30')).toThrow();
  });
});

describe('day arithmetic and calendar days', () => {
  it.each([
    ['2025-03-01', -1, '2025-02-28'],
    ['2024-02-28', 1, '2024-02-29'],
    ['2025-12-31', 1, '2026-01-01'],
    ['2025-03-30', 0, '2025-03-30'],
  ])('addDays(%s, %i) is %s', (day, n, expected) => {
    expect(addDays(day, n)).toBe(expected);
  });

  it('reads a day as the local midnight a date picker shows, and back', () => {
    const at = localDate('2025-03-09');
    expect([at.getFullYear(), at.getMonth(), at.getDate(), at.getHours()]).toEqual([2025, 2, 9, 0]);
    expect(dayOfLocalDate(at)).toBe('2025-03-09');
    expect(dayOfLocalDate(new Date(2025, 11, 31, 23, 59))).toBe('2025-12-31');
    expect(() => localDate('9 March 2025')).toThrow();
  });
});

describe('display formats', () => {
  it.each([
    ['2025-03-01', 'March 1, 2025', 'Mar 1'],
    ['2024-12-31', 'December 31, 2024', 'Dec 31'],
    ['2025-09-10', 'September 10, 2025', 'Sep 10'],
  ])('a day %s reads %s (axis label %s)', (day, spelled, short) => {
    expect(formatDay(day)).toBe(spelled);
    expect(shortDay(day)).toBe(short);
  });

  it('a range reads "MMMM D, YYYY - MMMM D, YYYY"', () => {
    expect(formatRange({ start: '2025-02-28', end: '2025-03-29' })).toBe('February 28, 2025 - March 29, 2025');
  });

  it('a moment reads in UTC, whatever the zone of the process', () => {
    const at = local(2025, 3, 1, 9, 5, 7);
    expect(formatDate(at)).toBe('March 1, 2025');
    expect(formatTime(at)).toBe('09:05');
    expect(formatMoment(at)).toBe('March 1, 2025 09:05:07');
    expect(formatTime(local(2025, 3, 1, 23, 59))).toBe('23:59');
  });

  it('a group date reads "DD MMMM YYYY", and "-" for none (docs/console.md §2)', () => {
    expect(formatGroupDate(local(2025, 3, 1, 12))).toBe('01 March 2025');
    expect(formatGroupDate(local(2025, 11, 30))).toBe('30 November 2025');
    expect(formatGroupDate(0)).toBe('-');
  });

  it('console, report and long formats (docs/console.md §9, docs/console-reports.md §9)', () => {
    const at = local(2026, 11, 23, 13, 30, 5);
    expect(formatDateTime(at)).toBe('November 23, 2026 13:30');
    expect(formatReportDate(at)).toBe('23 Nov 2026 - 13:30');
    expect(formatLongDate(at)).toBe('23 November 2026');
    expect(formatReportDate(0)).toBe('-');
    expect(formatLongDate(0)).toBe('-');
  });

  it('a range on the wire runs from the start of its first day to the end of its last (UTC)', () => {
    expect(rangeToUnix({ start: '2026-11-01', end: '2026-11-23' })).toEqual({
      start_date: local(2026, 11, 1),
      end_date: local(2026, 11, 23, 23, 59, 59),
    });
  });

  it('refuses what is not a day', () => {
    expect(() => formatDay('2026-02-30')).toThrow();
    expect(() => addDays('23 November 2026', 1)).toThrow();
  });

  it.each([
    // the 1st of a month: this month is one day, last month the whole of the one before
    ['2026-03-01', '2026-03-01', '2026-02-01', '2026-02-28'],
    // a leap year's February, and across a year's end
    ['2024-03-15', '2024-03-01', '2024-02-01', '2024-02-29'],
    ['2026-01-31', '2026-01-01', '2025-12-01', '2025-12-31'],
  ])('names the presets of today %s', (today, thisMonth, lastStart, lastEnd) => {
    expect(presetRanges(today)).toEqual([
      { label: 'Today', range: { start: today, end: today } },
      { label: 'Last 7 days', range: { start: addDays(today, -6), end: today } },
      { label: 'Last 30 days', range: { start: addDays(today, -29), end: today } },
      { label: 'This month', range: { start: thisMonth, end: today } },
      { label: 'Last month', range: { start: lastStart, end: lastEnd } },
    ]);
  });
});
