import { useEffect, useState } from 'react';
import Modal from '../components/Modal.tsx';
import type { PageMeta } from '../contract/reports.ts';
import {
  type Suppression,
  type SuppressionOrigin,
  checked,
  deleteChecked,
  deleting,
  goToPage,
  list,
  loadSuppressions,
  startSuppressions,
  toggleChecked,
} from '../stores/suppressions.ts';
import { formatReportDate, unixOfIso } from '../lib/dates.ts';
import { useIslandStore, useSeededStore } from '../lib/island-hooks.ts';
import { ORIGIN_LABEL } from '../lib/suppression-query.ts';
import LineIcon from '../components/LineIcon.tsx';
import LoadFailed from '../components/LoadFailed.tsx';
import RowCheck from '../components/RowCheck.tsx';

const ORIGIN_TAG: Record<SuppressionOrigin, string> = {
  user: 'is-info',
  bounce: 'is-warning',
  unsubscribe: 'is-dark',
  complaint: 'is-danger',
};

/**
 * When an address was suppressed: 'D MMM YYYY - HH:mm' in UTC (docs/console-reports.md §9, the reports' format), the
 * zone in its tooltip.
 */
function SuppressedAt({ iso }: { iso: string }) {
  const at = unixOfIso(iso);
  const text = formatReportDate(at);
  return (
    <time dateTime={iso} title={`${text} UTC`}>
      {text}
    </time>
  );
}

/** Page numbers around the current one, with the first and last always shown; null marks a gap. */
function pageNumbers(current: number, last: number): (number | null)[] {
  const pages = new Set([1, last, current - 1, current, current + 1].filter((p) => p >= 1 && p <= last));
  const sorted = [...pages].sort((a, b) => a - b);
  return sorted.flatMap((p, i) => (i > 0 && p - sorted[i - 1] > 1 ? [null, p] : [p]));
}

function Pager({ meta }: { meta: PageMeta }) {
  const { current_page: page, last_page: last, per_page: size, total } = meta;
  if (total === 0) return null; // 'No data.' says it all
  const first = (page - 1) * size + 1;
  const shownTo = Math.min(total, page * size);
  return (
    <div className="suppression-pager">
      <p className="has-text-grey" data-testid="suppression-range">
        Displaying {first}-{shownTo} of {total}
      </p>
      {last > 1 && (
        <nav className="pagination is-small" aria-label="Pages">
          <button type="button" className="pagination-previous" disabled={page <= 1} onClick={() => goToPage(page - 1)}>
            Previous
          </button>
          <button type="button" className="pagination-next" disabled={page >= last} onClick={() => goToPage(page + 1)}>
            Next
          </button>
          <ul className="pagination-list">
            {pageNumbers(page, last).map((p, i) =>
              p === null ? (
                <li key={`gap-${i}`}>
                  <span className="pagination-ellipsis">&hellip;</span>
                </li>
              ) : (
                <li key={p}>
                  <button
                    type="button"
                    className={`pagination-link${p === page ? ' is-current' : ''}`}
                    aria-label={`Page ${p}`}
                    aria-current={p === page ? 'page' : undefined}
                    onClick={() => goToPage(p)}
                  >
                    {p}
                  </button>
                </li>
              ),
            )}
          </ul>
        </nav>
      )}
    </div>
  );
}

function TrashIcon() {
  return (
    <LineIcon size={16}>
      <polyline points="3 6 5 6 21 6" />
      <path d="M19 6l-1 14a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2L5 6" />
      <path d="M10 11v6M14 11v6" />
      <path d="M9 6V4a1 1 0 0 1 1-1h4a1 1 0 0 1 1 1v2" />
    </LineIcon>
  );
}

/**
 * The Suppression List table (docs/console-reports.md §2): Email, Origin, Date, a checkbox per row, and a
 * delete icon that acts on the one checked row; the other checkboxes are disabled meanwhile (§4).
 * 'No data.' when the list (or the search) is empty (§8). `first`: the first page, rendered on
 * the server; the island loads it itself when it is missing.
 */
export default function SuppressionTable({ first = null }: { first?: { data: Suppression[]; meta: PageMeta } | null }) {
  const $list = useSeededStore(list, first && { status: 'loaded', data: first.data, meta: first.meta });
  const $checked = useIslandStore(checked);
  const $deleting = useIslandStore(deleting);
  const selection = { checked: $checked, deleting: $deleting, onToggle: toggleChecked };
  // Delete asks first: an address taken off the list is mailed again
  const [confirming, setConfirming] = useState(false);
  useEffect(() => startSuppressions(first !== null), []);

  if ($list.status === 'failed') {
    return (
      <LoadFailed
        message="The suppression list could not be loaded."
        onRetry={() => void loadSuppressions()}
        className="suppression-failed"
        testId="suppression-failed"
      />
    );
  }
  const loading = $list.status === 'loading';
  return (
    <div className="suppression-table" aria-busy={loading}>
      <div className="table-container">
        <table className="table is-fullwidth is-hoverable" data-testid="suppression-table">
          <thead>
            <tr>
              <th className="check-column">
                <button
                  type="button"
                  className={`button is-small is-danger is-light delete-checked${$deleting ? ' is-loading' : ''}`}
                  aria-label="Delete the checked address"
                  title="Delete the checked address"
                  disabled={$checked === null || $deleting}
                  onClick={() => setConfirming(true)}
                  data-testid="delete-suppression"
                >
                  <TrashIcon />
                </button>
              </th>
              <th>Email</th>
              <th className="origin-column">Origin</th>
              <th className="date-column">Date</th>
            </tr>
          </thead>
          <tbody>
            {$list.data.map((row) => (
              <tr
                key={row.email}
                className={$checked === row.email ? 'is-selected' : undefined}
                data-testid="suppression-row"
              >
                <RowCheck rowKey={row.email} name={row.email} selection={selection} testId="suppression-check" />
                <td className="email-cell" data-testid="suppression-email">
                  {row.email}
                </td>
                <td>
                  <span className={`tag ${ORIGIN_TAG[row.origin]} is-light`} data-testid="suppression-origin">
                    {ORIGIN_LABEL[row.origin]}
                  </span>
                </td>
                <td className="date-cell">
                  <SuppressedAt iso={row.suppressed_timestamp} />
                </td>
              </tr>
            ))}
            {$list.status === 'loaded' && $list.data.length === 0 && (
              <tr>
                <td colSpan={4} className="has-text-centered has-text-grey empty-row" data-testid="suppression-empty">
                  No data.
                </td>
              </tr>
            )}
            {loading && $list.data.length === 0 && (
              <tr>
                <td colSpan={4} className="has-text-centered has-text-grey empty-row">
                  Loading…
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {$list.meta && <Pager meta={$list.meta} />}
      {confirming && $checked !== null && (
        <Modal
          title="Delete suppression"
          onClose={() => setConfirming(false)}
          testId="delete-suppression-modal"
          onSubmit={() => {
            setConfirming(false);
            void deleteChecked();
          }}
          dismiss="Keep it"
          footer={
            <button type="submit" className="button is-danger delete-confirm" data-testid="delete-suppression-confirm">
              Delete
            </button>
          }
        >
          <p data-testid="delete-suppression-question">
            Take <strong>{$checked}</strong> off the suppression list? Mail to this address will be sent again.
          </p>
        </Modal>
      )}
    </div>
  );
}
