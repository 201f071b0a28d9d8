// The Transactional Dashboard's data (docs/console.md §2, §3 "Dashboard data", "Quota"): the overview
// total and daily series from the daily_stats rollup (never by counting transactions, docs/architecture.md §4.2),
// the first page of the latest transactions, and the monthly quota.
import type { z } from 'zod';
import type * as contract from '../../contract/reports.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { hasVerifiedDomainAndTraffic } from '../stats/stats.repository.ts';
import { figuresPerDay, transactionsIn } from '../stats/figures.ts';
import { NO_FIGURES } from '../../lib/figures.ts';
import { type DailyStatWire, dailyStatToWire } from '../reports/daily-stats.ts';
import { PAGE_SIZE, type TimeRange, dayOf, daysBetween, rangeOf, seriesDays } from '../reports/report-input.ts';
import { type TransactionPage, searchTransactions } from '../reports/transactions.service.ts';
import { firstOfMonth } from '../sending/sending.service.ts';
import { quotaOf } from './dashboard.repository.ts';

/**
 * Transactions accepted in the UTC days the range touches; all time without a range, which is the
 * overview total of the home rule (docs/console.md §4: an empty body).
 */
export function rangeTotal(ctx: AppContext, customerId: number, range: TimeRange): Promise<number> {
  const { db } = ctx;
  return transactionsIn(db, customerId, { groupId: null, firstDay: range.firstDay, lastDay: range.lastDay });
}

/**
 * POST /v1/dashboard/overview: the total, and one entry per UTC day of the range for the overview
 * chart — every day present, zeros where nothing happened. Without a range the series covers the
 * dashboard's default (the last 29 days through today, docs/console.md §9) while the total stays all time.
 */
export async function overview(
  ctx: AppContext,
  customerId: number,
  range: TimeRange,
  now: Date,
): Promise<{ overviewStats: { total: number }; dailyStats: DailyStatWire[] }> {
  const { db } = ctx;
  const { first, last } = seriesDays(range, dayOf(now));
  // a range with both ends is exactly the series' days: its total is the series' sum, not another query
  const bounded = range.firstDay !== null && range.lastDay !== null;
  const [total, perDay] = await Promise.all([
    bounded ? null : rangeTotal(ctx, customerId, range),
    figuresPerDay(db, customerId, first, last),
  ]);
  return {
    overviewStats: { total: total ?? [...perDay.values()].reduce((sum, day) => sum + day.transactions, 0) },
    dailyStats: daysBetween(first, last).map((day) => dailyStatToWire(day, perDay.get(day) ?? NO_FIGURES)),
  };
}

/** GET /v1/dashboard: the range's total and the first page of its latest transactions (newest first). */
export async function dashboardData(
  ctx: AppContext,
  customerId: number,
  range: TimeRange,
): Promise<{ overviewStats: { total: number }; transactionStats: TransactionPage }> {
  const transactionStats = await searchTransactions(ctx, customerId, {
    range,
    page: 1,
    perPage: PAGE_SIZE.transactions,
    sort: { key: 'trans_id', direction: 'desc' },
    status: 'all',
    reportType: 'all',
    groupUuid: null,
    recipient: null,
    text: null,
  });
  // over whole days the table's total is this very sum of the requests rollup: read once, not twice
  // (one query less in the ~10 ms the dashboard has, measured with `npm run bench:reports`)
  const total = range.wholeDays ? transactionStats.meta.total : await rangeTotal(ctx, customerId, range);
  return { overviewStats: { total }, transactionStats };
}

/**
 * GET /v1/dashboard/get-quota: the calendar month (UTC) that sending counts against the limit.
 * `sent` is what the month's sends used of the quota (transactions accepted for delivery; those
 * refused as no_quota or suppressed use none).
 */
export async function quota(
  ctx: AppContext,
  customerId: number,
  now: Date,
): Promise<{ quota: { sent: number; maximum: number } }> {
  const { db } = ctx;
  const found = await quotaOf(db, customerId, firstOfMonth(now));
  if (!found) throw new DomainError('not_found', 'No such customer');
  return { quota: { sent: found.used, maximum: found.maximum } };
}

/**
 * GET /v1/dashboard's data for a checked query; also the dashboard's latest transactions, rendered on the server.
 */
export function answerDashboard(ctx: AppContext, customerId: number, query: z.infer<typeof contract.dashboardQuery>) {
  return dashboardData(ctx, customerId, rangeOf(query));
}

/** Home (docs/console.md §4): the dashboard once the customer has a sending-verified domain and a transaction. */
export function showsDashboard(ctx: AppContext, customerId: number): Promise<boolean> {
  return hasVerifiedDomainAndTraffic(ctx.db, customerId);
}
