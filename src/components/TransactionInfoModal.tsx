// The Transaction Info modal (docs/console.md §2): Transaction ID, From, To, Subject, Sent, and Custom
// Headers only when the additional headers parse to a non-empty object; below them the
// transaction's timeline: queued, sent, delivered or bounced with the remote server's reply, opens,
// clicks, unsubscribes, and each reply received to it (linking to its Inbound page), oldest first. A
// scheduled message offers Cancel Sending.
import { formatMoment, isoOf } from '../lib/dates.ts';
import {
  type TimelineEntry,
  addressText,
  customHeaders,
  eventView,
  timelineEntries,
} from '../lib/transaction-info-view.ts';
import type { CancelState, InfoTransaction, TimelineState } from '../stores/transaction-info.ts';
import BusyButton from './BusyButton.tsx';
import Modal from './Modal.tsx';
import RetryButton from './RetryButton.tsx';

interface Props {
  tx: InfoTransaction;
  timeline: TimelineState;
  onClose(): void;
  onRetryTimeline(): void;
  /** A scheduled message's Cancel, and where it stands. */
  cancel: CancelState;
  onCancel(): void;
}

/** The Sent field of a message not sent: scheduled to go later, canceled, or not sent (yet). */
function sentText(status: InfoTransaction['trans_status']): string {
  if (status === 'scheduled') return 'Scheduled, not sent yet';
  if (status === 'canceled') return 'Canceled: not sent';
  return 'Not sent';
}

function Timeline({ timeline, onRetry }: { timeline: TimelineState; onRetry(): void }) {
  if (timeline.status === 'loading')
    return (
      <p className="has-text-grey" data-testid="timeline-loading">
        Loading…
      </p>
    );
  if (timeline.status === 'failed') {
    return (
      <p className="has-text-grey" data-testid="timeline-failed">
        The timeline could not be loaded. <RetryButton onRetry={onRetry} />
      </p>
    );
  }
  const entries = timelineEntries(timeline.events, timeline.replies);
  if (entries.length === 0) return <p className="has-text-grey">No events yet.</p>;
  return (
    <ol className="timeline" data-testid="timeline">
      {entries.map((entry, i) => (
        <TimelineItem key={i} entry={entry} />
      ))}
    </ol>
  );
}

function TimelineItem({ entry }: { entry: TimelineEntry }) {
  if (entry.kind === 'reply') {
    const { reply } = entry;
    return (
      <li className="timeline-item is-reply" data-testid="timeline-event" data-type="reply">
        <span className="timeline-marker" aria-hidden="true" />
        <div className="timeline-content">
          <p>
            <strong data-testid="timeline-title">Reply received</strong>{' '}
            <time className="has-text-grey" dateTime={isoOf(reply.time)}>
              {formatMoment(reply.time)}
            </time>
          </p>
          <p className="timeline-detail" data-testid="timeline-detail">
            From {reply.from}
          </p>
          <p className="timeline-detail">
            <a href={`/inbound/${reply.id}`} data-testid="timeline-reply-link">
              Open the reply
            </a>
          </p>
        </div>
      </li>
    );
  }
  const { event } = entry;
  const view = eventView(event);
  return (
    <li className={`timeline-item is-${view.tone}`} data-testid="timeline-event" data-type={event.type}>
      <span className="timeline-marker" aria-hidden="true" />
      <div className="timeline-content">
        <p>
          <strong data-testid="timeline-title">{view.title}</strong>{' '}
          <time className="has-text-grey" dateTime={isoOf(event.time)}>
            {formatMoment(event.time)}
          </time>
        </p>
        {view.details.map((line, j) => (
          <p key={j} className="timeline-detail" data-testid="timeline-detail">
            {line}
          </p>
        ))}
      </div>
    </li>
  );
}

export default function TransactionInfoModal({ tx, timeline, onClose, onRetryTimeline, cancel, onCancel }: Props) {
  const headers = customHeaders(tx.tm_additional_headers);
  const fields: [string, string, string][] = [
    ['Transaction ID', tx.trans_uuid, 'info-id'],
    ['From', addressText(tx.tm_from_email, tx.tm_from_name), 'info-from'],
    ['To', addressText(tx.trans_to_email, tx.trans_to_name), 'info-to'],
    ['Subject', tx.tm_subject, 'info-subject'],
    ['Sent', tx.trans_date_sent !== 0 ? formatMoment(tx.trans_date_sent) : sentText(tx.trans_status), 'info-sent'],
  ];
  return (
    <Modal
      title="Transaction Info"
      titleId="transaction-info-title"
      onClose={onClose}
      testId="transaction-info"
      cardClassName="transaction-info"
      focusClose
      bodyLabel="Transaction details"
      footerClassName=""
      footer={
        <>
          {tx.trans_status === 'scheduled' && (
            <BusyButton
              className="is-danger is-light"
              busy={cancel.status === 'canceling'}
              onClick={onCancel}
              testId="info-cancel"
            >
              Cancel Sending
            </BusyButton>
          )}
          {cancel.status === 'failed' && (
            <p className="help is-danger" role="alert" data-testid="info-cancel-error">
              {cancel.message}
            </p>
          )}
          <button type="button" className="button" onClick={onClose} data-testid="info-close">
            Close
          </button>
        </>
      }
    >
      <dl className="info-fields">
        {fields.map(([label, value, id]) => (
          <div key={id} className="info-field">
            <dt>{label}</dt>
            <dd data-testid={id}>{value}</dd>
          </div>
        ))}
      </dl>
      {headers && (
        <section className="info-section" aria-labelledby="custom-headers-title" data-testid="info-headers">
          <h3 className="title is-6" id="custom-headers-title">
            Custom Headers
          </h3>
          <dl className="info-fields">
            {headers.map(([name, value]) => (
              <div key={name} className="info-field">
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      <section className="info-section" aria-labelledby="timeline-title">
        <h3 className="title is-6" id="timeline-title">
          Timeline
        </h3>
        <Timeline timeline={timeline} onRetry={onRetryTimeline} />
      </section>
    </Modal>
  );
}
