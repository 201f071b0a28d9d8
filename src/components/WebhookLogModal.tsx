// More info for one logged webhook request (docs/console-reports.md §2 'More info' modal): the
// request as sent (method, URL, headers without secrets, the payload pretty-printed) and every
// attempt (time, duration, status code or network error, the answer's first 1 KB shown as text,
// never rendered, the next retry), with Replay, which queues the same event again now.
import { useIslandStore } from '../lib/island-hooks.ts';
import { formatReportDate } from '../lib/dates.ts';
import { PROGRESS_LABEL } from '../lib/webhook-progress.ts';
import { closeLog, openLog, replayLog, replaying } from '../stores/webhook-logs.ts';
import BusyButton from './BusyButton.tsx';
import Modal from './Modal.tsx';

export default function WebhookLogModal() {
  const open = useIslandStore(openLog);
  const busy = useIslandStore(replaying);
  if (!open) return null;
  const { detail } = open;
  return (
    <Modal
      title="Webhook request"
      onClose={closeLog}
      testId="webhook-log-modal"
      className="webhook-log-modal"
      bodyLabel="Request and attempts"
      dismiss="Close"
      footer={
        <BusyButton
          className="is-primary"
          busy={busy}
          disabled={!detail}
          onClick={() => void replayLog(open.id)}
          testId="webhook-log-replay"
        >
          Replay
        </BusyButton>
      }
    >
      {!detail && <p className="has-text-grey">{open.failed ? 'This entry could not be loaded.' : 'Loading…'}</p>}
      {detail && (
        <>
          <dl className="webhook-log-facts">
            <dt>Event</dt>
            <dd data-testid="webhook-log-event">{detail.log.event_type}</dd>
            <dt>Status</dt>
            <dd data-testid="webhook-log-detail-status">{PROGRESS_LABEL[detail.log.progress] ?? detail.log.status}</dd>
            <dt>Method</dt>
            <dd>{detail.request.method}</dd>
            <dt>URL</dt>
            <dd className="is-family-monospace" data-testid="webhook-log-url">
              {detail.request.url}
            </dd>
            <dt>Field set</dt>
            <dd>{detail.log.field_set}</dd>
            <dt>Content type</dt>
            <dd>{detail.log.content_type}</dd>
          </dl>
          <h3 className="title is-6">Headers</h3>
          <pre className="webhook-log-pre" data-testid="webhook-log-headers">
            {Object.entries(detail.request.headers)
              .map(([k, v]) => `${k}: ${v}`)
              .join('\n')}
          </pre>
          {detail.request.payload && (
            <>
              <h3 className="title is-6">Payload</h3>
              <pre className="webhook-log-pre" data-testid="webhook-log-payload">
                {JSON.stringify(detail.request.payload, null, 2)}
              </pre>
            </>
          )}
          <h3 className="title is-6">Attempts</h3>
          {detail.attempts.length === 0 && <p className="has-text-grey">Not tried yet.</p>}
          <ol className="webhook-attempts" data-testid="webhook-log-attempts">
            {detail.attempts.map((a, i) => (
              <li key={i} data-testid="webhook-log-attempt">
                <p>
                  <strong>{formatReportDate(a.at)}</strong> · {a.duration_ms} ms ·{' '}
                  {a.status_code !== null ? (
                    <span
                      className={a.status_code >= 200 && a.status_code < 300 ? 'has-text-success' : 'has-text-danger'}
                    >
                      HTTP {a.status_code}
                    </span>
                  ) : (
                    <span className="has-text-danger">{a.error}</span>
                  )}
                  {a.next_retry_at !== null && <> · next retry {formatReportDate(a.next_retry_at)}</>}
                </p>
                {a.response_body ? (
                  <pre className="webhook-log-pre is-small" data-testid="webhook-log-response">
                    {a.response_body}
                  </pre>
                ) : null}
              </li>
            ))}
          </ol>
        </>
      )}
    </Modal>
  );
}
