import { useIslandStore } from '../lib/island-hooks.ts';
import { lazy, Suspense, useEffect } from 'react';
import { loadWebhook, webhookInModal, webhookModal, webhookState } from '../stores/webhook.ts';
import LineIcon from '../components/LineIcon.tsx';

// the modal loads on first use: most visits to Settings never open it
const WebhookModal = lazy(() => import('../components/WebhookModal.tsx'));

/**
 * The Webhooks card's edit pencil (docs/console.md §2), which opens the Webhook modal on the first
 * webhook; the same modal opens for any webhook of the list and for Add webhook (WebhookSummary).
 */
export default function WebhookEditor() {
  const open = useIslandStore(webhookModal);
  const state = useIslandStore(webhookState);
  useEffect(() => void loadWebhook(), []);
  const webhook = open === null ? undefined : webhookInModal(state, open);
  return (
    <>
      <button
        type="button"
        className="card-header-icon"
        aria-label="Edit webhook"
        title="Edit webhook"
        disabled={state.status !== 'loaded'}
        onClick={() => webhookModal.set('first')}
        data-testid="webhook-edit"
      >
        <LineIcon size={18}>
          <path d="M12 20h9" />
          <path d="M16.5 3.5a2.1 2.1 0 0 1 3 3L7 19l-4 1 1-4Z" />
        </LineIcon>
      </button>
      {open !== null && state.status === 'loaded' && (
        <Suspense fallback={null}>
          <WebhookModal
            key={String(open)}
            webhook={webhook}
            adding={open === 'add'}
            onClose={() => webhookModal.set(null)}
          />
        </Suspense>
      )}
    </>
  );
}
