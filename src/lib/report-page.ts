// The group a report page is about (docs/console-reports.md §2: the group id is the second path segment),
// decided on the server before anything renders: null for a malformed, unknown or another
// customer's group, and the page then answers 404 (never another account's data). Also the first
// answers of its report calls, rendered on the server.
import type { PageMeta } from '../contract/reports.ts';
import type { GroupReportType } from '../contract/values.ts';
import { type DayRange, rangeEndingOn, utcDay } from './dates.ts';
import { firstPage } from './first-page.ts';
import {
  type LinkAnswer,
  type ReportAnswer,
  type ReportDayWire,
  type ReportTransactionWire,
  linkFieldsFor,
  reportBodyFor,
} from './group-report.ts';

export interface ReportGroup {
  group_uuid: string;
  group_name: string;
}

export async function reportGroupOf(locals: App.Locals, hash: string | undefined): Promise<ReportGroup | null> {
  const customerId = locals.session?.customer?.customer_id;
  if (!locals.bridge || customerId === undefined || !hash) return null;
  return locals.bridge.reportGroup(customerId, hash);
}

/** The day the server takes for today (the page bridge's: CONSOLE_TODAY or the clock's UTC day). */
export function serverToday(locals: App.Locals): string {
  return locals.bridge?.today() ?? utcDay(new Date());
}

/** A report page's first answer, rendered on the server: the table's first page and the Activity series. */
export interface FirstReport {
  table: { data: ReportTransactionWire[]; meta: PageMeta; range: DayRange };
  activity: { days: ReportDayWire[]; range: DayRange };
}

/**
 * The report call the page's islands would make first (the default range, the default query),
 * made on the server through the page bridge; null when it fails (the islands then make it).
 */
export async function firstReport(
  locals: App.Locals,
  groupUuid: string,
  type: GroupReportType,
): Promise<FirstReport | null> {
  const range = rangeEndingOn(serverToday(locals));
  const answer: ReportAnswer | null = await firstPage(locals, (pages, customerId) =>
    pages.groupReport(customerId, reportBodyFor(groupUuid, type, range)),
  );
  if (!answer) return null;
  return { table: { ...answer.transactions, range }, activity: { days: answer.dailyStats, range } };
}

/** The Clicks report's Links tab's first page, made on the server through the page bridge; null when it fails. */
export function firstLinks(locals: App.Locals, groupUuid: string): Promise<LinkAnswer | null> {
  const range = rangeEndingOn(serverToday(locals));
  return firstPage(locals, (pages, customerId) => pages.links(customerId, linkFieldsFor(groupUuid, 'clicks', range)));
}
