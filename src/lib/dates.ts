// Dates of the Dashboard and Transactions pages (spec core §9): ranges shown 'MMMM D, YYYY' and
// sent as 'YYYY-MM-DD', the default range the last 29 days through today, group dates
// 'DD MMMM YYYY' (§2). Range days are UTC days, as the API counts them (report-input.ts: the
// daily_stats rollup is keyed by UTC day), so server and browser agree on "today"; moments
// (a transaction's sent date) are shown in the browser's time zone. Formatted by hand: dayjs would
// add 3 KB gzipped to pages whose JavaScript budget is 100 KB, for five fixed formats.

/** Spec core §9: the default range is 29 days back to today. */
export const DEFAULT_RANGE_DAYS_BACK = 29;

/** A range of whole days, both ends 'YYYY-MM-DD' (spec core §9, the API date format). */
export interface DayRange {
  start: string;
  end: string;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const pad = (n: number) => String(n).padStart(2, '0');
const moment = (unixSeconds: number) => new Date(unixSeconds * 1000);
/** 'MMMM D, YYYY' of a local Date (spec core §9, the date display). */
const spelled = (d: Date) => `${MONTHS[d.getMonth()]} ${d.getDate()}, ${d.getFullYear()}`;
/** 'HH:mm' of a local Date. */
const clock = (d: Date) => `${pad(d.getHours())}:${pad(d.getMinutes())}`;

/** The UTC day of a moment, 'YYYY-MM-DD'. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** `day` moved by `n` days. */
export function addDays(day: string, n: number): string {
  return utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000));
}

/** The default range (spec core §2, §9): the last 29 days through today. */
export function defaultRange(now: Date): DayRange {
  const end = utcDay(now);
  return { start: addDays(end, -DEFAULT_RANGE_DAYS_BACK), end };
}

/** A calendar day as a local Date at midnight (what a date picker shows as that day). */
export function localDate(day: string): Date {
  const m = DAY.exec(day);
  if (!m) throw new Error(`not a day: ${day}`);
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
}

/** The calendar day a local Date stands for (a day picked in a date picker), 'YYYY-MM-DD'. */
export function dayOfLocalDate(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** A day 'YYYY-MM-DD' as 'MMMM D, YYYY'. */
export function formatDay(day: string): string {
  return spelled(localDate(day));
}

/** A range as the picker shows it: 'March 1, 2025 - March 30, 2025'. */
export function formatRange(range: DayRange): string {
  return `${formatDay(range.start)} - ${formatDay(range.end)}`;
}

/** Unix seconds as 'MMMM D, YYYY' in the browser's zone. */
export function formatDate(unixSeconds: number): string {
  return spelled(moment(unixSeconds));
}

/** Unix seconds as 'HH:mm' in the browser's zone. */
export function formatTime(unixSeconds: number): string {
  return clock(moment(unixSeconds));
}

/** Unix seconds as 'MMMM D, YYYY HH:mm:ss' in the browser's zone (the modal and the timeline). */
export function formatMoment(unixSeconds: number): string {
  const d = moment(unixSeconds);
  return `${spelled(d)} ${clock(d)}:${pad(d.getSeconds())}`;
}

/** Unix seconds as 'DD MMMM YYYY' (spec core §2, the groups table); '-' for 0, none. */
export function formatGroupDate(unixSeconds: number): string {
  if (unixSeconds <= 0) return '-';
  const d = moment(unixSeconds);
  return `${pad(d.getDate())} ${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
}

/** Unix seconds as ISO 8601, for <time datetime>. */
export function isoOf(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString();
}

/** 'Mar 1': a chart's axis label for a day. */
export function shortDay(day: string): string {
  const d = localDate(day);
  return `${MONTHS[d.getMonth()].slice(0, 3)} ${d.getDate()}`;
}
