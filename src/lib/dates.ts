// The one date module of the console, on dayjs: every date shown and every date sent.
// Formats: 'MMMM D, YYYY' and 'MMMM D, YYYY HH:mm' in the console (docs/console.md §9), 'D MMM YYYY - HH:mm'
// in reports (docs/console-reports.md §9), 'D MMMM YYYY' for created dates and attachments, 'YYYY-MM-DD' and unix
// seconds on the wire. Every moment is shown in UTC, the zone the API counts days in (the rollups
// are keyed by UTC day): the server renders the same text as any browser in any zone or locale,
// so a server-rendered date never differs from the hydrated one (React error #418).
import dayjs, { type Dayjs, type PluginFunc } from 'dayjs';

// The fields and steps of a dayjs instance this module's UTC support uses (dayjs's own names, as
// its plugins use them; dayjs's typings leave them out)
declare module 'dayjs' {
  interface Dayjs {
    $d: Date;
    $u?: boolean;
    $y: number;
    $M: number;
    $D: number;
    $W: number;
    $H: number;
    $m: number;
    $s: number;
    $ms: number;
    parse(cfg: { utc?: boolean }): void;
    init(): void;
  }
}

/**
 * UTC moments without dayjs's utc plugin (1 KiB gz of the dashboard's 100 KiB script budget, for
 * methods this module never calls): dayjs's core already keeps the `$u` flag through clones and
 * honours it in startOf/endOf, add and set, and parses `dayjs(text, { utc: true })` as UTC; this
 * sets the flag from that option and reads the fields with the UTC getters.
 */
const utcFields: PluginFunc = (_option, Dayjs) => {
  const proto = Dayjs.prototype;
  const { parse, init } = proto;
  proto.parse = function (this: Dayjs, cfg) {
    this.$u = cfg.utc === true;
    parse.call(this, cfg);
  };
  proto.init = function (this: Dayjs) {
    if (!this.$u) return init.call(this);
    const d = this.$d;
    [this.$y, this.$M, this.$D, this.$W] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCDay()];
    [this.$H, this.$m, this.$s, this.$ms] = [
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds(),
    ];
  };
};
dayjs.extend(utcFields);

/** A moment (Date, epoch milliseconds or a 'YYYY-MM-DD…' text read as UTC) as a UTC dayjs. */
function utc(at: Date | number | string): Dayjs {
  return dayjs(at, { utc: true });
}

/** docs/console.md §9: the default range is 29 days back to today. */
export const DEFAULT_RANGE_DAYS_BACK = 29;

/** A range of whole days, both ends 'YYYY-MM-DD' (docs/console.md §9, the API date format). */
export interface DayRange {
  start: string;
  end: string;
}

/** The wire format of a day (docs/console.md §9). */
export const WIRE_DAY = 'YYYY-MM-DD';
/** The console's day (docs/console.md §9). */
export const CONSOLE_DAY = 'MMMM D, YYYY';
/** The console's moment. */
export const CONSOLE_MOMENT = 'MMMM D, YYYY HH:mm';
/** Reports' moment (docs/console-reports.md §9). */
export const REPORT_MOMENT = 'D MMM YYYY - HH:mm';
/** Created dates and attachments (docs/console-reports.md §9). */
export const LONG_DAY = 'D MMMM YYYY';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A wire day as a UTC dayjs at midnight, or undefined when `day` is no calendar day 'YYYY-MM-DD'. */
function parseDay(day: string): Dayjs | undefined {
  const d = DAY.test(day) ? utc(day) : undefined;
  return d?.isValid() && d.format(WIRE_DAY) === day ? d : undefined;
}

/** True when `day` is a calendar day 'YYYY-MM-DD' (2028-02-29 is, 2027-02-29 is not). */
export function isWireDay(day: string): boolean {
  return parseDay(day) !== undefined;
}

/** A wire day as a UTC dayjs at midnight; throws on anything else. */
function dayOf(day: string): Dayjs {
  const d = parseDay(day);
  if (!d) throw new Error(`not a day: ${day}`);
  return d;
}

/** Unix seconds as a UTC dayjs. */
export function utcMoment(unixSeconds: number): Dayjs {
  return utc(unixSeconds * 1000);
}

/** Unix seconds in `format`, in UTC; '-' for 0 or less (no such moment). */
export function formatUnix(unixSeconds: number, format: string): string {
  return unixSeconds > 0 ? utcMoment(unixSeconds).format(format) : '-';
}

/** Unix seconds `n` UTC days later (a proposed expiry a week ahead). */
export function addDaysToMoment(unixSeconds: number, n: number): number {
  return utcMoment(unixSeconds).add(n, 'day').unix();
}

/** The UTC day of a moment, 'YYYY-MM-DD'. */
export function utcDay(at: Date): string {
  return utc(at).format(WIRE_DAY);
}

/** `day` moved by `n` days. */
export function addDays(day: string, n: number): string {
  return dayOf(day).add(n, 'day').format(WIRE_DAY);
}

/** The default range ending on `today` ('YYYY-MM-DD'): the 29 days before it and the day itself. */
export function rangeEndingOn(today: string): DayRange {
  return { start: addDays(today, -DEFAULT_RANGE_DAYS_BACK), end: dayOf(today).format(WIRE_DAY) };
}

/** The default range (docs/console.md §2, §9): the last 29 days through today (UTC days). */
export function defaultRange(now: Date): DayRange {
  return rangeEndingOn(utcDay(now));
}

/** The date range picker's presets (Postmark's and Resend's): named ranges ending on or before `today`. */
export function presetRanges(today: string): { label: string; range: DayRange }[] {
  const day = dayOf(today);
  const monthStart = day.startOf('month');
  const lastMonth = monthStart.subtract(1, 'month');
  const wire = (d: Dayjs) => d.format(WIRE_DAY);
  return [
    { label: 'Today', range: { start: today, end: today } },
    { label: 'Last 7 days', range: { start: addDays(today, -6), end: today } },
    { label: 'Last 30 days', range: rangeEndingOn(today) },
    { label: 'This month', range: { start: wire(monthStart), end: today } },
    { label: 'Last month', range: { start: wire(lastMonth), end: wire(lastMonth.endOf('month')) } },
  ];
}

/** A range as unix seconds, start of its first day to the end of its last (docs/console-reports.md §7, reports). */
export function rangeToUnix(range: DayRange): { start_date: number; end_date: number } {
  return { start_date: dayOf(range.start).unix(), end_date: dayOf(range.end).endOf('day').unix() };
}

/** A calendar day as a local Date at midnight (what a date picker shows as that day). */
export function localDate(day: string): Date {
  const d = dayOf(day);
  return new Date(d.year(), d.month(), d.date());
}

/** The calendar day a local Date stands for (a day picked in a date picker), 'YYYY-MM-DD'. */
export function dayOfLocalDate(date: Date): string {
  return dayjs(date).format(WIRE_DAY);
}

/** A day 'YYYY-MM-DD' as 'MMMM D, YYYY'. */
export function formatDay(day: string): string {
  return dayOf(day).format(CONSOLE_DAY);
}

/** A range as the picker shows it: 'March 1, 2025 - March 30, 2025'. */
export function formatRange(range: DayRange): string {
  return `${formatDay(range.start)} - ${formatDay(range.end)}`;
}

/** Unix seconds as 'MMMM D, YYYY' (UTC). */
export function formatDate(unixSeconds: number): string {
  return utcMoment(unixSeconds).format(CONSOLE_DAY);
}

/** Unix seconds as 'HH:mm' (UTC). */
export function formatTime(unixSeconds: number): string {
  return utcMoment(unixSeconds).format('HH:mm');
}

/** Unix seconds as 'MMMM D, YYYY HH:mm' (UTC; docs/console.md §9). */
export function formatDateTime(unixSeconds: number): string {
  return utcMoment(unixSeconds).format(CONSOLE_MOMENT);
}

/** Unix seconds as 'MMMM D, YYYY HH:mm:ss' (UTC; the modal and the timeline). */
export function formatMoment(unixSeconds: number): string {
  return utcMoment(unixSeconds).format(`${CONSOLE_MOMENT}:ss`);
}

/** Unix seconds as 'D MMM YYYY - HH:mm' (UTC; reports, docs/console-reports.md §9); '-' for 0. */
export function formatReportDate(unixSeconds: number): string {
  return formatUnix(unixSeconds, REPORT_MOMENT);
}

/** Unix seconds as 'D MMMM YYYY' (UTC; created dates and attachments, docs/console-reports.md §9); '-' for 0. */
export function formatLongDate(unixSeconds: number): string {
  return formatUnix(unixSeconds, LONG_DAY);
}

/** Unix seconds as 'DD MMMM YYYY' (docs/console.md §2, the groups table); '-' for 0, none. */
export function formatGroupDate(unixSeconds: number): string {
  return formatUnix(unixSeconds, 'DD MMMM YYYY');
}

/** An ISO 8601 text (as the API sends created timestamps) as unix seconds; 0 when it is not a date. */
export function unixOfIso(iso: string): number {
  const d = dayjs(iso);
  return d.isValid() ? d.unix() : 0;
}

/** Unix seconds as ISO 8601, for <time datetime>. */
export function isoOf(unixSeconds: number): string {
  return utcMoment(unixSeconds).toISOString();
}

/** 'Mar 1': a chart's axis label for a day. */
export function shortDay(day: string): string {
  return dayOf(day).format('MMM D');
}
