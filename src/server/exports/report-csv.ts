// The CSV of a report export (docs/console-reports.md §2 table columns): rows streamed from the
// database in keyset pages of acceptance order, newest first (the report's default order,
// docs/console-reports.md §9), through csv-stringify (quoting, UTF-8 with a byte order mark so spreadsheet
// programs read it as UTF-8) — never the whole report in memory. Cells a spreadsheet would take
// for a formula (starting with =, +, -, @, tab or carriage return: OWASP "CSV injection") get a
// leading apostrophe, so a recipient address or subject chosen by an outsider cannot run in the
// customer's spreadsheet.
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { formatUnix, REPORT_MOMENT } from '../../lib/dates.ts';
import type { DeliveredStatus, GroupReportType, TransStatus } from '../../contract/values.ts';
import { statusOf } from '../../lib/transaction-view.ts';
import { failureReason, logDate } from '../reports/group-reports.service.ts';
import { matching, type TransactionFilter } from '../reports/transactions.repository.ts';
import { unixSeconds } from '../reports/transactions.service.ts';

/** Rows read per query: small enough to bound memory, large enough that the queries cost little. */
export const EXPORT_PAGE_ROWS = 1_000;

const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell as written: text a spreadsheet would evaluate is prefixed with an apostrophe. */
export function neutralise(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

/** One transaction as the export reads it. */
export interface ExportRowData {
  uuid: string;
  queued_at: Date;
  sent_at: Date | null;
  first_open_at: Date | null;
  first_click_at: Date | null;
  to_email: string;
  subject: string;
  from_email: string;
  from_name: string | null;
  status: TransStatus;
  delivered_status: DeliveredStatus;
  attempts: number;
  bounce_type: string | null;
  bounce_reason: string | null;
  last_reply: string | null;
  open_count: number;
  click_count: number;
  outcome_at: Date | null;
  unique_clicks: number;
}

type Column = { header: string; value: (row: ExportRowData, reportType: GroupReportType) => string | number };

const date: Column['value'] = (row, reportType) =>
  formatUnix(unixSeconds(logDate(row, reportType, row.outcome_at)), REPORT_MOMENT);
const from = (row: ExportRowData) => (row.from_name ? `${row.from_name} <${row.from_email}>` : row.from_email);
const id: Column = { header: 'Transaction ID', value: (row) => row.uuid };
const subject: Column = { header: 'Subject', value: (row) => row.subject };
const toEmail: Column = { header: 'To Email', value: (row) => row.to_email };
// the state the console shows and the figures count it in (src/lib/transaction-view.ts)
const status = (row: ExportRowData) =>
  statusOf({ trans_status: row.status, trans_delivered_status: row.delivered_status, trans_attempts: row.attempts })
    .label;
const sentColumns: Column[] = [
  { header: 'Date Sent', value: date },
  { header: 'From', value: from },
  subject,
  { header: 'To', value: (row) => row.to_email },
  { header: 'Status', value: status },
  id,
];

/** The table of an outcome's report: the outcome's date, the recipient, the subject, its own columns, the id. */
function outcomeColumns(dateHeader: string, ...own: Column[]): Column[] {
  return [{ header: dateHeader, value: date }, toEmail, subject, ...own, id];
}

/** The columns of each report's table (docs/console-reports.md §2), plus the transaction's id. */
export const EXPORT_COLUMNS: Record<GroupReportType, Column[]> = {
  overview: sentColumns,
  sent: sentColumns,
  failed: outcomeColumns('Date Failed', { header: 'Reason', value: (row) => failureReason(row) }),
  bounced: outcomeColumns(
    'Date Bounced',
    { header: 'Type', value: (row) => row.bounce_type ?? '' },
    { header: 'Reason', value: (row) => failureReason(row) },
  ),
  opens: outcomeColumns('First Open Date', { header: 'Total Opens', value: (row) => row.open_count }),
  clicks: outcomeColumns(
    'First Clicked Date',
    { header: 'Total Clicks', value: (row) => row.click_count },
    { header: 'Unique Clicks', value: (row) => row.unique_clicks },
  ),
};

const OUTCOME_EVENTS: Partial<Record<GroupReportType, string[]>> = {
  failed: ['failed', 'canceled'],
  bounced: ['bounced'],
};

/**
 * The filter's rows, newest first, in pages of EXPORT_PAGE_ROWS: each page continues after the
 * last row of the one before ((queued_at, id) below it, the cursor kept as PostgreSQL's own text
 * so no microseconds are lost), so every page is an index walk of the group's range.
 */
export async function* exportRows(
  db: Database,
  customerId: number,
  filter: TransactionFilter,
  reportType: GroupReportType,
): AsyncGenerator<ExportRowData> {
  const types = OUTCOME_EVENTS[reportType];
  const outcome = types
    ? sql<Date | null>`(select max(e.at) from events e where e.transaction_id = t.id and e.type in
      (${sql.join(types.map((x) => sql.lit(x)))}))`
    : sql<Date | null>`null::timestamptz`;
  const uniqueClicks =
    reportType === 'clicks'
      ? sql<string | number>`(select count(*) from links l where l.transaction_id = t.id and l.clicks > 0)`
      : sql<number>`0`;
  let after: { at: string; id: number } | null = null;
  for (;;) {
    let query = matching(db, customerId, filter);
    if (after) query = query.where(sql<boolean>`(t.queued_at, t.id) < (${after.at}::timestamptz, ${after.id}::bigint)`);
    const rows = await query
      .innerJoin('messages as m', 'm.id', 't.message_id')
      .select([
        't.id',
        sql<string>`t.queued_at::text`.as('cursor'),
        't.uuid',
        't.queued_at',
        't.sent_at',
        't.first_open_at',
        't.first_click_at',
        't.to_email',
        'm.subject',
        'm.from_email',
        'm.from_name',
        't.status',
        't.delivered_status',
        't.attempts',
        't.bounce_type',
        't.bounce_reason',
        't.last_reply',
        't.open_count',
        't.click_count',
        outcome.as('outcome_at'),
        uniqueClicks.as('unique_clicks'),
      ])
      .orderBy('t.queued_at', 'desc')
      .orderBy('t.id', 'desc')
      .limit(EXPORT_PAGE_ROWS)
      .execute();
    for (const row of rows) {
      yield {
        ...row,
        queued_at: new Date(row.queued_at),
        sent_at: row.sent_at && new Date(row.sent_at),
        first_open_at: row.first_open_at && new Date(row.first_open_at),
        first_click_at: row.first_click_at && new Date(row.first_click_at),
        outcome_at: row.outcome_at && new Date(row.outcome_at),
        unique_clicks: Number(row.unique_clicks),
      };
    }
    if (rows.length < EXPORT_PAGE_ROWS) return;
    const last = rows[rows.length - 1];
    after = { at: last.cursor, id: Number(last.id) };
  }
}

/** The CSV text of `rows` as a stream: a header row, then one line per row, each cell neutralised. */
export function reportCsv(
  rows: AsyncIterable<ExportRowData>,
  reportType: GroupReportType,
  counted: { rows: number },
): Readable {
  const columns = EXPORT_COLUMNS[reportType];
  const records = Readable.from(
    (async function* () {
      for await (const row of rows) {
        counted.rows += 1;
        yield columns.map((c) => {
          const value = c.value(row, reportType);
          return typeof value === 'string' ? neutralise(value) : String(value);
        });
      }
    })(),
  );
  const csv = stringify({
    bom: true,
    header: true,
    columns: columns.map((c) => c.header),
    record_delimiter: 'windows',
  });
  records.on('error', (err) => csv.destroy(err));
  return records.pipe(csv);
}
