import { useIslandStore } from '../lib/island-hooks.ts';
import { lazy, Suspense, useEffect, useId } from 'react';
import Pagination from '../components/Pagination.tsx';
import SortableHeader from '../components/SortableHeader.tsx';
import { formatReportDate } from '../lib/dates.ts';
import { PROGRESS_LABEL, PROGRESS_TAG } from '../lib/webhook-progress.ts';
import type { PageMeta } from '../contract/reports.ts';
import {
  filterByWebhook,
  goToPage,
  loadLogs,
  logs,
  openLog,
  order,
  seedLogs,
  showLog,
  toggleOrder,
  type WebhookLog,
  webhookFilter,
} from '../stores/webhook-logs.ts';
import RetryButton from '../components/RetryButton.tsx';

const WebhookLogModal = lazy(() => import('../components/WebhookLogModal.tsx'));

/** A webhook the filter offers: its uuid and URL. */
interface WebhookChoice {
  id: string;
  url: string;
}

/** Ours: which webhook's requests the table shows, when the account has more than one. */
function WebhookFilter({ webhooks }: { webhooks: WebhookChoice[] }) {
  const id = useId();
  const $filter = useIslandStore(webhookFilter);
  if (webhooks.length < 2) return null;
  return (
    <div className="webhook-logs-filter">
      <label className="label" htmlFor={id}>
        Webhook
      </label>
      <select
        id={id}
        className="input webhook-logs-select"
        value={$filter}
        onChange={(e) => filterByWebhook(e.target.value)}
        data-testid="webhook-logs-filter"
      >
        <option value="">All webhooks</option>
        {webhooks.map((w) => (
          <option key={w.id} value={w.id}>
            {w.url}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * The Webhook Logs table (docs/console-reports.md §2): Date (sortable), URL, Event Triggered, Status and a
 * 'More info' button per row; 'You have no logged events' when there are none. The first page
 * comes rendered from the server; the island takes it over for sorting, paging and the filter by webhook.
 */
export default function WebhookLogs({
  initial,
  webhooks = [],
}: {
  initial: { data: WebhookLog[]; meta: PageMeta };
  webhooks?: WebhookChoice[];
}) {
  const stored = useIslandStore(logs);
  const $order = useIslandStore(order);
  const open = useIslandStore(openLog);
  useEffect(() => seedLogs(initial), []);
  // until the island has taken the page over, it shows what the server rendered (no #418)
  const state = stored.status === 'unset' ? { status: 'loaded' as const, ...initial } : stored;

  return (
    <>
      <WebhookFilter webhooks={webhooks} />
      <div className="table-container">
        <table
          className="table is-fullwidth is-hoverable webhook-logs-table"
          data-testid="webhook-logs-table"
          aria-busy={state.status === 'loading'}
        >
          <thead>
            <tr>
              <SortableHeader label="Date" direction={$order} onSort={toggleOrder} testId="sort-date" />
              <th className="webhook-log-url">URL</th>
              <th className="webhook-log-event">Event Triggered</th>
              <th>Status</th>
              <th>
                <span className="is-sr-only">More info</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {state.data.map((log) => (
              <tr key={log.id} data-testid="webhook-log-row">
                <td className="webhook-log-date">
                  {formatReportDate(log.date)}
                  <span className="webhook-log-event-below">{log.event_type}</span>
                </td>
                <td className="webhook-log-url is-family-monospace">{log.url}</td>
                <td className="webhook-log-event">{log.event_type}</td>
                <td>
                  <span
                    className={`tag ${PROGRESS_TAG[log.progress] ?? 'is-light'}`}
                    data-testid="webhook-log-status"
                    data-progress={log.progress}
                  >
                    {PROGRESS_LABEL[log.progress] ?? log.status}
                  </span>
                </td>
                <td className="has-text-right">
                  <button
                    type="button"
                    className="button is-small"
                    onClick={() => void showLog(log.id)}
                    data-testid="webhook-log-more"
                  >
                    More info
                  </button>
                </td>
              </tr>
            ))}
            {state.data.length === 0 && (
              <tr>
                <td colSpan={5} className="has-text-centered has-text-grey empty-row" data-testid="webhook-logs-empty">
                  {state.status === 'loading' ? (
                    'Loading…'
                  ) : state.status === 'failed' ? (
                    <>
                      The webhook logs could not be loaded. <RetryButton onRetry={() => void loadLogs()} />
                    </>
                  ) : (
                    'You have no logged events'
                  )}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {state.meta && state.meta.total > 0 && (
        <Pagination meta={state.meta} onPage={goToPage} testId="webhook-logs-pager" />
      )}
      {open && (
        <Suspense fallback={null}>
          <WebhookLogModal />
        </Suspense>
      )}
    </>
  );
}
