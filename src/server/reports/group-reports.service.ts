// A transaction group's report pages (docs/console-reports.md §2 Group report pages, §3, §7): the
// report call (one page of the report's transactions and the group's daily series), the overview
// widget's figures and the Clicks report's Links tab. Every figure comes from a rollup (daily_stats,
// transaction_counts, link_stats); only the rows of the page shown are read from transactions.
import type { z } from 'zod';
import type * as contract from '../../contract/reports.ts';
import { isUuid } from '../../contract/fields.ts';
import type { GroupReportType } from '../../contract/values.ts';
import type { AppContext } from '../core/context.ts';
import { type DailyStatWire, dailyStatToWire } from './daily-stats.ts';
import { DomainError } from '../core/errors.ts';
import { figuresOfSlice, figuresPerDay } from '../stats/figures.ts';
import { NO_FIGURES, type ShareKey, shareOf } from '../../lib/figures.ts';
import { addDays } from '../../lib/dates.ts';
import { findGroup } from './groups.repository.ts';
import { type LinkOrder, countLinks, pageLinks } from './link-stats.repository.ts';
import {
  DEFAULT_RANGE_DAYS_BACK,
  type Direction,
  type TimeRange,
  dayOf,
  daysBetween,
  pageMeta,
  PAGE_SIZE,
  rangeOf,
  resolveSort,
} from './report-input.ts';
import { type TransactionRow, rowExtras, transactionsByIds } from './transactions.repository.ts';
import {
  TRANSACTION_SORT_KEYS,
  type TransactionSortKey,
  type TransactionWire,
  findTransactionIds,
  transactionToWire,
  unixSeconds,
} from './transactions.service.ts';

/** The longest range a report covers (ranges over 400 days are refused). */
export const MAX_REPORT_DAYS = 400;

/**
 * Sort keys of the report tables: the transaction table's, and the spec's bounceReceivedDated
 * (docs/console-reports.md §2). A bounce has no column of its own (its time is the 'bounced' event's); it arrives
 * minutes after acceptance, so the Bounced table sorts it in acceptance order, which an index serves.
 */
export const GROUP_REPORT_SORT_KEYS = [...TRANSACTION_SORT_KEYS, 'bounceReceivedDated'] as const;
export type GroupReportSortKey = (typeof GROUP_REPORT_SORT_KEYS)[number];

/** The transaction table's order a report's sort key stands for. */
function transactionSortOf(key: GroupReportSortKey): TransactionSortKey {
  return key === 'bounceReceivedDated' ? 'trans_id' : key;
}

/** Sort keys of the Links tab; trans_id (the report body's default) means by total clicks. */
export const LINK_SORT_KEYS = ['trans_id', 'clicks', 'unique_clicks', 'link', 'subject'] as const;
export type LinkSortKey = (typeof LINK_SORT_KEYS)[number];
const LINK_ORDER_OF: Record<LinkSortKey, LinkOrder> = {
  trans_id: 'clicks',
  clicks: 'clicks',
  unique_clicks: 'unique_clicks',
  link: 'url',
  subject: 'subject',
};

/**
 * A report body's sort: `order` the key and `order_by` the direction, or the two the other way round
 * (resolveSort); by default trans_id, newest first.
 */
export function reportSort<K extends string>(
  keys: readonly ('trans_id' | K)[],
  body: { order?: string; order_by?: string },
): { key: 'trans_id' | K; direction: Direction } {
  return resolveSort(keys, 'trans_id', {
    direction: body.order_by,
    key: body.order,
    directionName: 'order_by',
    keyName: 'order',
  });
}

/** The report's range: whole UTC days, first and last included. */
export interface ReportRange extends TimeRange {
  from: Date;
  before: Date;
  firstDay: string;
  lastDay: string;
}

const DAY_MS = 86_400_000;
const isMidnight = (at: Date) => at.getTime() % DAY_MS === 0;

/**
 * The range of a report request (docs/console-reports.md §7: start of day to end of day as unix seconds;
 * §9: the last 29 days through today when absent). A missing end closes at today (or at the start
 * day), a missing start opens 29 days before the end. 400 beyond MAX_REPORT_DAYS. Bounds on UTC
 * midnights (what the console sends) are whole days, so the rollups total them exactly.
 */
export function reportRange(range: TimeRange, now: Date): ReportRange {
  const today = dayOf(now);
  const dayStart = (day: string) => new Date(`${day}T00:00:00Z`);
  const lastDay = range.lastDay ?? (range.firstDay && range.firstDay > today ? range.firstDay : today);
  const firstDay = range.firstDay ?? addDays(lastDay, -DEFAULT_RANGE_DAYS_BACK);
  const from = range.from ?? dayStart(firstDay);
  const before = range.before ?? dayStart(addDays(lastDay, 1));
  if (from >= before) throw invalid('start_date', 'the start date is after the end date');
  const days = Math.round((dayStart(lastDay).getTime() - dayStart(firstDay).getTime()) / DAY_MS) + 1;
  if (days > MAX_REPORT_DAYS) throw invalid('end_date', `a report covers at most ${MAX_REPORT_DAYS} days`);
  return { from, before, firstDay, lastDay, wholeDays: isMidnight(from) && isMidnight(before) };
}

function invalid(path: string, message: string): DomainError {
  return new DomainError('validation_failed', `Invalid request: ${path}: ${message}`, { details: [{ path, message }] });
}

/** The customer's group with this uuid; 404 for a malformed, unknown or another customer's uuid. */
export async function groupOf(
  ctx: AppContext,
  customerId: number,
  uuid: string | undefined,
): Promise<{ id: number; name: string }> {
  const group = uuid && isUuid(uuid) ? await findGroup(ctx.db, customerId, uuid.toLowerCase()) : undefined;
  if (group === undefined) throw new DomainError('not_found', 'No such transaction group');
  return { id: Number(group.id), name: group.name };
}

/**
 * A transaction row of a group report (docs/console-reports.md §3 "Transaction row"); dates unix seconds, 0 for none.
 */
export interface ReportTransactionWire extends TransactionWire {
  trans_id: number;
  /** The date the report's table shows: sent (overview, sent), failed, bounced, first open, first click. */
  log_date: number;
  trans_bounce_type: string;
  trans_bounce_reason: string;
  ts_total_opens: number;
  ts_total_clicks: number;
  /** The distinct links of the message the recipient clicked. */
  ts_unique_clicks: number;
}

/** The events whose last time a report's row shows (its failure or bounce). */
const OUTCOME_EVENTS: Record<GroupReportType, readonly string[]> = {
  overview: [],
  sent: [],
  opens: [],
  clicks: [],
  failed: ['failed', 'canceled'],
  bounced: ['bounced'],
};

/** The date a report's table shows for a row. */
export function logDate(
  row: Pick<TransactionRow, 'sent_at' | 'queued_at'> & { first_open_at?: Date | null; first_click_at?: Date | null },
  reportType: GroupReportType,
  outcomeAt: Date | null,
): Date {
  const sentOrQueued = row.sent_at ?? row.queued_at;
  switch (reportType) {
    case 'opens':
      return row.first_open_at ?? sentOrQueued;
    case 'clicks':
      return row.first_click_at ?? sentOrQueued;
    case 'failed':
    case 'bounced':
      return outcomeAt ?? sentOrQueued;
    default:
      return sentOrQueued;
  }
}

/** Why a failed or bounced transaction did not arrive: the bounce's reason or the last server reply. */
export function failureReason(row: Pick<TransactionRow, 'bounce_reason' | 'last_reply'>): string {
  return row.bounce_reason ?? row.last_reply ?? '';
}

export interface GroupReportRequest {
  groupUuid: string | undefined;
  reportType: GroupReportType;
  range: ReportRange;
  page: number;
  perPage: number;
  sort: { key: GroupReportSortKey; direction: Direction };
  text: string | null;
}

export interface GroupReport {
  transactions: { data: ReportTransactionWire[]; meta: Required<contract.PageMeta> };
  dailyStats: DailyStatWire[];
}

/** POST v1/transaction-groups/reports: one page of the report's transactions and the group's daily series. */
export async function groupReport(
  ctx: AppContext,
  customerId: number,
  request: GroupReportRequest,
): Promise<GroupReport> {
  const { db } = ctx;
  const { id: groupId } = await groupOf(ctx, customerId, request.groupUuid);
  const { range, reportType } = request;
  const [found, perDay] = await Promise.all([
    findTransactionIds(ctx, customerId, {
      range,
      page: request.page,
      perPage: request.perPage,
      sort: { key: transactionSortOf(request.sort.key), direction: request.sort.direction },
      status: 'all',
      reportType,
      groupUuid: request.groupUuid!.toLowerCase(),
      groupId,
      recipient: null,
      text: request.text,
    }),
    figuresPerDay(db, customerId, range.firstDay, range.lastDay, groupId),
  ]);
  // the page's rows and their extras together (two connections on PostgreSQL)
  const [rows, extras] = await Promise.all([
    transactionsByIds(db, customerId, found.ids),
    rowExtras(db, found.ids, OUTCOME_EVENTS[reportType]),
  ]);
  const data = rows.map((row): ReportTransactionWire => {
    const extra = extras.get(row.id) ?? { outcomeAt: null, uniqueClicks: 0 };
    return {
      ...transactionToWire(row),
      trans_id: row.id,
      log_date: unixSeconds(logDate(row, reportType, extra.outcomeAt)),
      trans_bounce_type: row.bounce_type ?? '',
      trans_bounce_reason:
        reportType === 'failed' || reportType === 'bounced' ? failureReason(row) : (row.bounce_reason ?? ''),
      ts_total_opens: row.open_count,
      ts_total_clicks: row.click_count,
      ts_unique_clicks: extra.uniqueClicks,
    };
  });
  return {
    transactions: { data, meta: found.meta },
    dailyStats: daysBetween(range.firstDay, range.lastDay).map((day) =>
      dailyStatToWire(day, perDay.get(day) ?? NO_FIGURES),
    ),
  };
}

export interface Figure {
  value: number;
  /** Per cent, two decimals; 0 when the base is 0. */
  percentage: number;
}

/** The figures with a share (src/lib/figures.ts SHARE_BASE names each one's base). */
type Shares = Record<ShareKey, Figure>;

export interface OverviewStats extends Shares {
  totalOpens: { value: number };
  totalClicks: { value: number };
  /** Machines' opens and clicks (tracking/machine-rules.ts), counted in none of the figures above. */
  machineOpens: { value: number };
  machineClicks: { value: number };
  /** Transactions accepted in the range. */
  total: number;
}

const SHARES: readonly ShareKey[] = [
  'sent',
  'delivered',
  'failed',
  'bounced',
  'bouncesHard',
  'bouncesSoft',
  'pending',
  'complaints',
  'uniqueOpens',
  'notOpened',
  'uniqueClicks',
  'notClicked',
];

/**
 * POST|GET /v1/transaction-groups/overview: the group's figures over the range's UTC days
 * (src/lib/figures.ts, computed by stats/figures.ts), each with the share of its base.
 */
export async function groupOverview(
  ctx: AppContext,
  customerId: number,
  groupUuid: string | undefined,
  range: ReportRange,
): Promise<{ overviewStats: OverviewStats }> {
  const { id } = await groupOf(ctx, customerId, groupUuid);
  const f = await figuresOfSlice(ctx.db, customerId, { groupId: id, firstDay: range.firstDay, lastDay: range.lastDay });
  return {
    overviewStats: {
      ...(Object.fromEntries(SHARES.map((key) => [key, shareOf(f, key)])) as Shares),
      totalOpens: { value: f.opens },
      totalClicks: { value: f.clicks },
      machineOpens: { value: f.machineOpens },
      machineClicks: { value: f.machineClicks },
      total: f.transactions,
    },
  };
}

/** A link of the Links tab (docs/console-reports.md §3 "Link row"). */
export interface LinkWire {
  tll_url: string;
  tm_subject: string;
  click_count: number;
  /** The distinct transactions that clicked it. */
  unique_click_count: number;
}

/**
 * POST v1/links and GET v1/links: one page of the group's links over the range (by the transactions' acceptance days).
 */
export async function groupLinks(
  ctx: AppContext,
  customerId: number,
  request: {
    groupUuid: string | undefined;
    range: ReportRange;
    page: number;
    perPage: number;
    sort: { key: LinkSortKey; direction: Direction };
    text: string | null;
  },
): Promise<{ data: LinkWire[]; meta: Required<contract.PageMeta> }> {
  const { db } = ctx;
  const { id: groupId } = await groupOf(ctx, customerId, request.groupUuid);
  const filter = { groupId, firstDay: request.range.firstDay, lastDay: request.range.lastDay, contains: request.text };
  const offset = (request.page - 1) * request.perPage;
  const [total, rows] = await Promise.all([
    countLinks(db, customerId, filter),
    pageLinks(
      db,
      customerId,
      filter,
      { by: LINK_ORDER_OF[request.sort.key], direction: request.sort.direction },
      request.perPage,
      offset,
    ),
  ]);
  return {
    data: rows.map((r) => ({
      tll_url: r.url,
      tm_subject: r.subject,
      click_count: r.clicks,
      unique_click_count: r.unique_clicks,
    })),
    meta: pageMeta(request.page, request.perPage, total, false),
  };
}

export type ReportBody = z.infer<typeof contract.reportBody>;

/** The report's range (defaults, 400 days at most) from a checked body. */
export function rangeOfBody(
  body: {
    start_date?: Parameters<typeof rangeOf>[0]['start_date'];
    end_date?: Parameters<typeof rangeOf>[0]['end_date'];
  },
  now = new Date(),
) {
  return reportRange(rangeOf({ start_date: body.start_date, end_date: body.end_date }), now);
}

/**
 * POST v1/transaction-groups/reports's answer to a checked body; also a report page's first page
 * of the table and its Activity series, rendered on the server from the body its island would send.
 */
export function answerGroupReport(ctx: AppContext, customerId: number, body: ReportBody): Promise<GroupReport> {
  return groupReport(ctx, customerId, {
    groupUuid: body.group_uuid,
    reportType: body.report_type,
    range: rangeOfBody(body),
    page: body.page,
    perPage: PAGE_SIZE.transactions,
    sort: reportSort(GROUP_REPORT_SORT_KEYS, body),
    text: body.search_query ?? null,
  });
}

/** The links call's answer (POST and GET v1/links) to a checked body; also the Links tab's first page. */
export function answerLinks(ctx: AppContext, customerId: number, body: Omit<ReportBody, 'report_type'>) {
  return groupLinks(ctx, customerId, {
    groupUuid: body.group_uuid,
    range: rangeOfBody(body),
    page: body.page,
    perPage: PAGE_SIZE.transactions,
    sort: reportSort(LINK_SORT_KEYS, body),
    text: body.search_query ?? null,
  });
}
