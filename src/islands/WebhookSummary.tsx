import { useEffect, useState } from 'react';
import { api } from '../lib/api.ts';

interface Webhook {
  url: string;
  verb: string;
  status: string;
  event_types: string[];
}

type State = { status: 'loading' } | { status: 'failed' } | { status: 'loaded'; webhook: Webhook | undefined };

/** The Webhooks card of Settings (spec core §2): a read-only summary of the first webhook, or 'Not setup'. */
export default function WebhookSummary() {
  const [state, setState] = useState<State>({ status: 'loading' });
  useEffect(() => {
    api<{ data: Webhook[] }>('v1/webhooks').then(
      ({ data }) => setState({ status: 'loaded', webhook: data[0] }),
      () => setState({ status: 'failed' }),
    );
  }, []);

  if (state.status === 'loading') return <p className="has-text-grey">Loading…</p>;
  if (state.status === 'failed') return <p className="has-text-grey" data-testid="webhook-failed">The webhook could not be loaded.</p>;
  const { webhook } = state;
  if (!webhook) return <p className="has-text-grey" data-testid="webhook-not-setup">Not setup</p>;
  return (
    <dl className="webhook-summary" data-testid="webhook-summary">
      <dt>URL</dt>
      <dd className="is-family-monospace" data-testid="webhook-url">{webhook.url}</dd>
      <dt>Method</dt>
      <dd data-testid="webhook-verb">{webhook.verb.toUpperCase()}</dd>
      <dt>Status</dt>
      <dd>
        <span className={`tag ${webhook.status === 'enabled' ? 'is-success' : 'is-light'}`} data-testid="webhook-status">
          {webhook.status === 'enabled' ? 'Enabled' : 'Disabled'}
        </span>
      </dd>
      <dt>Events</dt>
      <dd className="tags" data-testid="webhook-events">
        {webhook.event_types.length ? webhook.event_types.map((e) => <span key={e} className="tag">{e}</span>) : <span className="has-text-grey">None</span>}
      </dd>
    </dl>
  );
}
