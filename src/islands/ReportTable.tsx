import { useEffect } from 'react';
import EmailText from '../components/EmailText.tsx';
import SortableHeader from '../components/SortableHeader.tsx';
import { type DayRange, formatReportDate, isoOf } from '../lib/dates.ts';
import type { GroupReportType } from '../contract/values.ts';
import type { ReportTransactionWire } from '../lib/group-report.ts';
import type { PageMeta } from '../contract/reports.ts';
import {
  COLUMNS,
  REPORT_COLUMNS,
  type ReportColumn,
  bounceTypeText,
  fromText,
  hasMoreInfo,
  reportStatus,
  rowMoment,
} from '../lib/report-table-view.ts';
import {
  goToReportPage,
  loadReport,
  openReport,
  reportList,
  reportQuery,
  reportRendered,
  sortReport,
  startReport,
} from '../stores/group-report.ts';
import { showTransactionInfo } from '../stores/transaction-info.ts';
import ShownTransactionInfo from '../components/ShownTransactionInfo.tsx';
import { useIslandStore, useSeededStore } from '../lib/island-hooks.ts';
import { formatCount } from '../lib/numbers.ts';
import PagedTable from '../components/PagedTable.tsx';
import MoreInfoButton from '../components/MoreInfoButton.tsx';

interface Props {
  groupUuid: string;
  type: GroupReportType;
  /**
   * The first page and the range it covers, rendered on the server from the call that
   * also feeds the Activity chart; the island loads it itself when it is missing.
   */
  first?: { data: ReportTransactionWire[]; meta: PageMeta; range: DayRange } | null;
}

const DATE_COLUMNS: readonly ReportColumn[] = ['date_sent', 'date_failed', 'date_bounced', 'first_open', 'first_click'];

function Cell({ column, row }: { column: ReportColumn; row: ReportTransactionWire }) {
  if (DATE_COLUMNS.includes(column)) {
    const at = rowMoment(row, column);
    return (
      <td className="date-cell">
        {at > 0 ? (
          <time dateTime={isoOf(at)} data-testid="report-date">
            {formatReportDate(at)}
          </time>
        ) : (
          <span data-testid="report-date">-</span>
        )}
      </td>
    );
  }
  switch (column) {
    case 'from':
      // the name, and the address under it in small print (one long 'Name <address>' line crowds the table)
      return (
        <td className="from-cell" title={fromText(row)} data-testid="report-from">
          {row.tm_from_name || <EmailText email={row.tm_from_email} />}
          {row.tm_from_name && (
            <span className="from-address">
              <EmailText email={row.tm_from_email} />
            </span>
          )}
        </td>
      );
    case 'to':
      return (
        <td className="email-cell" data-testid="report-to">
          <EmailText email={row.trans_to_email} />
        </td>
      );
    case 'subject':
      return (
        <td className="subject-cell" data-testid="report-subject">
          {row.tm_subject}
        </td>
      );
    case 'status': {
      const status = reportStatus(row);
      return (
        <td className="status-cell">
          <span className={`status-dot is-${status.tone}`} aria-hidden="true" />
          <span data-testid="report-status">{status.label}</span>
        </td>
      );
    }
    case 'reason':
      return (
        <td className="reason-cell" data-testid="report-reason">
          {row.trans_bounce_reason || '-'}
        </td>
      );
    case 'bounce_type':
      return <td data-testid="report-bounce-type">{bounceTypeText(row.trans_bounce_type)}</td>;
    case 'total_opens':
      return (
        <td className="count-cell" data-testid="report-total-opens">
          {formatCount(row.ts_total_opens ?? row.trans_read_count)}
        </td>
      );
    case 'total_clicks':
      return (
        <td className="count-cell" data-testid="report-total-clicks">
          {formatCount(row.ts_total_clicks ?? row.trans_click_count)}
        </td>
      );
    case 'unique_clicks':
      return (
        <td className="count-cell" data-testid="report-unique-clicks">
          {formatCount(row.ts_unique_clicks)}
        </td>
      );
    default:
      return <td />;
  }
}

/**
 * A group report's table (docs/console-reports.md §2): the report's columns, sortable where the spec has a
 * sort key, the pager, a retry row when it has nothing (§8), and on Overview and Sent a More Info
 * button opening the Transaction Info modal with the event timeline.
 */
export default function ReportTable({ groupUuid, type, first = null }: Props) {
  const $list = useSeededStore(reportList, first && { status: 'loaded', data: first.data, meta: first.meta });
  const $query = useIslandStore(reportQuery);
  useEffect(() => {
    openReport(groupUuid, type);
    if (first) reportRendered(first.range);
    startReport();
  }, []);
  const columns = REPORT_COLUMNS[type];
  const moreInfo = hasMoreInfo(type);
  const count = columns.length + (moreInfo ? 1 : 0);
  return (
    <div
      className="report-table group-report-table"
      aria-busy={$list.status === 'loading'}
      data-testid="report-table"
      data-report={type}
    >
      <PagedTable
        list={$list}
        head={
          <>
            {columns.map((column, i) => {
              const { label, sort } = COLUMNS[column];
              const counts = column === 'total_opens' || column === 'total_clicks' || column === 'unique_clicks';
              const className = counts ? 'count-column' : DATE_COLUMNS.includes(column) ? 'date-column' : undefined;
              if (!sort)
                return (
                  <th key={column} className={className} data-testid={`column-${column}`}>
                    {label}
                  </th>
                );
              // the first column (the date) also stands for the default trans_id order
              const standsForDefault = i === 0;
              const sorted = $query.sort.key === sort || (standsForDefault && $query.sort.key === 'trans_id');
              return (
                <SortableHeader
                  key={column}
                  label={label}
                  direction={sorted ? $query.sort.direction : null}
                  onSort={() => sortReport(sort, standsForDefault)}
                  className={className}
                  testId={`column-${column}`}
                />
              );
            })}
            {moreInfo && (
              <th>
                <span className="is-sr-only">More Info</span>
              </th>
            )}
          </>
        }
        columns={count}
        what="transactions"
        onRetry={() => void loadReport()}
        onPage={goToReportPage}
        testId="report"
      >
        {$list.data.map((row) => (
          <tr key={row.trans_uuid} data-testid="report-row" data-uuid={row.trans_uuid}>
            {columns.map((column) => (
              <Cell key={column} column={column} row={row} />
            ))}
            {moreInfo && (
              <td className="has-text-right">
                <MoreInfoButton
                  onClick={() =>
                    showTransactionInfo({ ...row, tm_additional_headers: row.tm_additional_headers ?? '{}' })
                  }
                />
              </td>
            )}
          </tr>
        ))}
      </PagedTable>
      {moreInfo && <ShownTransactionInfo onCanceled={() => void loadReport()} />}
    </div>
  );
}
