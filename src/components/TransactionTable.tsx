// The transaction table of the Dashboard and of the Recipients tab (docs/console.md §2): date (sent, or
// queued when not sent), recipient, subject, delivery status with a coloured dot, group link,
// opened icon, clicks as 'N link(s)' and a More Info button; sortable Date, Opened and Clicks
// headers, the pager, and a retry control when the table has no data (§8).
import { formatDate, formatMoment, formatTime, isoOf } from '../lib/dates.ts';
import { clicksText, shownDate, statusOf } from '../lib/transaction-view.ts';
import type { ListState } from '../stores/list-state.ts';
import type { TransactionQuery, TransactionSortKey } from '../lib/transaction-query.ts';
import type { TransactionWire } from '../lib/wire.ts';
import SortableHeader from './SortableHeader.tsx';
import EmailText from './EmailText.tsx';
import LineIcon from './LineIcon.tsx';
import PagedTable from './PagedTable.tsx';
import MoreInfoButton from './MoreInfoButton.tsx';

interface Props {
  list: ListState<TransactionWire>;
  sort: TransactionQuery['sort'];
  onSort(key: TransactionSortKey): void;
  onPage(page: number): void;
  onRetry(): void;
  onMoreInfo(tx: TransactionWire): void;
}

const COLUMNS = 8;

function EyeIcon({ opened }: { opened: boolean }) {
  const label = opened ? 'Opened' : 'Not Opened';
  return (
    <span
      className={`opened-icon${opened ? ' is-opened' : ''}`}
      role="img"
      aria-label={label}
      title={label}
      data-testid="opened-icon"
    >
      <LineIcon size={18}>
        <path d="M1 12s4-8 11-8 11 8 11 8-4 8-11 8-11-8-11-8z" />
        <circle cx="12" cy="12" r="3" />
        {!opened && <line x1="3" y1="3" x2="21" y2="21" />}
      </LineIcon>
    </span>
  );
}

function Row({ tx, onMoreInfo }: { tx: TransactionWire; onMoreInfo(tx: TransactionWire): void }) {
  const at = shownDate(tx);
  const status = statusOf(tx);
  const sent = tx.trans_date_sent !== 0;
  return (
    <tr data-testid="transaction-row" data-uuid={tx.trans_uuid}>
      <td className="date-cell" title={`${sent ? 'Sent' : 'Queued'} ${formatMoment(at)}`}>
        <time dateTime={isoOf(at)} data-testid="transaction-date">
          {formatDate(at)}
        </time>
        <span className="time-of-day">{formatTime(at)}</span>
      </td>
      <td className="email-cell" data-testid="transaction-email">
        <EmailText email={tx.trans_to_email} />
      </td>
      <td className="subject-cell" data-testid="transaction-subject">
        {tx.tm_subject}
      </td>
      <td className="status-cell">
        <span className={`status-dot is-${status.tone}`} aria-hidden="true" />
        <span data-testid="transaction-status">{status.label}</span>
      </td>
      <td className="group-cell">
        <a href={`/groups/${encodeURIComponent(tx.trans_group_uuid)}/overview`} data-testid="transaction-group">
          {tx.trans_group_name}
        </a>
      </td>
      <td className="has-text-centered opened-cell">
        <EyeIcon opened={tx.trans_read_count > 0} />
      </td>
      <td className="clicks-cell" data-testid="transaction-clicks">
        {clicksText(tx.trans_click_count)}
      </td>
      <td className="has-text-right more-info-cell">
        <MoreInfoButton onClick={() => onMoreInfo(tx)} />
      </td>
    </tr>
  );
}

export default function TransactionTable({ list, sort, onSort, onPage, onRetry, onMoreInfo }: Props) {
  const loading = list.status === 'loading';
  const direction = (key: TransactionSortKey) => {
    const sortedBy = sort.key === key || (key === 'dateSent' && sort.key === 'trans_id');
    return sortedBy ? sort.direction : null;
  };
  /** A sortable column's header; `name` makes its class (`${name}-column`) and test id (`sort-${name}`). */
  const sortable = (key: TransactionSortKey, label: string, name: string) => (
    <SortableHeader
      label={label}
      direction={direction(key)}
      onSort={() => onSort(key)}
      className={`${name}-column`}
      testId={`sort-${name}`}
    />
  );
  return (
    <div className="report-table transaction-table" aria-busy={loading} data-testid="transaction-table">
      <PagedTable
        list={list}
        head={
          <>
            {sortable('dateSent', 'Date', 'date')}
            <th>Recipient</th>
            <th>Subject</th>
            <th className="status-column">Status</th>
            <th>Group</th>
            {sortable('opens', 'Opened', 'opened')}
            {sortable('clicks', 'Clicks', 'clicks')}
            <th className="more-info-cell">
              <span className="is-sr-only">More Info</span>
            </th>
          </>
        }
        columns={COLUMNS}
        what="transactions"
        onRetry={onRetry}
        onPage={onPage}
        testId="transactions"
      >
        {list.data.map((tx) => (
          <Row key={tx.trans_uuid} tx={tx} onMoreInfo={onMoreInfo} />
        ))}
      </PagedTable>
    </div>
  );
}
