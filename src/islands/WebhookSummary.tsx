import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect } from 'react';
import { loadWebhook, type Webhook, webhookModal, webhookState } from '../stores/webhook.ts';

const FIELD_SET_LABEL: Record<string, string> = { standard: 'Standard', legacy: 'Legacy', resend: 'Resend' };

/** One webhook's read-only summary, with its Edit; when the service switched it off (410 Gone), why. */
function WebhookItem({ webhook, index, ready }: { webhook: Webhook; index: number; ready: boolean }) {
  return (
    <li className="webhook-item" data-testid="webhook-item" data-webhook-id={webhook.id}>
      {webhook.disabled_reason && webhook.status === 'disabled' && (
        <div className="notification is-warning is-light" role="alert" data-testid="webhook-disabled-reason">
          {webhook.disabled_reason}
        </div>
      )}
      <dl className="webhook-summary" data-testid="webhook-summary">
        <dt>URL</dt>
        <dd className="is-family-monospace" data-testid="webhook-url">
          {webhook.url}
        </dd>
        <dt>Method</dt>
        <dd data-testid="webhook-verb">{webhook.verb.toUpperCase()}</dd>
        <dt>Status</dt>
        <dd>
          <span
            className={`tag ${webhook.status === 'enabled' ? 'is-success' : 'is-light'}`}
            data-testid="webhook-status"
          >
            {webhook.status === 'enabled' ? 'Enabled' : 'Disabled'}
          </span>
        </dd>
        <dt>Payloads</dt>
        <dd data-testid="webhook-field-set">{FIELD_SET_LABEL[webhook.field_set] ?? webhook.field_set}</dd>
        <dt>Events</dt>
        <dd className="tags" data-testid="webhook-events">
          {webhook.event_types.length ? (
            webhook.event_types.map((e) => (
              <span key={e} className="tag">
                {e}
              </span>
            ))
          ) : (
            <span className="has-text-grey">None</span>
          )}
        </dd>
      </dl>
      <button
        type="button"
        className="button is-small"
        onClick={() => webhookModal.set(index)}
        disabled={!ready}
        aria-label={`Edit webhook ${webhook.url}`}
        data-testid="webhook-item-edit"
      >
        Edit
      </button>
    </li>
  );
}

/**
 * The Webhooks card of Settings (docs/console.md §2): a read-only summary of every webhook of the
 * account (ours: several, docs/webhooks.md "Several webhooks"), each with its Edit, or 'Not setup';
 * and Add webhook. The list comes rendered from the server (without secrets); GET /v1/webhooks
 * then reads it whole for the modal.
 */
export default function WebhookSummary({ initial }: { initial?: Webhook[] }) {
  const stored = useIslandStore(webhookState);
  useEffect(() => void loadWebhook(), []);
  // until GET /v1/webhooks answers, the list the server rendered (its Edit buttons wait for the answer)
  const state = stored.status === 'loading' && initial ? { status: 'loaded' as const, webhooks: initial } : stored;

  if (state.status === 'loading') return <p className="has-text-grey">Loading…</p>;
  if (state.status === 'failed')
    return (
      <p className="has-text-grey" data-testid="webhook-failed">
        The webhook could not be loaded.
      </p>
    );
  const add = (
    <button
      type="button"
      className="button is-small is-light webhook-add"
      onClick={() => webhookModal.set('add')}
      disabled={stored.status !== 'loaded'}
      data-testid="webhook-add"
    >
      Add webhook
    </button>
  );
  if (state.webhooks.length === 0)
    return (
      <>
        <p className="has-text-grey" data-testid="webhook-not-setup">
          Not setup
        </p>
        {add}
      </>
    );
  return (
    <>
      <ul className="webhook-list" data-testid="webhook-list">
        {state.webhooks.map((webhook, i) => (
          <WebhookItem key={webhook.id ?? i} webhook={webhook} index={i} ready={stored.status === 'loaded'} />
        ))}
      </ul>
      {add}
    </>
  );
}
