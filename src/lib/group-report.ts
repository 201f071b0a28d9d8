// The group report pages (docs/console-reports.md §2, §3, §7): their types, menu, titles, table columns,
// sort keys and the chart series that fit each page, and the wire shapes of the report calls.
// Browser-safe and pure, so pages (on the server) and islands read one definition.
import type { AnswerOf } from '../contract/client.ts';
import type { GroupReportType } from '../contract/values.ts';
import { type DayRange, rangeToUnix } from './dates.ts';
import type { SeriesTone } from './series-colours.ts';
import type { SearchQuery } from './wire.ts';

/**
 * The six report pages, in menu order (docs/console-reports.md §2), one per GroupReportType. Held here
 * rather than imported from src/contract/values.ts so the report pages' scripts share no chunk with
 * other pages'; kept to the contract's members both ways by the types.
 */
export const REPORT_PAGES = [
  'overview',
  'sent',
  'opens',
  'clicks',
  'failed',
  'bounced',
] as const satisfies readonly GroupReportType[];
// and every member of the contract's is in the list: a new one is a type error here until the menu has it
true satisfies [Exclude<GroupReportType, (typeof REPORT_PAGES)[number]>] extends [never] ? true : never;

/** The report's name in the menu and in the title 'Transaction Group: {report type}'. */
export const REPORT_LABELS: Record<GroupReportType, string> = {
  overview: 'Overview',
  sent: 'Sent',
  opens: 'Opens',
  clicks: 'Clicks',
  failed: 'Failed',
  bounced: 'Bounced',
};

/** Whether a path segment names one of the report types (the report page is 404 otherwise). */
export function isReportType(value: string): value is GroupReportType {
  return (REPORT_PAGES as readonly string[]).includes(value);
}

/** docs/console-reports.md §2: the title of each report page. */
export function reportTitle(type: GroupReportType): string {
  return `Transaction Group: ${REPORT_LABELS[type]}`;
}

/** A report page's address: the group's uuid is the second path segment (docs/console-reports.md §2). */
export function reportPath(groupUuid: string, type: GroupReportType): string {
  return `/groups/${encodeURIComponent(groupUuid)}/${type}`;
}

// The wire shapes of the report calls, from the contract's answer schemas (src/contract/reports.ts)
/** POST v1/transaction-groups/reports (docs/console-reports.md §7). */
export type ReportAnswer = AnswerOf<'POST /v1/transaction-groups/reports'>;
/**
 * One transaction row of a report (docs/console-reports.md §3 "Transaction row"). Dates are unix seconds; 0 means none.
 */
export type ReportTransactionWire = ReportAnswer['transactions']['data'][number];
/** One day of a report's activity (docs/console-reports.md §3 "dailyStats entry"). */
export type ReportDayWire = ReportAnswer['dailyStats'][number];
/** overviewStats of POST /v1/transaction-groups/overview (docs/console-reports.md §3). */
export type OverviewStatsWire = AnswerOf<'POST /v1/transaction-groups/overview'>['overviewStats'];
export type StatShare = OverviewStatsWire['sent'];
/** The Clicks report's links (docs/console-reports.md §3 "Link row"). */
export type LinkAnswer = AnswerOf<'POST /v1/links'>;
export type LinkWire = LinkAnswer['data'][number];

/**
 * Sort keys of the report call (docs/console-reports.md §2 "Sort keys seen", default desc); trans_id is the
 * default order (docs/console-reports.md §9: trans_id desc, page 1), acceptance order.
 */
export type ReportSortKey =
  | 'trans_id'
  | 'dateSent'
  | 'bounceReceivedDated'
  | 'firstOpenDate'
  | 'firstClickDate'
  | 'clicks'
  | 'opens';

/** docs/console-reports.md §2: an Export button on every page except Overview. */
export function hasExport(type: GroupReportType): boolean {
  return type !== 'overview';
}

/** The dailyStats fields a chart line can show, with the tone of its colour. */
export type SeriesKey = keyof Omit<ReportDayWire, 'tstat_day' | 'requests'>;

export interface SeriesDefinition {
  key: SeriesKey;
  name: string;
  tone: SeriesTone;
}

// the delivery outcomes' lines: the Overview shows them all, the Sent, Failed and Bounced pages their own
const SENT: SeriesDefinition = { key: 'sent', name: 'Sent', tone: 'sent' };
const DELIVERED: SeriesDefinition = { key: 'delivered', name: 'Delivered', tone: 'delivered' };
const BOUNCED: SeriesDefinition = { key: 'bounced', name: 'Bounced', tone: 'bounced' };
const FAILED: SeriesDefinition = { key: 'failed', name: 'Failed', tone: 'failed' };

/** The 'Activity' chart's lines that fit each page: the dailyStats series of what the page reports. */
export const ACTIVITY_SERIES: Record<GroupReportType, readonly SeriesDefinition[]> = {
  overview: [
    SENT,
    DELIVERED,
    BOUNCED,
    FAILED,
    { key: 'unique_opens', name: 'Unique Opens', tone: 'opens' },
    { key: 'unique_clicks', name: 'Unique Clicks', tone: 'clicks' },
  ],
  sent: [SENT, DELIVERED],
  // people's opens and clicks, and machines' beside them (src/server/tracking/machine-rules.ts)
  opens: [
    { key: 'opens', name: 'Opens', tone: 'opens' },
    { key: 'unique_opens', name: 'Unique Opens', tone: 'unique' },
    { key: 'machine_opens', name: 'By Machines', tone: 'machines' },
  ],
  clicks: [
    { key: 'link_clicks', name: 'Clicks', tone: 'clicks' },
    { key: 'unique_clicks', name: 'Unique Clicks', tone: 'unique' },
    { key: 'machine_clicks', name: 'By Machines', tone: 'machines' },
  ],
  failed: [FAILED],
  bounced: [
    BOUNCED,
    { key: 'bounces_hard', name: 'Hard', tone: 'hard' },
    { key: 'bounces_soft', name: 'Soft', tone: 'soft' },
  ],
};

/** The stats summary band (docs/console-reports.md §2): which overviewStats each page shows, its own first. */
export type SummaryKey =
  | 'total'
  | 'sent'
  | 'delivered'
  | 'bounced'
  | 'complaints'
  | 'failed'
  | 'pending'
  | 'uniqueOpens'
  | 'uniqueClicks';

export const SUMMARY_LABELS: Record<SummaryKey, string> = {
  total: 'Transactions',
  sent: 'Sent',
  delivered: 'Delivered',
  bounced: 'Bounced',
  complaints: 'Complaints',
  failed: 'Failed',
  pending: 'Pending',
  uniqueOpens: 'Opened',
  uniqueClicks: 'Clicked',
};

export const SUMMARY_KEYS: readonly SummaryKey[] = [
  'total',
  'sent',
  'delivered',
  'bounced',
  // beside the bounces: spam complaints and their share of the delivered (the complaint rate)
  'complaints',
  'failed',
  'pending',
  'uniqueOpens',
  'uniqueClicks',
];

/** The summary entry a report page is about (highlighted in its band). */
export const PAGE_SUMMARY: Record<GroupReportType, SummaryKey> = {
  overview: 'total',
  sent: 'sent',
  opens: 'uniqueOpens',
  clicks: 'uniqueClicks',
  failed: 'failed',
  bounced: 'bounced',
};

/**
 * The machines' opens or clicks shown under the Opened and Clicked figures (counted in neither:
 * src/server/tracking/machine-rules.ts); null for the other entries and when there are none.
 */
export function machinesOf(stats: OverviewStatsWire, key: SummaryKey): number | null {
  const value =
    key === 'uniqueOpens' ? stats.machineOpens.value : key === 'uniqueClicks' ? stats.machineClicks.value : 0;
  return value > 0 ? value : null;
}

/** A summary entry's value and share ('' for the total, which is the whole). */
export function summaryOf(stats: OverviewStatsWire, key: SummaryKey): { value: number; percentage: number | null } {
  if (key === 'total') return { value: stats.total, percentage: null };
  return { value: stats[key].value, percentage: stats[key].percentage };
}

/**
 * A percentage as the widget shows it: at most one decimal (two for the complaint rate, which is
 * worth watching at a fraction of a per cent), '0%' for none.
 */
export function percentText(percentage: number, of: SummaryKey | 'other' = 'other'): string {
  if (!Number.isFinite(percentage)) return '0%';
  const scale = of === 'complaints' ? 100 : 10;
  return `${Math.round(percentage * scale) / scale}%`;
}

/** A report table's query: page, search text and sort. */
export type ReportQuery = SearchQuery<ReportSortKey>;

/** docs/console-reports.md §9: default report sort trans_id desc, page 1. */
export const FIRST_REPORT_QUERY: ReportQuery = { page: 1, text: '', sort: { key: 'trans_id', direction: 'desc' } };

/**
 * POST v1/transaction-groups/reports's body (docs/console-reports.md §7) for a report, range and query: the
 * store sends it, and the page renders the first one on the server with it.
 */
export function reportBodyFor(
  groupUuid: string,
  type: GroupReportType,
  range: DayRange,
  q: ReportQuery = FIRST_REPORT_QUERY,
) {
  return {
    report_type: type,
    group_uuid: groupUuid,
    // start of the range's first day to the end of its last, unix seconds (docs/console-reports.md §7)
    ...rangeToUnix(range),
    page: q.page,
    // as the transaction search: order the direction, order_by the key (the server also reads docs/console-reports.md
    // §9's swapped form)
    order: q.sort.direction,
    order_by: q.sort.key,
    search_query: q.text,
  };
}

/**
 * The links call's fields (docs/console-reports.md §7) for a report, range and page; the Links tab's first page renders
 * on the server with them.
 */
export function linkFieldsFor(groupUuid: string, type: GroupReportType, range: DayRange, page = 1) {
  return { report_type: type, group_uuid: groupUuid, ...rangeToUnix(range), page };
}
