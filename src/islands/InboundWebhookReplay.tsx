import BusyButton from '../components/BusyButton.tsx';
import { useIslandStore } from '../lib/island-hooks.ts';
import { PROGRESS_LABEL } from '../lib/webhook-progress.ts';
import { type DeliveryReplay, deliveryReplays, replayDelivery } from '../stores/inbound-webhooks.ts';

/** What the row says of its replay once it is asked for. */
function replayText(replay: Exclude<DeliveryReplay, { state: 'sending' | 'failed' }>): string {
  switch (replay.state) {
    case 'queued':
      return 'Replayed, queued: waiting for the new attempt…';
    case 'unseen':
      return 'Replayed, queued: reload the page to see the new attempt.';
    case 'tried': {
      const { status_code: code, error } = replay.attempt;
      const answer = code === null ? `no answer (${error ?? 'unknown error'})` : `answered ${code}`;
      return `New attempt: ${answer}. ${PROGRESS_LABEL[replay.log.progress]}.`;
    }
  }
}

/**
 * A received message's webhook request's Replay (docs/console.md §2 "Inbound"): queues the event
 * again (Webhook Logs' Replay) and says below the button when the new attempt is recorded and how
 * it went, or why it could not be queued.
 */
export default function InboundWebhookReplay({ logId, attempts }: { logId: number; attempts: number }) {
  const replay = useIslandStore(deliveryReplays)[String(logId)];
  return (
    <div className="inbound-replay">
      <BusyButton
        className="is-small"
        busy={replay?.state === 'sending'}
        onClick={() => void replayDelivery(logId, attempts)}
        testId="inbound-webhook-replay"
      >
        Replay
      </BusyButton>
      {replay?.state === 'failed' ? (
        <p className="help is-danger" role="alert" data-testid="inbound-webhook-replay-error">
          {replay.message}
        </p>
      ) : replay && replay.state !== 'sending' ? (
        <p className="help" role="status" data-testid="inbound-webhook-replay-status">
          {replayText(replay)}
        </p>
      ) : null}
    </div>
  );
}
