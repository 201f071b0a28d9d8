// Review Online Attachment (docs/console-reports.md §2): the link settings read-only, the integration ID with
// copy, the files, and Save, which shows 'Save successful' and goes to the list after 3 s.
import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect } from 'react';
import CopyField from '../components/CopyField.tsx';
import { formatLongDate } from '../lib/dates.ts';
import { formatFileSize } from '../lib/file-size.ts';
import { draft, loadFailed, loadGroup, requestStatus, saveReview } from '../stores/attachments.ts';
import BusyButton from '../components/BusyButton.tsx';

export default function AttachmentReview({ id }: { id: number }) {
  const $draft = useIslandStore(draft);
  const $status = useIslandStore(requestStatus);
  const $loadFailed = useIslandStore(loadFailed);
  useEffect(() => void loadGroup(id), [id]);
  const pending = $status === 'pending' || $loadFailed;
  return (
    <section className="card" aria-busy={pending} data-testid="attachment-review">
      <div className="card-content">
        <h2 className="title is-5" data-testid="review-name">
          {$draft.id === null ? '…' : $draft.name}
        </h2>
        <dl className="review-settings">
          <dt>Expiry date</dt>
          <dd data-testid="review-expiry">{$draft.expiry ? formatLongDate($draft.expiry) : 'Never'}</dd>
          <dt>Access limit</dt>
          <dd data-testid="review-limit">{$draft.accessLimit > 0 ? $draft.accessLimit : 'No limit'}</dd>
        </dl>
        {$draft.integrationId && (
          <CopyField label="Integration ID" value={$draft.integrationId} testId="integration-id" />
        )}
        <h3 className="title is-6">Files</h3>
        <ul className="file-list">
          {$draft.assets.map((a) => (
            <li key={a.id} data-testid="file-row">
              <span className="file-name">{a.name}</span>
              <span className="file-size has-text-grey">{formatFileSize(a.size)}</span>
            </li>
          ))}
        </ul>
        <div className="buttons is-right">
          <BusyButton
            className="is-primary"
            busy={pending}
            disabled={$draft.id === null}
            onClick={() => void saveReview()}
            testId="review-save"
          >
            Save
          </BusyButton>
        </div>
      </div>
    </section>
  );
}
