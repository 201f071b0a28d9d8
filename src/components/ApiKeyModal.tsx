// The Create API key modal of Settings (docs/console.md §2): a name, the permission and, for sending
// access, an optional domain of the account; once created, the token with a Copy button, shown this
// once only (the server keeps only its hash).
import { useEffect, useId, useState } from 'react';
import type { AnswerOf } from '../contract/client.ts';
import { call } from '../lib/api.ts';
import { createKey } from '../stores/api-keys.ts';
import CopyField from './CopyField.tsx';
import BusyButton from './BusyButton.tsx';
import Modal from './Modal.tsx';
import Field from './Field.tsx';

type DomainRow = AnswerOf<'GET /v1/domains'>['domains'][number];

export default function ApiKeyModal({ onClose }: { onClose(): void }) {
  const id = useId();
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<'full_access' | 'sending_access'>('full_access');
  const [domainId, setDomainId] = useState('');
  const [domains, setDomains] = useState<DomainRow[]>([]);
  const [saving, setSaving] = useState(false);
  const [token, setToken] = useState<string | null>(null);
  const [problem, setProblem] = useState('');

  useEffect(() => {
    call('GET /v1/domains').then(
      ({ domains }) => setDomains(domains),
      () => setDomains([]),
    );
  }, []);

  async function create() {
    if (!name.trim()) {
      setProblem('Give the key a name.');
      return;
    }
    setProblem('');
    setSaving(true);
    const domain = permission === 'sending_access' && domainId ? Number(domainId) : null;
    const created = await createKey({ name: name.trim(), permission, domain_id: domain });
    setSaving(false);
    if (created) setToken(created);
  }

  return (
    <Modal
      title={token ? 'API key created' : 'Create API key'}
      onClose={onClose}
      testId="api-key-modal"
      className="api-key-modal"
      onSubmit={() => (token ? onClose() : void create())}
      dismiss={token ? undefined : 'Cancel'}
      footer={
        token ? (
          <button key="done" type="submit" className="button is-primary" data-testid="api-key-done">
            Done
          </button>
        ) : (
          <BusyButton key="create" type="submit" className="is-primary" busy={saving} testId="api-key-submit">
            Create
          </BusyButton>
        )
      }
    >
      {token ? (
        <>
          <div className="notification is-warning is-light" data-testid="api-key-once">
            Copy this key now and keep it safe: it will not be shown again.
          </div>
          <CopyField label="API key" value={token} testId="api-key-token" />
        </>
      ) : (
        <>
          <Field
            id={`${id}-name`}
            label="Name"
            help={
              problem && (
                <p className="help is-danger" id={`${id}-problem`}>
                  {problem}
                </p>
              )
            }
          >
            <input
              id={`${id}-name`}
              className={`input${problem ? ' is-danger' : ''}`}
              maxLength={50}
              value={name}
              onChange={(e) => setName(e.target.value)}
              placeholder="Production"
              autoComplete="off"
              aria-invalid={problem ? true : undefined}
              aria-describedby={problem ? `${id}-problem` : undefined}
              data-testid="api-key-name"
            />
          </Field>
          <Field
            id={`${id}-permission`}
            label="Permission"
            help={
              <p className="help">
                {permission === 'full_access'
                  ? 'Every call the account’s key can make, managing API keys too.'
                  : 'Only sending, over the API or SMTP.'}
              </p>
            }
          >
            <select
              className="input api-key-select"
              id={`${id}-permission`}
              value={permission}
              onChange={(e) => setPermission(e.target.value as typeof permission)}
              data-testid="api-key-permission-select"
            >
              <option value="full_access">Full access</option>
              <option value="sending_access">Sending access</option>
            </select>
          </Field>
          {permission === 'sending_access' && (
            <Field id={`${id}-domain`} label="Domain">
              <select
                className="input api-key-select"
                id={`${id}-domain`}
                value={domainId}
                onChange={(e) => setDomainId(e.target.value)}
                data-testid="api-key-domain"
              >
                <option value="">Any domain of the account</option>
                {domains.map((d) => (
                  <option key={d.domain_id} value={String(d.domain_id)}>
                    {d.domain_domain}
                    {d.domain_sending_verified === 'yes' ? '' : ' (not verified)'}
                  </option>
                ))}
              </select>
            </Field>
          )}
        </>
      )}
    </Modal>
  );
}
