import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect } from 'react';
import { loadWebhook, webhookState } from '../stores/webhook.ts';

/**
 * The Webhooks card of Settings (docs/console.md §2): a read-only summary of the first webhook, or 'Not
 * setup'; when the service switched it off (a 410 Gone answer), an alert says why.
 */
export default function WebhookSummary() {
  const state = useIslandStore(webhookState);
  useEffect(() => void loadWebhook(), []);

  if (state.status === 'loading') return <p className="has-text-grey">Loading…</p>;
  if (state.status === 'failed')
    return (
      <p className="has-text-grey" data-testid="webhook-failed">
        The webhook could not be loaded.
      </p>
    );
  const { webhook } = state;
  if (!webhook)
    return (
      <p className="has-text-grey" data-testid="webhook-not-setup">
        Not setup
      </p>
    );
  return (
    <>
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
    </>
  );
}
