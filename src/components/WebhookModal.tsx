// The Webhook modal (docs/console.md §2, §4, §5, §8, §9): URL, Method, Active, Authentication (None or
// Basic: choosing Basic resets the username and password to empty, choosing None removes them), the
// event checkboxes (the spec's seven, and ours: Delayed and Complaint) and the field set; defaults for
// a new webhook post, enabled, standard and every event. Ours beyond the spec too: the signing secret
// (masked, copyable, Rotate) and Send test event.
import { useId, useState } from 'react';
import CopyField from './CopyField.tsx';
import {
  defaultWebhook,
  rotateSecret,
  saveWebhook,
  sendTestEvent,
  type TestEventAnswer,
  type Webhook,
  WEBHOOK_EVENTS,
  WEBHOOK_VERBS,
} from '../stores/webhook.ts';
import BusyButton from './BusyButton.tsx';
import Modal from './Modal.tsx';
import Field from './Field.tsx';
import Checkbox from './Checkbox.tsx';

interface Props {
  webhook: Webhook | undefined;
  onClose(): void;
}

const EVENT_LABELS: Record<(typeof WEBHOOK_EVENTS)[number], string> = {
  sent: 'Sent',
  delayed: 'Delayed',
  failed: 'Failed',
  bounce: 'Bounce',
  complaint: 'Complaint',
  open: 'Open',
  click: 'Click',
  unsubscribe: 'Unsubscribe',
  resubscribe: 'Resubscribe',
};

/** Basic authentication's two fields; a password manager must not fill in the account's own. */
const CREDENTIALS = [
  { key: 'username', label: 'Username', suffix: 'user', type: 'text', autoComplete: 'off' },
  { key: 'password', label: 'Password', suffix: 'password', type: 'password', autoComplete: 'new-password' },
] as const;

export default function WebhookModal({ webhook, onClose }: Props) {
  const id = useId();
  const [draft, setDraft] = useState<Webhook>(() => (webhook ? { ...webhook } : defaultWebhook()));
  const [saving, setSaving] = useState(false);
  const [testing, setTesting] = useState(false);
  const [test, setTest] = useState<TestEventAnswer | null>(null);
  const set = (change: Partial<Webhook>) => setDraft((d) => ({ ...d, ...change }));

  function chooseAuth(type: string) {
    // docs/console.md §4: basic starts with empty credentials; none removes them
    set(
      type === 'basic'
        ? { auth_type: 'basic', auth_details: { username: '', password: '' } }
        : { auth_type: null, auth_details: null },
    );
  }

  function toggleEvent(event: string, on: boolean) {
    setDraft((d) => ({
      ...d,
      event_types: on
        ? WEBHOOK_EVENTS.filter((e) => e === event || d.event_types.includes(e))
        : d.event_types.filter((e) => e !== event),
    }));
  }

  async function save() {
    setSaving(true);
    const saved = await saveWebhook(draft);
    if (!saved) setSaving(false); // after a save the page reloads; the button stays busy till then
  }

  async function runTest() {
    setTesting(true);
    setTest(null);
    setTest(await sendTestEvent());
    setTesting(false);
  }

  const testText = (t: TestEventAnswer) =>
    t.status_code !== null
      ? `The receiver answered ${t.status_code} in ${t.duration_ms} ms.`
      : `No answer: ${t.error ?? 'unknown error'}`;
  const testOk =
    test?.status_code !== null && test?.status_code !== undefined && test.status_code >= 200 && test.status_code < 300;

  return (
    <Modal
      title="Webhook"
      onClose={onClose}
      testId="webhook-modal"
      className="webhook-modal"
      onSubmit={() => void save()}
      dismiss="Cancel"
      footer={
        <BusyButton type="submit" className="is-primary" busy={saving} testId="webhook-save">
          Save
        </BusyButton>
      }
    >
      <Field id={`${id}-url`} label="URL">
        <input
          id={`${id}-url`}
          className="input"
          type="url"
          inputMode="url"
          placeholder="https://example.com/webhooks/transact"
          value={draft.url}
          onChange={(e) => set({ url: e.target.value })}
          autoComplete="off"
          data-testid="webhook-url-input"
        />
      </Field>
      <div className="webhook-modal-row">
        <Field id={`${id}-verb`} label="Method">
          <select
            id={`${id}-verb`}
            className="input webhook-select"
            value={draft.verb}
            onChange={(e) => set({ verb: e.target.value as Webhook['verb'] })}
            data-testid="webhook-verb-select"
          >
            {WEBHOOK_VERBS.map((v) => (
              <option key={v} value={v}>
                {v.toUpperCase()}
              </option>
            ))}
          </select>
        </Field>
        <Field id={`${id}-auth`} label="Authentication">
          <select
            id={`${id}-auth`}
            className="input webhook-select"
            value={draft.auth_type ?? ''}
            onChange={(e) => chooseAuth(e.target.value)}
            data-testid="webhook-auth-select"
          >
            <option value="">None</option>
            <option value="basic">Basic</option>
          </select>
        </Field>
        <Checkbox
          label="Active"
          checked={draft.status === 'enabled'}
          onChange={(on) => set({ status: on ? 'enabled' : 'disabled' })}
          className="webhook-active"
          testId="webhook-active"
        />
      </div>
      {draft.auth_type === 'basic' && draft.auth_details && (
        <div className="webhook-modal-row" data-testid="webhook-basic-fields">
          {CREDENTIALS.map(({ key, label, suffix, type, autoComplete }) => (
            <Field key={key} id={`${id}-${suffix}`} label={label} bare>
              <input
                id={`${id}-${suffix}`}
                className="input"
                type={type}
                autoComplete={autoComplete}
                value={draft.auth_details![key]}
                onChange={(e) => set({ auth_details: { ...draft.auth_details!, [key]: e.target.value } })}
                data-testid={`webhook-${key}`}
              />
            </Field>
          ))}
        </div>
      )}
      <fieldset className="field">
        <legend className="label">Events</legend>
        <div className="webhook-events">
          {WEBHOOK_EVENTS.map((event) => (
            <label key={event} className="checkbox">
              <input
                type="checkbox"
                checked={draft.event_types.includes(event)}
                onChange={(e) => toggleEvent(event, e.target.checked)}
                data-testid={`webhook-event-${event}`}
              />{' '}
              {EVENT_LABELS[event]}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="field">
        <legend className="label">Field set</legend>
        <div className="webhook-events">
          {(['standard', 'legacy'] as const).map((fs) => (
            <label key={fs} className="radio">
              <input
                type="radio"
                name={`${id}-field-set`}
                value={fs}
                checked={draft.field_set === fs}
                onChange={() => set({ field_set: fs })}
                data-testid={`webhook-field-set-${fs}`}
              />{' '}
              {fs === 'standard' ? 'Standard' : 'Legacy'}
            </label>
          ))}
        </div>
      </fieldset>
      {webhook?.secret && (
        <div className="webhook-secret">
          <CopyField label="Signing secret" value={webhook.secret} masked testId="webhook-secret" />
          <div className="buttons">
            <button
              type="button"
              className="button is-small"
              onClick={() => void rotateSecret()}
              data-testid="webhook-rotate"
            >
              Rotate secret
            </button>
            <BusyButton className="is-small" busy={testing} onClick={() => void runTest()} testId="webhook-test">
              Send test event
            </BusyButton>
          </div>
          {test && (
            <p
              className={`help ${testOk ? 'has-text-success' : 'has-text-danger'}`}
              role="status"
              data-testid="webhook-test-result"
            >
              {testText(test)}
            </p>
          )}
        </div>
      )}
    </Modal>
  );
}
