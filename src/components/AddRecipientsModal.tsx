// Modal 'Add Recipients' of the Suppression List (docs/console-reports.md §2, §5): a textarea, one email per
// line, blank lines dropped, no format check in the browser. When every line was taken the modal
// closes. When some were, the textarea keeps only the lines the server refused, listed with their
// line numbers so they can be fixed: pressing Add again never sends the added ones twice.
import { useState } from 'react';
import type { AddOutcome } from '../stores/suppressions.ts';
import BusyButton from './BusyButton.tsx';
import Modal from './Modal.tsx';
import Field from './Field.tsx';

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
    else if (result.ok) {
      // the added lines leave the textarea; the refused ones stay, numbered as they now stand
      setText(result.rejected.map((r) => r.value).join('\n'));
      setOutcome({ ...result, rejected: result.rejected.map((r, i) => ({ ...r, line: i + 1 })) });
    } else setOutcome(result);
  }

  return (
    <Modal
      title="Add Recipients"
      titleId="add-recipients-title"
      onClose={onClose}
      testId="add-recipients-modal"
      cardClassName="add-recipients"
      onSubmit={() => void submit()}
      footerClassName="buttons is-right"
      dismiss="Cancel"
      footer={
        <BusyButton type="submit" className="is-primary" busy={sending} disabled={empty} testId="add-recipients-submit">
          Add Recipients
        </BusyButton>
      }
    >
      <Field
        id="add-recipients-emails"
        label="Email addresses"
        help={
          <p className="help" id="add-recipients-help">
            One email address per line. Mail to these addresses will not be sent.
          </p>
        }
      >
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
      </Field>
      {outcome?.ok && (
        <p className="notification is-warning is-light" data-testid="add-recipients-summary">
          {plural(outcome.added, 'address')} added, {outcome.already} already on the list. These lines were not added,
          and are left to fix:
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
    </Modal>
  );
}
