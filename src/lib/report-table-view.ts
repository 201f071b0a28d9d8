// How a group report's table reads (docs/console-reports.md §2, §3, §9): each report's columns with their
// headers and sort keys, and how a row's cells read. Apart from group-report.ts so that only the
// table's island (loaded when the table comes into view) carries it. Pure.
import type { GroupReportType } from '../contract/values.ts';
import type { ReportSortKey, ReportTransactionWire } from './group-report.ts';

/** The column of a report table: its header, how a row reads, and the sort key behind it. */
export type ReportColumn =
  | 'date_sent'
  | 'date_failed'
  | 'date_bounced'
  | 'first_open'
  | 'first_click'
  | 'from'
  | 'to'
  | 'subject'
  | 'status'
  | 'reason'
  | 'bounce_type'
  | 'total_opens'
  | 'total_clicks'
  | 'unique_clicks';

export interface ColumnDefinition {
  label: string;
  sort?: ReportSortKey;
}

export const COLUMNS: Record<ReportColumn, ColumnDefinition> = {
  date_sent: { label: 'Date Sent', sort: 'dateSent' },
  // the report call has no failure-date key: acceptance order (the default) stands in for it
  date_failed: { label: 'Date Failed', sort: 'trans_id' },
  date_bounced: { label: 'Date Bounced', sort: 'bounceReceivedDated' },
  first_open: { label: 'First Open Date', sort: 'firstOpenDate' },
  first_click: { label: 'First Clicked Date', sort: 'firstClickDate' },
  from: { label: 'From' },
  to: { label: 'To Email' },
  subject: { label: 'Subject' },
  status: { label: 'Status' },
  reason: { label: 'Reason' },
  bounce_type: { label: 'Type' },
  total_opens: { label: 'Total Opens', sort: 'opens' },
  total_clicks: { label: 'Total Clicks', sort: 'clicks' },
  unique_clicks: { label: 'Unique Clicks' },
};

/**
 * Each report's table columns (docs/console-reports.md §2): Sent: date sent, from, subject, to, status;
 * Failed: Date Failed, To Email, Subject, Reason; Bounced: Date Bounced, To Email, Subject, Type,
 * Reason; Opens: First Open Date, To Email, Subject, Total Opens; Clicks by recipient: First Clicked
 * Date, To Email, Subject, Total Clicks, Unique Clicks. Overview's 'Latest Sent Transactions' is
 * the Sent table (the spec names no columns for it).
 */
export const REPORT_COLUMNS: Record<GroupReportType, readonly ReportColumn[]> = {
  overview: ['date_sent', 'from', 'subject', 'to', 'status'],
  sent: ['date_sent', 'from', 'subject', 'to', 'status'],
  failed: ['date_failed', 'to', 'subject', 'reason'],
  bounced: ['date_bounced', 'to', 'subject', 'bounce_type', 'reason'],
  opens: ['first_open', 'to', 'subject', 'total_opens'],
  clicks: ['first_click', 'to', 'subject', 'total_clicks', 'unique_clicks'],
};

/** docs/console-reports.md §2: Overview and Sent tables have a More Info modal per transaction. */
export function hasMoreInfo(type: GroupReportType): boolean {
  return type === 'overview' || type === 'sent';
}

/**
 * The delivery status a Sent row shows (docs/console-reports.md §3: 'delivered'; anything else is shown as
 * failed), with the tone of its dot; a bounce reads Bounced in amber like the transaction table,
 * and a message still waiting reads Queued.
 */
export function reportStatus(row: Pick<ReportTransactionWire, 'trans_delivered_status' | 'trans_status'>): {
  label: string;
  tone: 'delivered' | 'bounced' | 'failed';
} {
  if (row.trans_delivered_status === 'delivered') return { label: 'Delivered', tone: 'delivered' };
  if (row.trans_delivered_status === 'bounced') return { label: 'Bounced', tone: 'bounced' };
  if (row.trans_delivered_status === 'pending' && (row.trans_status === undefined || row.trans_status === 'queued'))
    return { label: 'Queued', tone: 'failed' };
  return { label: 'Failed', tone: 'failed' };
}

/** 'Name <email>', or the bare address. */
export function fromText(row: Pick<ReportTransactionWire, 'tm_from_email' | 'tm_from_name'>): string {
  return row.tm_from_name ? `${row.tm_from_name} <${row.tm_from_email}>` : row.tm_from_email;
}

/** A bounce type as a word: 'hard' → 'Hard'. */
export function bounceTypeText(type: string | null): string {
  if (!type) return '-';
  return type.charAt(0).toUpperCase() + type.slice(1);
}

/** The moment a report row's date column shows: the report's own moment, else sent, else queued. */
export function rowMoment(
  row: Pick<ReportTransactionWire, 'log_date' | 'trans_date_sent' | 'trans_date_queued'>,
  column: ReportColumn,
): number {
  if (column === 'date_sent') return row.trans_date_sent || row.trans_date_queued;
  return row.log_date || row.trans_date_sent || row.trans_date_queued;
}
