import { useEffect } from 'react';
import SortableHeader from '../components/SortableHeader.tsx';
import { formatGroupDate, isoOf } from '../lib/dates.ts';
import type { PageMeta } from '../contract/reports.ts';
import {
  type GroupSortKey,
  type GroupWire,
  goToGroupPage,
  groupList,
  groupQuery,
  loadGroups,
  sortGroups,
  startGroups,
} from '../stores/groups.ts';
import { useIslandStore, useSeededStore } from '../lib/island-hooks.ts';
import { formatCount } from '../lib/numbers.ts';
import PagedTable from '../components/PagedTable.tsx';

const COUNTS: { key: GroupSortKey; label: string; value(g: GroupWire): number }[] = [
  { key: 'sent', label: 'Sent', value: (g) => g.groupStats.tgs_total_sent },
  { key: 'failed', label: 'Failed', value: (g) => g.groupStats.tgs_total_failed },
  { key: 'delivered', label: 'Delivered', value: (g) => g.groupStats.tgs_total_delivered },
  { key: 'bounces', label: 'Bounces', value: (g) => g.groupStats.tgs_total_bounces },
  { key: 'opens', label: 'Opens', value: (g) => g.groupStats.tgs_total_opens },
  { key: 'clicks', label: 'Link Clicks', value: (g) => g.groupStats.tgs_total_link_clicks },
];
const COLUMNS = 3 + COUNTS.length;

/**
 * The Groups tab's table (docs/console.md §2): group name with its created date ('DD MMMM YYYY'), last
 * send date ('-' if none), sent, failed, delivered, bounces, opens, link clicks, and a link to the
 * group's report; sortable headers, the pager, a retry control when it has no data (§8). `first`:
 * the first page, rendered on the server; the island loads it itself when it is missing.
 */
export default function TransactionsGroupTable({
  first = null,
}: {
  first?: { data: GroupWire[]; meta: PageMeta } | null;
}) {
  const $list = useSeededStore(groupList, first && { status: 'loaded', data: first.data, meta: first.meta });
  const $query = useIslandStore(groupQuery);
  useEffect(() => startGroups(first !== null), []);
  const loading = $list.status === 'loading';
  const header = (key: GroupSortKey, label: string, className?: string) => (
    <SortableHeader
      key={key}
      label={label}
      direction={$query.sort.key === key ? $query.sort.direction : null}
      onSort={() => sortGroups(key)}
      className={className}
      testId={`sort-group-${key}`}
    />
  );
  return (
    <div className="report-table group-table" aria-busy={loading} data-testid="group-table">
      <PagedTable
        list={$list}
        head={
          <>
            {header('group_name', 'Group')}
            {header('group_last_send_date', 'Last Send Date', 'date-column')}
            {COUNTS.map((c) => header(c.key, c.label, 'count-column'))}
            <th>
              <span className="is-sr-only">Report</span>
            </th>
          </>
        }
        columns={COLUMNS}
        what="groups"
        onRetry={() => void loadGroups()}
        onPage={goToGroupPage}
        testId="groups"
      >
        {$list.data.map((g) => (
          <tr key={g.group_uuid} data-testid="group-row" data-uuid={g.group_uuid}>
            <td>
              <p className="group-name" data-testid="group-name">
                {g.group_name}
              </p>
              <p className="has-text-grey is-size-7 group-created">
                Created{' '}
                <time dateTime={isoOf(g.group_create_date)} data-testid="group-created">
                  {formatGroupDate(g.group_create_date)}
                </time>
              </p>
            </td>
            <td className="date-cell" data-testid="group-last-send">
              {formatGroupDate(g.group_last_send_date)}
            </td>
            {COUNTS.map((c) => (
              <td key={c.key} className="count-cell" data-testid={`group-${c.key}`}>
                {formatCount(c.value(g))}
              </td>
            ))}
            <td className="has-text-right">
              <a
                className="button is-small is-info is-light"
                href={`/groups/${encodeURIComponent(g.group_uuid)}/overview`}
                data-testid="group-report"
              >
                View Report
              </a>
            </td>
          </tr>
        ))}
      </PagedTable>
    </div>
  );
}
