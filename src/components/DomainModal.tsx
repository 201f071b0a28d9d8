// Modal "Verify and Authenticate your Domain" (docs/console.md §2, §4, §5): a domain field; once a domain
// is typed, the local part of the verification address with an @domain suffix. Send Verification
// Email is disabled while the domain is invalid, the local part is empty, a request is loading, or
// after a success.
// Success shows the message and closes after 3 s; an error message clears after 5 s.
import { useEffect, useRef, useState } from 'react';
import { DOMAIN_PATTERN, INVALID_DOMAIN_MESSAGE } from '../lib/domain-name.ts';
import { MODAL_ERROR_CLEAR_MS, MODAL_SUCCESS_CLOSE_MS } from '../lib/timings.ts';
import BusyButton from './BusyButton.tsx';
import Modal from './Modal.tsx';
import Field from './Field.tsx';

interface Props {
  onClose(): void;
  /** Sends the request; resolves with the server's messages. */
  onSubmit(domain: string, email: string): Promise<string[]>;
  successMessage: string;
}

export default function DomainModal({ onClose, onSubmit, successMessage }: Props) {
  const [domain, setDomain] = useState('');
  const [local, setLocal] = useState('');
  const [loading, setLoading] = useState(false);
  const [success, setSuccess] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timers = useRef<ReturnType<typeof setTimeout>[]>([]);
  useEffect(() => () => timers.current.forEach(clearTimeout), []);

  const trimmed = domain.trim();
  const domainValid = DOMAIN_PATTERN.test(trimmed);
  // after a success the modal closes in 3 s: no second request meanwhile
  const disabled = !domainValid || local.trim() === '' || loading || success !== null;

  async function send() {
    if (disabled) return;
    setLoading(true);
    setError(null);
    const messages = await onSubmit(trimmed, `${local.trim()}@${trimmed}`);
    setLoading(false);
    if (messages.includes(successMessage)) {
      setSuccess(
        `${successMessage}. We sent a verification email to ` +
          `${local.trim()}@${trimmed}: open the link in it to verify the domain.`,
      );
      timers.current.push(setTimeout(onClose, MODAL_SUCCESS_CLOSE_MS));
    } else {
      setError(messages.join(', '));
      timers.current.push(setTimeout(() => setError(null), MODAL_ERROR_CLEAR_MS));
    }
  }

  return (
    <Modal
      title="Verify and Authenticate your Domain"
      titleId="domain-modal-title"
      onClose={onClose}
      testId="domain-modal"
      onSubmit={() => void send()}
      dismiss="Back"
      footer={
        <BusyButton type="submit" className="is-primary" busy={loading} disabled={disabled} testId="send-verification">
          Send Verification Email
        </BusyButton>
      }
    >
      <Field
        id="domain-input"
        label="Domain"
        help={
          trimmed &&
          !domainValid && (
            <p className="help is-danger" data-testid="domain-invalid">
              {INVALID_DOMAIN_MESSAGE}
            </p>
          )
        }
      >
        <input
          id="domain-input"
          className={`input${trimmed && !domainValid ? ' is-danger' : ''}`}
          type="text"
          placeholder="example.com"
          value={domain}
          onChange={(e) => setDomain(e.target.value)}
          autoComplete="off"
          autoFocus
          data-testid="domain-input"
        />
      </Field>
      {trimmed && (
        <Field
          id="local-input"
          label="Verification email"
          bare
          help={
            <p className="help">We send a link to this address; opening it proves you receive mail at the domain.</p>
          }
        >
          <div className="field has-addons">
            <div className="control is-expanded">
              <input
                id="local-input"
                className="input"
                type="text"
                placeholder="postmaster"
                value={local}
                onChange={(e) => setLocal(e.target.value)}
                autoComplete="off"
                data-testid="local-input"
              />
            </div>
            <div className="control">
              <span className="button is-static" data-testid="domain-suffix">
                @{trimmed}
              </span>
            </div>
          </div>
        </Field>
      )}
      {success && (
        <div className="notification is-success is-light" data-testid="domain-success">
          {success}
        </div>
      )}
      {error && (
        <div className="notification is-danger is-light" data-testid="domain-error">
          {error}
        </div>
      )}
    </Modal>
  );
}
