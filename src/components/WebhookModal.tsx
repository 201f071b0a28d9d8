// The Webhook modal (docs/console.md §2, §4, §5, §8, §9): URL, Method, Active, Authentication (None or
// Basic: choosing Basic resets the username and password to empty, choosing None removes them), the
// event checkboxes (the spec's seven, and ours: Delayed and Complaint) and the field set; defaults for
// a new webhook post, enabled, standard and every event. Ours beyond the spec too: the signing secret
// (masked, copyable, Rotate) and Send test event; the `resend` field set, whose events are Resend's
// (docs/webhooks.md "Resend's events"), and for it what email.received carries, the message's fields or
// the whole message (docs/receiving.md "To a webhook"); and several webhooks: `adding` saves a new one
// beside the others.
import { useId, useState } from 'react';
import CopyField from './CopyField.tsx';
import {
  defaultWebhook,
  RECEIVED_INLINE_LIMIT_BYTES,
  RESEND_WEBHOOK_EVENTS,
  rotateSecret,
  deleteWebhook,
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
  /** a new webhook beside the account's others (Add webhook) */
  adding?: boolean;
  onClose(): void;
}

const FIELD_SETS = [
  ['standard', 'Standard'],
  ['legacy', 'Legacy'],
  ['resend', 'Resend'],
] as const;

/** The event checkboxes of a field set: Resend's names for `resend`, ours otherwise. */
const eventsOf = (fieldSet: string): readonly string[] =>
  fieldSet === 'resend' ? RESEND_WEBHOOK_EVENTS : WEBHOOK_EVENTS;
const labelOf = (event: string) => EVENT_LABELS[event as (typeof WEBHOOK_EVENTS)[number]] ?? event;

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

/** What email.received carries, as the select names it. */
const RECEIVED_CONTENT_CHOICES = [
  ['metadata', 'Its fields only'],
  ['full', 'The whole message'],
] as const;

/**
 * A `resend` webhook's choice of what email.received carries, and with the whole message the total
 * in KiB up to which attachments come inline (beyond it, each is a download link).
 */
function ReceivedContentFields({ draft, set }: { draft: Webhook; set(change: Partial<Webhook>): void }) {
  const id = useId();
  const kib = Math.round(draft.received_inline_max_bytes / 1024);
  const maxKib = RECEIVED_INLINE_LIMIT_BYTES / 1024;
  return (
    <div className="webhook-received" data-testid="webhook-received">
      <Field
        id={`${id}-content`}
        label="Received mail (email.received) carries"
        help={
          <p className="help">
            Its fields: sender, recipients, subject and attachment names. The whole message adds the text, HTML,
            headers, attachments and a link to the raw message.
          </p>
        }
      >
        <select
          id={`${id}-content`}
          className="input webhook-select"
          value={draft.received_content}
          onChange={(e) => set({ received_content: e.target.value as Webhook['received_content'] })}
          data-testid="webhook-received-content"
        >
          {RECEIVED_CONTENT_CHOICES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      {draft.received_content === 'full' && (
        <Field
          id={`${id}-inline`}
          label="Attachments inline up to (KiB in all)"
          help={
            <p className="help">
              Larger attachments come as download links that work while the message is kept. 0: always links.
            </p>
          }
        >
          <input
            id={`${id}-inline`}
            className="input webhook-inline-input"
            type="number"
            min={0}
            max={maxKib}
            step={1}
            value={kib}
            onChange={(e) => {
              const value = Math.min(Math.max(Math.floor(Number(e.target.value) || 0), 0), maxKib);
              set({ received_inline_max_bytes: value * 1024 });
            }}
            data-testid="webhook-received-inline"
          />
        </Field>
      )}
    </div>
  );
}

/** Basic authentication's two fields; a password manager must not fill in the account's own. */
const CREDENTIALS = [
  { key: 'username', label: 'Username', suffix: 'user', type: 'text', autoComplete: 'off' },
  { key: 'password', label: 'Password', suffix: 'password', type: 'password', autoComplete: 'new-password' },
] as const;

export default function WebhookModal({ webhook, adding = false, onClose }: Props) {
  const id = useId();
  const [draft, setDraft] = useState<Webhook>(() => (webhook ? { ...webhook } : defaultWebhook()));
  const [saving, setSaving] = useState(false);
  // Delete asks once more in the footer before it deletes
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
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
      event_types: (on
        ? eventsOf(d.field_set).filter((e) => e === event || (d.event_types as string[]).includes(e))
        : d.event_types.filter((e) => e !== event)) as Webhook['event_types'],
    }));
  }

  /** Another field set; between ours and Resend's the events start again as all of the new kind. */
  function chooseFieldSet(fieldSet: Webhook['field_set']) {
    setDraft((d) => {
      const sameKind = (fieldSet === 'resend') === (d.field_set === 'resend');
      const event_types = sameKind ? d.event_types : ([...eventsOf(fieldSet)] as Webhook['event_types']);
      return { ...d, field_set: fieldSet, event_types };
    });
  }

  async function save() {
    setSaving(true);
    const saved = await saveWebhook(draft, undefined, adding);
    if (!saved) setSaving(false); // after a save the page reloads; the button stays busy till then
  }

  async function remove() {
    setDeleting(true);
    if (!(await deleteWebhook(webhook!.id!))) setDeleting(false);
  }

  async function runTest() {
    setTesting(true);
    setTest(null);
    setTest(await sendTestEvent(webhook?.id));
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
      title={adding ? 'New webhook' : 'Webhook'}
      onClose={onClose}
      testId="webhook-modal"
      className="webhook-modal"
      onSubmit={() => void save()}
      dismiss="Cancel"
      footer={
        confirming ? (
          <>
            <span className="webhook-confirm" data-testid="webhook-delete-question">
              Delete this webhook? No event is sent to it after this; its logged requests stay.
            </span>
            <BusyButton
              className="is-danger"
              busy={deleting}
              onClick={() => void remove()}
              testId="webhook-delete-confirm"
            >
              Delete webhook
            </BusyButton>
            <button
              type="button"
              className="button"
              onClick={() => setConfirming(false)}
              data-testid="webhook-delete-keep"
            >
              Keep it
            </button>
          </>
        ) : (
          <>
            <BusyButton type="submit" className="is-primary" busy={saving} testId="webhook-save">
              Save
            </BusyButton>
            {webhook?.id && (
              <button
                type="button"
                className="button is-danger is-light webhook-delete"
                onClick={() => setConfirming(true)}
                data-testid="webhook-delete"
              >
                Delete
              </button>
            )}
          </>
        )
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
          {eventsOf(draft.field_set).map((event) => (
            <label key={event} className="checkbox">
              <input
                type="checkbox"
                checked={(draft.event_types as string[]).includes(event)}
                onChange={(e) => toggleEvent(event, e.target.checked)}
                data-testid={`webhook-event-${event}`}
              />{' '}
              {labelOf(event)}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="field">
        <legend className="label">Field set</legend>
        <div className="webhook-events">
          {FIELD_SETS.map(([fs, label]) => (
            <label key={fs} className="radio">
              <input
                type="radio"
                name={`${id}-field-set`}
                value={fs}
                checked={draft.field_set === fs}
                onChange={() => chooseFieldSet(fs)}
                data-testid={`webhook-field-set-${fs}`}
              />{' '}
              {label}
            </label>
          ))}
        </div>
      </fieldset>
      {draft.field_set === 'resend' && (draft.event_types as string[]).includes('email.received') && (
        <ReceivedContentFields draft={draft} set={set} />
      )}
      {webhook?.secret && (
        <div className="webhook-secret">
          <CopyField label="Signing secret" value={webhook.secret} masked testId="webhook-secret" />
          <div className="buttons">
            <button
              type="button"
              className="button is-small"
              onClick={() => void rotateSecret(webhook.id)}
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
