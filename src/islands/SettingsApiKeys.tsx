import { lazy, Suspense, useEffect, useState } from 'react';
import BusyButton from '../components/BusyButton.tsx';
import Modal from '../components/Modal.tsx';
import { CONSOLE_MOMENT, formatUnix } from '../lib/dates.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import { type ApiKeyRow, apiKeys, createKeyOpen, deleteKey, loadApiKeys } from '../stores/api-keys.ts';

// the modal loads on first use: most visits to Settings never create a key
const ApiKeyModal = lazy(() => import('../components/ApiKeyModal.tsx'));

const moment = (iso: string | null) => (iso ? formatUnix(Date.parse(iso) / 1000, CONSOLE_MOMENT) : 'Never');
const permissionLabel = (key: Pick<ApiKeyRow, 'permission' | 'domain'>) =>
  key.permission === 'full_access' ? 'Full access' : `Sending access${key.domain ? ` (${key.domain})` : ''}`;

/** The API Keys card of Settings (docs/console.md §2): named keys with their permission, Create and Delete. */
export default function SettingsApiKeys() {
  const state = useIslandStore(apiKeys);
  const open = useIslandStore(createKeyOpen);
  const [deleting, setDeleting] = useState<ApiKeyRow | null>(null);
  useEffect(() => void loadApiKeys(), []);

  const keys = state.status === 'loaded' ? state.keys : [];
  return (
    <>
      <div className="api-keys-bar">
        <p className="has-text-grey">
          Give each application its own key; a sending access key can only send, from one domain if you choose.
        </p>
        <button
          type="button"
          className="button is-primary"
          onClick={() => createKeyOpen.set(true)}
          data-testid="api-key-create"
        >
          Create API key
        </button>
      </div>
      {/* focusable: on a phone the table may scroll sideways, and keyboards must reach it (also when empty) */}
      <div className="table-container" tabIndex={0} role="region" aria-label="API keys table">
        <table
          className="table is-fullwidth api-keys-table"
          aria-busy={state.status === 'loading'}
          data-testid="api-keys-table"
        >
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Permission</th>
              <th scope="col" className="api-key-used">
                Last used
              </th>
              <th scope="col" className="api-key-created">
                Created
              </th>
              <th scope="col">
                <span className="is-sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} data-testid="api-key-row">
                <td>
                  <strong>{key.name}</strong>
                  <span className="api-key-prefix is-family-monospace">{key.token_prefix}…</span>
                </td>
                <td>
                  <span data-testid="api-key-permission">{permissionLabel(key)}</span>
                  <span className="api-key-used-below">Last used: {moment(key.last_used_at)}</span>
                </td>
                <td className="api-key-date api-key-used">{moment(key.last_used_at)}</td>
                <td className="api-key-date api-key-created">{moment(key.created_at)}</td>
                <td className="has-text-right">
                  <button
                    type="button"
                    className="button is-small is-danger is-light"
                    aria-label={`Delete ${key.name}`}
                    onClick={() => setDeleting(key)}
                    data-testid="api-key-delete"
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
            {keys.length === 0 && (
              <tr>
                <td colSpan={5} className="has-text-centered has-text-grey" data-testid="api-keys-empty">
                  {state.status === 'loading'
                    ? 'Loading…'
                    : state.status === 'failed'
                      ? 'The API keys could not be loaded.'
                      : 'No API keys yet.'}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {open && (
        <Suspense fallback={null}>
          <ApiKeyModal onClose={() => createKeyOpen.set(false)} />
        </Suspense>
      )}
      {deleting && <ConfirmDelete apiKey={deleting} onClose={() => setDeleting(null)} />}
    </>
  );
}

function ConfirmDelete({ apiKey, onClose }: { apiKey: ApiKeyRow; onClose(): void }) {
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    if (await deleteKey(apiKey.id)) onClose();
    else setBusy(false);
  };
  return (
    <Modal
      title="Delete API key"
      onClose={onClose}
      testId="api-key-delete-modal"
      dismiss="Cancel"
      footer={
        <BusyButton className="is-danger" busy={busy} onClick={() => void confirm()} testId="api-key-delete-confirm">
          Delete
        </BusyButton>
      }
    >
      <p>
        Delete <strong>{apiKey.name}</strong>? Applications using it are refused at once, over the API and SMTP. This
        cannot be undone.
      </p>
    </Modal>
  );
}
