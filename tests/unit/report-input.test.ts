// The report calls' input rules (src/server/reports/report-input.ts): UTC days, unix bounds, the
// two spellings of a range, the default series, and sort fields including the spec's swapped pair.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DomainError } from '../../src/server/core/errors.ts';
import { dateField, pageField, parseDay } from '../../src/contract/fields.ts';
import { daysBetween, pageMeta, rangeOf, resolveSort, seriesDays } from '../../src/server/reports/report-input.ts';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof DomainError ? err.code : 'other';
  }
  return 'none';
};

describe('parseDay', () => {
  it.each([
    ['2025-03-12', '2025-03-12'],
    ['2024-02-29', '2024-02-29'],
    ['2025-02-29', null],
    ['2025-13-01', null],
    ['2025-3-1', null],
    ['12/03/2025', null],
    ['2025-03-12T00:00:00Z', null],
  ])('%s → %s', (text, day) => expect(parseDay(text)).toBe(day));
});

describe('dateField', () => {
  const parse = (v: unknown) => z.object({ d: dateField }).safeParse({ d: v });
  it.each([
    ['2025-03-12', { day: '2025-03-12' }],
    [1741737600, { unixSeconds: 1741737600 }],
    ['1741737600', { unixSeconds: 1741737600 }],
    ['', undefined],
    [null, undefined],
  ])('reads %j', (value, bound) => expect(parse(value)).toMatchObject({ success: true, data: { d: bound } }));
  it.each([['2025-02-30'], ['yesterday'], [-1], [1.5], [true]])('refuses %j', (value) =>
    expect(parse(value).success).toBe(false),
  );
});

describe('pageField', () => {
  const parse = (v: unknown) => z.object({ p: pageField }).safeParse({ p: v });
  it('defaults to 1 and takes digits', () => {
    expect(parse(undefined)).toMatchObject({ data: { p: 1 } });
    expect(parse('3')).toMatchObject({ data: { p: 3 } });
  });
  it.each([[0], [-2], [2.5], ['x'], ['']])('refuses %j', (value) => expect(parse(value).success).toBe(false));
});

describe('rangeOf', () => {
  it('turns days into UTC bounds, the end day included', () => {
    const range = rangeOf({ startDate: { day: '2025-03-12' }, endDate: { day: '2025-03-13' } });
    expect(range).toEqual({
      from: new Date('2025-03-12T00:00:00Z'),
      before: new Date('2025-03-14T00:00:00Z'),
      wholeDays: true,
      firstDay: '2025-03-12',
      lastDay: '2025-03-13',
    });
  });
  it('includes the whole last second of a unix end, and is not whole days', () => {
    const range = rangeOf({
      start_date: { unixSeconds: Date.parse('2025-03-12T00:00:00Z') / 1000 },
      end_date: { unixSeconds: Date.parse('2025-03-12T23:59:59Z') / 1000 },
    });
    expect(range.before).toEqual(new Date('2025-03-13T00:00:00Z'));
    expect(range).toMatchObject({ wholeDays: false, firstDay: '2025-03-12', lastDay: '2025-03-12' });
  });
  it('takes either spelling, equal values in both, and is open without bounds', () => {
    expect(rangeOf({ start_date: { day: '2025-03-12' } }).from).toEqual(new Date('2025-03-12T00:00:00Z'));
    expect(
      rangeOf({
        startDate: { day: '2025-03-12' },
        start_date: { unixSeconds: Date.parse('2025-03-12T00:00:00Z') / 1000 },
      }).firstDay,
    ).toBe('2025-03-12');
    expect(rangeOf({})).toEqual({ from: null, before: null, wholeDays: true, firstDay: null, lastDay: null });
  });
  it('refuses different spellings and a start after the end', () => {
    expect(code(() => rangeOf({ startDate: { day: '2025-03-12' }, start_date: { day: '2025-03-11' } }))).toBe(
      'validation_failed',
    );
    expect(code(() => rangeOf({ startDate: { day: '2025-03-12' }, endDate: { day: '2025-03-11' } }))).toBe(
      'validation_failed',
    );
  });
});

describe('seriesDays', () => {
  const today = '2025-03-31';
  it('defaults to the last 29 days through today', () => {
    expect(seriesDays(rangeOf({}), today)).toEqual({ first: '2025-03-02', last: today });
    expect(daysBetween('2025-03-02', today)).toHaveLength(30);
  });
  it('closes an open end at today, an open start 29 days before the end', () => {
    expect(seriesDays(rangeOf({ startDate: { day: '2025-03-20' } }), today)).toEqual({
      first: '2025-03-20',
      last: today,
    });
    expect(seriesDays(rangeOf({ endDate: { day: '2025-02-10' } }), today)).toEqual({
      first: '2025-01-12',
      last: '2025-02-10',
    });
  });
  it('refuses more than two years of days', () => {
    expect(
      code(() => seriesDays(rangeOf({ startDate: { day: '2020-01-01' }, endDate: { day: '2025-01-01' } }), today)),
    ).toBe('validation_failed');
  });
  it('crosses months and leap days', () => {
    expect(daysBetween('2024-02-28', '2024-03-01')).toEqual(['2024-02-28', '2024-02-29', '2024-03-01']);
  });
});

describe('resolveSort', () => {
  const keys = ['trans_id', 'dateSent'] as const;
  const sort = (direction?: string, key?: string) =>
    resolveSort(keys, 'trans_id', { direction, key, directionName: 'order', keyName: 'order_by' });
  it.each([
    [undefined, undefined, { key: 'trans_id', direction: 'desc' }],
    ['asc', undefined, { key: 'trans_id', direction: 'asc' }],
    ['DESC', 'dateSent', { key: 'dateSent', direction: 'desc' }],
    // docs/console-reports.md §9: "order trans_id, order_by desc"
    ['trans_id', 'desc', { key: 'trans_id', direction: 'desc' }],
    ['dateSent', undefined, { key: 'dateSent', direction: 'desc' }],
  ])('order %s, order_by %s', (direction, key, expected) => expect(sort(direction, key)).toEqual(expected));
  it.each([
    ['sideways', 'dateSent'],
    ['asc', 'subject'],
    ['subject', undefined],
    ['asc', 'desc'],
  ])('refuses order %s, order_by %s', (direction, key) =>
    expect(code(() => sort(direction, key))).toBe('validation_failed'),
  );
});

describe('pageMeta', () => {
  it('has at least one page', () => {
    expect(pageMeta(1, 10, 0, false)).toEqual({
      current_page: 1,
      per_page: 10,
      total: 0,
      last_page: 1,
      total_capped: false,
    });
    expect(pageMeta(2, 10, 21, false).last_page).toBe(3);
  });
});
