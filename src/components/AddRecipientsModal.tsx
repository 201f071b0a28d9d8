// Modal 'Add Recipients' of the Suppression List (docs/console-reports.md §2, §5): a textarea, one email per
// line, blank lines dropped, no format check in the browser. When every line was taken the modal
// closes; lines the server refused stay listed with their line numbers so they can be fixed.
import { useState } from 'react';
import type { AddOutcome } from '../stores/suppressions.ts';
import Modal from './Modal.tsx';

interface Props {
  onClose(): void;
  onSubmit(text: string): Promise<AddOutcome>;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 'es'}`;
}

export default function AddRecipientsModal({ onClose, onSubmit }: Props) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [outcome, setOutcome] = useState<AddOutcome | null>(null);
  const empty = text.trim() === '';

  async function submit() {
    if (empty || sending) return;
    setSending(true);
    const result = await onSubmit(text);
    setSending(false);
    if (result.ok && result.rejected.length === 0) onClose();
    else setOutcome(result);
  }

  return (
    <Modal labelledBy="add-recipients-title" onClose={onClose} testId="add-recipients-modal">
      <form
        className="modal-card add-recipients"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <header className="modal-card-head">
          <p className="modal-card-title" id="add-recipients-title">
            Add Recipients
          </p>
          <button type="button" className="delete" aria-label="Close" onClick={onClose} />
        </header>
        <section className="modal-card-body">
          <div className="field">
            <label className="label" htmlFor="add-recipients-emails">
              Email addresses
            </label>
            <div className="control">
              <textarea
                id="add-recipients-emails"
                className="textarea"
                rows={8}
                placeholder={'jane@example.com\njohn@example.org'}
                value={text}
                onChange={(e) => setText(e.target.value)}
                aria-describedby="add-recipients-help"
                autoFocus
                data-testid="add-recipients-textarea"
              />
            </div>
            <p className="help" id="add-recipients-help">
              One email address per line. Mail to these addresses will not be sent.
            </p>
          </div>
          {outcome?.ok && (
            <p className="notification is-warning is-light" data-testid="add-recipients-summary">
              {plural(outcome.added, 'address')} added, {outcome.already} already on the list. These lines were not
              added:
            </p>
          )}
          {outcome && !outcome.ok && (
            <p className="notification is-danger is-light" data-testid="add-recipients-error">
              {outcome.message}
            </p>
          )}
          {outcome && outcome.rejected.length > 0 && (
            <ul className="rejected-lines" data-testid="add-recipients-rejected">
              {outcome.rejected.map((r) => (
                <li key={r.line}>
                  <span className="has-text-weight-semibold">Line {r.line}:</span> {r.message}
                </li>
              ))}
            </ul>
          )}
        </section>
        <footer className="modal-card-foot buttons is-right">
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="submit"
            className={`button is-primary${sending ? ' is-loading' : ''}`}
            disabled={empty || sending}
            data-testid="add-recipients-submit"
          >
            Add Recipients
          </button>
        </footer>
      </form>
    </Modal>
  );
}
