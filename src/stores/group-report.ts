// One group report page (docs/console-reports.md §2, §4, §7, §8): which group and report, the table's query
// (search, sort, page) and its rows, the Activity series, the overview stats (summary band, pies
// and the donut widget), the Clicks report's links, and Export. One report per page, so one
// module-level store; the date range is date-range.ts's (last 29 days through today by default),
// and a new range reloads everything from page 1 (§4: stats reload when the range changes).
import { atom } from 'nanostores';
import type { GroupReportType } from '../contract/values.ts';
import { call } from '../lib/api.ts';
import { type Timers, realTimers, watchForAnswer } from '../lib/answer-watch.ts';
import { type DayRange, rangeToUnix } from '../lib/dates.ts';
import {
  FIRST_REPORT_QUERY,
  type LinkWire,
  type OverviewStatsWire,
  type ReportDayWire,
  type ReportQuery,
  type ReportSortKey,
  type ReportTransactionWire,
  linkFieldsFor,
  reportBodyFor,
} from '../lib/group-report.ts';
import { EXPORT_ALERT_MS, OVERVIEW_RETRY_MS, REPORT_SEARCH_DEBOUNCE_MS } from '../lib/timings.ts';
import { showAlert } from './alerts.ts';
import { chosenRange, currentRange } from './date-range.ts';
import { type ListState, listQuery, nextSort, pageLoader } from './list-state.ts';

export interface ActivityState {
  status: 'loading' | 'loaded' | 'failed';
  days: ReportDayWire[];
}

/**
 * The overview stats: 'waiting' until the first answer ('No Data'), 'late' once 45 s passed
 * without one (the Retry button, docs/console-reports.md §4), 'failed' when the call failed.
 */
export interface OverviewState {
  status: 'waiting' | 'late' | 'loaded' | 'failed';
  stats: OverviewStatsWire | null;
}

/** docs/console-reports.md §8: the Export alerts, shown for 6 s (§9). */
export const EXPORT_QUEUED =
  'Report queued successfully. We will send you an email when your report is ready to download.';
export const EXPORT_FAILED = 'An error occurred when queuing the report. Please try again.';

/** What a list shows before its first answer (and what the server renders). */
export const LOADING_LIST = { status: 'loading', data: [], meta: null } as const satisfies ListState<never>;
/** What the overview widgets show before the first answer (and what the server renders). */
export const WAITING_OVERVIEW: OverviewState = { status: 'waiting', stats: null };

export const reportList = atom<ListState<ReportTransactionWire>>(LOADING_LIST);
export const activity = atom<ActivityState>({ status: 'loading', days: [] });
export const overviewStats = atom<OverviewState>(WAITING_OVERVIEW);
export const linkPage = atom(1);
export const linkList = atom<ListState<LinkWire>>(LOADING_LIST);
export const exporting = atom(false);

let report: { groupUuid: string; type: GroupReportType } | null = null;
const started = { table: false, overview: false, links: false };
let latestReport = 0;
let latestOverview = 0;
let activityRange = '';
let overviewTimers: Timers = realTimers;

/**
 * Each island names the page's group and report when it mounts (in an effect: never on the server); the first one sets
 * them.
 */
export function openReport(groupUuid: string, type: GroupReportType): void {
  report ??= { groupUuid, type };
}

function reportOf(): { groupUuid: string; type: GroupReportType } {
  if (!report) throw new Error('openReport() was not called');
  return report;
}

const rangeKey = (range: DayRange) => `${range.start}/${range.end}`;

/** POST v1/transaction-groups/reports's body for the query in effect. */
export function reportBody(q: ReportQuery = reportQuery.get()) {
  const { groupUuid, type } = reportOf();
  return reportBodyFor(groupUuid, type, currentRange(), q);
}

/**
 * The table's or the chart's island mounted with what the server rendered from the first answer
 *: both render from the same call, so neither loads it again.
 */
export function reportRendered(range: DayRange): void {
  if (started.table) return; // already loading or loaded, perhaps for a newer range
  started.table = true;
  activityRange = rangeKey(range);
}

/** Loads the table's page and the Activity series; an answer to an older request is dropped. */
export async function loadReport(): Promise<void> {
  const request = ++latestReport;
  const range = rangeKey(currentRange());
  reportList.set({ ...reportList.get(), status: 'loading' });
  if (range !== activityRange) activity.set({ ...activity.get(), status: 'loading' });
  try {
    const answer = await call('POST /v1/transaction-groups/reports', { body: reportBody() });
    if (request !== latestReport) return;
    reportList.set({ status: 'loaded', data: answer.transactions.data, meta: answer.transactions.meta });
    // the series depends on the range only: paging, sorting and searching leave the chart alone
    if (range !== activityRange || activity.get().status !== 'loaded') {
      activityRange = range;
      activity.set({ status: 'loaded', days: answer.dailyStats });
    }
  } catch {
    // docs/console-reports.md §8: report load failures are swallowed silently; the table offers a retry
    if (request !== latestReport) return;
    reportList.set({ status: 'failed', data: [], meta: null });
    if (activity.get().status !== 'loaded' || range !== activityRange) activity.set({ status: 'failed', days: [] });
  }
}

/** The table's and the chart's islands mounted: the first load happens once. */
export function startReport(): void {
  if (started.table) return;
  started.table = true;
  void loadReport();
}

/**
 * Loads the overview stats (POST /v1/transaction-groups/overview, docs/console-reports.md §7). The widget shows
 * 'No Data' until they arrive and a Retry button after 45 s without an answer (§2, §4).
 */
export async function loadOverviewStats(): Promise<void> {
  const request = ++latestOverview;
  const { groupUuid, type } = reportOf();
  const previous = overviewStats.get();
  overviewStats.set({ status: previous.stats ? 'loaded' : 'waiting', stats: previous.stats });
  const answered = watchForAnswer(
    OVERVIEW_RETRY_MS,
    () => {
      if (request === latestOverview && overviewStats.get().status === 'waiting')
        overviewStats.set({ status: 'late', stats: null });
    },
    overviewTimers,
  );
  try {
    const answer = await call('POST /v1/transaction-groups/overview', {
      body: { group_uuid: groupUuid, report_type: type, ...rangeToUnix(currentRange()) },
    });
    if (request === latestOverview) overviewStats.set({ status: 'loaded', stats: answer.overviewStats });
  } catch {
    if (request === latestOverview) overviewStats.set({ status: 'failed', stats: null });
  } finally {
    answered();
  }
}

/** The summary band, pies and donut mounted: the stats load once (`timers`: tests move the clock). */
export function startOverviewStats(timers: Timers = realTimers): void {
  overviewTimers = timers;
  if (started.overview) return;
  started.overview = true;
  void loadOverviewStats();
}

/**
 * The Clicks report's links (docs/console-reports.md §7): POST v1/links with the report body for the first
 * page, GET v1/links with the same fields in the query string for the pages after it.
 */
export const loadLinks = pageLoader(linkList, () => {
  const page = linkPage.get();
  const { groupUuid, type } = reportOf();
  const fields = linkFieldsFor(groupUuid, type, currentRange(), page);
  return page === 1 ? call('POST /v1/links', { body: fields }) : call('GET /v1/links', { query: fields });
});

/** The Links tab mounted: its first page, unless the server rendered it. */
export function startLinks(rendered = false): void {
  if (started.links) return;
  started.links = true;
  if (!rendered) void loadLinks();
}

export function goToLinkPage(page: number): void {
  if (page === linkPage.get()) return;
  linkPage.set(page);
  void loadLinks();
}

const reportTable = listQuery<ReportQuery>({
  first: FIRST_REPORT_QUERY,
  searchField: 'text',
  // docs/console.md §9: report filters 500 ms
  searchPauseMs: REPORT_SEARCH_DEBOUNCE_MS,
  load: loadReport,
});
export const {
  query: reportQuery,
  searchText: reportSearchText,
  typeSearch: typeReportSearch,
  goToPage: goToReportPage,
} = reportTable;

/**
 * A sortable header: the same column toggles asc/desc, another starts desc (docs/console-reports.md §2 "default
 * desc"); page 1 (§4). `standsForDefault` is the date column, which also stands for the default
 * trans_id order, so its first click turns the newest-first table round.
 */
export function sortReport(key: ReportSortKey, standsForDefault = false): void {
  const { sort } = reportQuery.get();
  const same = sort.key === key || (standsForDefault && sort.key === 'trans_id');
  reportTable.changeQuery({ sort: nextSort(sort, key, same), page: 1 });
}

/**
 * Export (docs/console-reports.md §2, §7, §8): POST v1/transaction-groups/reports/export with the report's
 * body and isExport true; 200 means queued. Either way an alert for 6 s.
 */
export async function exportReport(): Promise<void> {
  if (exporting.get()) return;
  exporting.set(true);
  try {
    await call('POST /v1/transaction-groups/reports/export', { body: { ...reportBody(), isExport: true } });
    showAlert('success', EXPORT_QUEUED, EXPORT_ALERT_MS);
  } catch {
    showAlert('danger', EXPORT_FAILED, EXPORT_ALERT_MS);
  } finally {
    exporting.set(false);
  }
}

// a new date range: every part of the page follows it, the tables from page 1
chosenRange.listen(() => {
  if (!report) return;
  if (started.table) reportTable.changeQuery({ page: 1 });
  if (started.overview) void loadOverviewStats();
  if (started.links) {
    linkPage.set(1);
    void loadLinks();
  }
});
