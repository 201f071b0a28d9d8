// The group report pages (docs/console-reports.md §2, §3, §7): their types, menu, titles, table columns,
// sort keys and the chart series that fit each page, and the wire shapes of the report calls.
// Browser-safe and pure, so pages (on the server) and islands read one definition.
import type { SeriesTone } from './series-colours.ts';

/** The six report pages, in menu order (docs/console-reports.md §2). */
export const REPORT_TYPES = ['overview', 'sent', 'opens', 'clicks', 'failed', 'bounced'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** The report's name in the menu and in the title 'Transaction Group: {report type}'. */
export const REPORT_LABELS: Record<ReportType, string> = {
  overview: 'Overview',
  sent: 'Sent',
  opens: 'Opens',
  clicks: 'Clicks',
  failed: 'Failed',
  bounced: 'Bounced',
};

export function isReportType(value: string): value is ReportType {
  return (REPORT_TYPES as readonly string[]).includes(value);
}

/** docs/console-reports.md §2: the title of each report page. */
export function reportTitle(type: ReportType): string {
  return `Transaction Group: ${REPORT_LABELS[type]}`;
}

/** A report page's address: the group's uuid is the second path segment (docs/console-reports.md §2). */
export function reportPath(groupUuid: string, type: ReportType): string {
  return `/groups/${encodeURIComponent(groupUuid)}/${type}`;
}

/** One transaction row of a report (docs/console-reports.md §3 "Transaction row"). Dates are unix seconds; 0 means none. */
export interface ReportTransactionWire {
  trans_uuid: string;
  trans_id: number;
  trans_date_queued: number;
  trans_date_sent: number;
  /** The moment of the row's report: failed, bounced, first open or first click. */
  log_date: number;
  trans_to_email: string;
  trans_to_name: string;
  tm_from_email: string;
  tm_from_name: string;
  tm_subject: string;
  /** 'delivered'; anything else is shown as failed (docs/console-reports.md §3). */
  trans_delivered_status: string;
  trans_status?: string;
  trans_read_count: number;
  trans_click_count: number;
  trans_bounce_type: string | null;
  trans_bounce_reason: string | null;
  ts_total_clicks: number;
  ts_unique_clicks: number;
  ts_total_opens: number;
  /** The message's custom headers as JSON text (the More Info modal). */
  tm_additional_headers?: string;
}

/** One day of a report's activity (docs/console-reports.md §3 "dailyStats entry"). */
export interface ReportDayWire {
  tstat_day: string;
  sent: number;
  failed: number;
  delivered: number;
  bounced: number;
  bounces_hard: number;
  bounces_soft: number;
  unique_opens: number;
  opens: number;
  unique_clicks: number;
  link_clicks: number;
}

/** Paging of a paged answer (docs/console.md §3). */
export interface ReportPageMeta {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  total_capped?: boolean;
}

/** POST v1/transaction-groups/reports (docs/console-reports.md §7). */
export interface ReportAnswer {
  transactions: { data: ReportTransactionWire[]; meta: ReportPageMeta };
  dailyStats: ReportDayWire[];
}

export interface StatShare {
  value: number;
  percentage: number;
}

/** overviewStats of POST /v1/transaction-groups/overview (docs/console-reports.md §3). */
export interface OverviewStatsWire {
  sent: StatShare;
  delivered: StatShare;
  failed: StatShare;
  bounced: StatShare;
  bouncesHard: StatShare;
  bouncesSoft: StatShare;
  uniqueOpens: StatShare;
  notOpened: StatShare;
  uniqueClicks: StatShare;
  notClicked: StatShare;
  totalOpens: { value: number };
  totalClicks: { value: number };
  total: number;
}

/** A link of the Clicks report (docs/console-reports.md §3 "Link row"). */
export interface LinkWire {
  tll_url: string;
  tm_subject: string;
  click_count: number;
  unique_click_count: number;
}

export interface LinkAnswer {
  data: LinkWire[];
  meta: ReportPageMeta;
}

/**
 * Sort keys of the report call (docs/console-reports.md §2 "Sort keys seen", default desc); trans_id is the
 * default order (docs/console-reports.md §9: trans_id desc, page 1), acceptance order.
 */
export type ReportSortKey = 'trans_id' | 'dateSent' | 'bounceReceivedDated' | 'firstOpenDate' | 'firstClickDate' | 'clicks' | 'opens';

/** docs/console-reports.md §2: an Export button on every page except Overview. */
export function hasExport(type: ReportType): boolean {
  return type !== 'overview';
}

/** The dailyStats fields a chart line can show, with the tone of its colour. */
export type SeriesKey = keyof Omit<ReportDayWire, 'tstat_day'>;

export interface SeriesDefinition {
  key: SeriesKey;
  name: string;
  tone: SeriesTone;
}

/** The 'Activity' chart's lines that fit each page (the issue: the dailyStats series of the page). */
export const ACTIVITY_SERIES: Record<ReportType, readonly SeriesDefinition[]> = {
  overview: [
    { key: 'sent', name: 'Sent', tone: 'sent' },
    { key: 'delivered', name: 'Delivered', tone: 'delivered' },
    { key: 'bounced', name: 'Bounced', tone: 'bounced' },
    { key: 'failed', name: 'Failed', tone: 'failed' },
    { key: 'unique_opens', name: 'Unique Opens', tone: 'opens' },
    { key: 'unique_clicks', name: 'Unique Clicks', tone: 'clicks' },
  ],
  sent: [
    { key: 'sent', name: 'Sent', tone: 'sent' },
    { key: 'delivered', name: 'Delivered', tone: 'delivered' },
  ],
  opens: [
    { key: 'opens', name: 'Opens', tone: 'opens' },
    { key: 'unique_opens', name: 'Unique Opens', tone: 'unique' },
  ],
  clicks: [
    { key: 'link_clicks', name: 'Clicks', tone: 'clicks' },
    { key: 'unique_clicks', name: 'Unique Clicks', tone: 'unique' },
  ],
  failed: [{ key: 'failed', name: 'Failed', tone: 'failed' }],
  bounced: [
    { key: 'bounced', name: 'Bounced', tone: 'bounced' },
    { key: 'bounces_hard', name: 'Hard', tone: 'hard' },
    { key: 'bounces_soft', name: 'Soft', tone: 'soft' },
  ],
};

/** The stats summary band (docs/console-reports.md §2): which overviewStats each page shows, its own first. */
export type SummaryKey = 'total' | 'sent' | 'delivered' | 'bounced' | 'failed' | 'uniqueOpens' | 'uniqueClicks';

export const SUMMARY_LABELS: Record<SummaryKey, string> = {
  total: 'Transactions',
  sent: 'Sent',
  delivered: 'Delivered',
  bounced: 'Bounced',
  failed: 'Failed',
  uniqueOpens: 'Opened',
  uniqueClicks: 'Clicked',
};

export const SUMMARY_KEYS: readonly SummaryKey[] = ['total', 'sent', 'delivered', 'bounced', 'failed', 'uniqueOpens', 'uniqueClicks'];

/** The summary entry a report page is about (highlighted in its band). */
export const PAGE_SUMMARY: Record<ReportType, SummaryKey> = {
  overview: 'total',
  sent: 'sent',
  opens: 'uniqueOpens',
  clicks: 'uniqueClicks',
  failed: 'failed',
  bounced: 'bounced',
};

/** A summary entry's value and share ('' for the total, which is the whole). */
export function summaryOf(stats: OverviewStatsWire, key: SummaryKey): { value: number; percentage: number | null } {
  if (key === 'total') return { value: stats.total, percentage: null };
  return { value: stats[key].value, percentage: stats[key].percentage };
}

/** A percentage as the widget shows it: at most one decimal, '0%' for none. */
export function percentText(percentage: number): string {
  if (!Number.isFinite(percentage)) return '0%';
  return `${Math.round(percentage * 10) / 10}%`;
}
