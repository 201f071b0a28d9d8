// The online attachment create/edit page (docs/console-reports.md §2, §4, §5): the editable name (Edit/Save,
// default Untitled; Enter or leaving the field keeps it, Escape cancels), tabs Files (drag-and-drop or Browse
// Computer, 'N file(s) uploaded', each file with its size, delete icon and upload progress) and Settings (expiry toggle
// with its picker, access limit toggle with a number, the integration ID), the live preview, and Save / Save & Exit.
// The page is disabled while a request is pending.
import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect, useRef, useState } from 'react';
import AttachmentPreview from '../components/AttachmentPreview.tsx';
import CopyField from '../components/CopyField.tsx';
import { linkState } from '../lib/attachment-state.ts';
import { formatFileSize } from '../lib/file-size.ts';
import {
  branding,
  commitName,
  deleteFile,
  draft,
  expiryError,
  fileMessage,
  loadBranding,
  loadFailed,
  loadGroup,
  pickExpiry,
  requestStatus,
  save,
  toggleAccessLimit,
  toggleExpiry,
  updateDraft,
  uploadFiles,
  uploads,
} from '../stores/attachments.ts';
import LineIcon from '../components/LineIcon.tsx';
import Field from '../components/Field.tsx';

const TABS = [
  { key: 'files', label: 'Files' },
  { key: 'settings', label: 'Settings' },
] as const;

function TrashIcon() {
  return (
    <LineIcon size={16}>
      <polyline points="3 6 5 6 21 6" />
      <path d="M19 6l-1 14a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2L5 6" />
    </LineIcon>
  );
}

function ExpiryField({ value, onPick, error }: { value: number; onPick: (v: number) => void; error: string | null }) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    let picker: { destroy(): void } | undefined;
    let cancelled = false;
    void import('../components/expiry-picker.ts').then(({ createExpiryPicker }) => {
      if (!cancelled && input.current) picker = createExpiryPicker(input.current, { value, onPick });
    });
    return () => {
      cancelled = true;
      picker?.destroy();
    };
    // created once: the picker keeps its own value from then on
  }, []);
  return (
    <Field
      id="attachment-expiry"
      label="Expiry date and time (UTC)"
      bare
      help={
        error && (
          <p id="attachment-expiry-error" className="help is-danger" role="alert" data-testid="attachment-expiry-error">
            {error}
          </p>
        )
      }
    >
      <input
        id="attachment-expiry"
        ref={input}
        className={`input${error ? ' is-danger' : ''}`}
        type="text"
        readOnly
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'attachment-expiry-error' : undefined}
        data-testid="attachment-expiry"
      />
    </Field>
  );
}

/** `sender`: the account's name, which the download page shows (its preview here too). */
export default function AttachmentEditor({ id, sender = null }: { id: number | null; sender?: string | null }) {
  const $draft = useIslandStore(draft);
  const $uploads = useIslandStore(uploads);
  const $status = useIslandStore(requestStatus);
  const $message = useIslandStore(fileMessage);
  const $branding = useIslandStore(branding);
  const $loadFailed = useIslandStore(loadFailed);
  const $expiryError = useIslandStore(expiryError);
  const [tab, setTab] = useState<'files' | 'settings'>('files');
  const [editingName, setEditingName] = useState(false);
  const [name, setName] = useState($draft.name);
  const [dragging, setDragging] = useState(false);
  const browse = useRef<HTMLInputElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  // Escape leaves the field too: its blur must not keep what Escape cancelled
  const cancelling = useRef(false);
  // after Enter, Escape or Tab the keyboard goes back to the Edit button (not after a click elsewhere)
  const refocus = useRef(false);

  useEffect(() => {
    void loadBranding();
    if (id !== null) void loadGroup(id);
  }, [id]);
  useEffect(() => setName($draft.name), [$draft.name]);
  // a refused expiry is shown at its field, on the Settings tab
  useEffect(() => {
    if ($expiryError) setTab('settings');
  }, [$expiryError]);
  useEffect(() => {
    if (!editingName && refocus.current) {
      refocus.current = false;
      editButton.current?.focus();
    }
  }, [editingName]);

  const commitEdit = () => {
    commitName(name);
    setEditingName(false);
  };
  const cancelEdit = () => {
    cancelling.current = true;
    refocus.current = true;
    setName($draft.name);
    setEditingName(false);
  };

  const pending = $status === 'pending' || $loadFailed;
  const add = (files: FileList | null) => {
    if (!files?.length) return;
    // a name still being typed is the name the first upload creates the link with
    if (editingName) commitEdit();
    void uploadFiles([...files]);
  };
  const count = $draft.assets.length;

  return (
    <div className="attachment-editor" aria-busy={pending} data-testid="attachment-editor">
      <fieldset disabled={pending} className="editor-fieldset">
        <div className="editor-name">
          {editingName ? (
            <form
              className="editor-name-form"
              onSubmit={(e) => {
                e.preventDefault();
                refocus.current = true;
                commitEdit();
              }}
            >
              <label className="is-sr-only" htmlFor="attachment-name-input">
                Link name
              </label>
              <input
                id="attachment-name-input"
                className="input"
                value={name}
                maxLength={200}
                autoFocus
                onChange={(e) => setName(e.target.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Escape') {
                    e.preventDefault();
                    cancelEdit();
                  }
                }}
                onBlur={(e) => {
                  if (cancelling.current) {
                    cancelling.current = false;
                    return;
                  }
                  // Tab goes to the form's own Save button, which leaves with the form: focus the Edit
                  // button that takes its place, so the keyboard is not dropped to the page's start
                  const to = e.relatedTarget;
                  if (to instanceof Node && e.currentTarget.form?.contains(to)) refocus.current = true;
                  commitEdit();
                }}
                data-testid="attachment-name-input"
              />
              <button type="submit" className="button" data-testid="attachment-name-save">
                Save
              </button>
            </form>
          ) : (
            <>
              <h2 className="title is-4" data-testid="attachment-name">
                {$draft.name}
              </h2>
              <button
                type="button"
                ref={editButton}
                className="button is-small"
                onClick={() => {
                  cancelling.current = false;
                  setEditingName(true);
                }}
                data-testid="attachment-name-edit"
              >
                Edit
              </button>
            </>
          )}
        </div>
        <div className="attachments-layout">
          <section className="card editor-panel" aria-label="Link">
            <div className="tabs">
              <ul role="tablist">
                {TABS.map(({ key, label }) => (
                  <li key={key} role="presentation" className={tab === key ? 'is-active' : undefined}>
                    <a
                      role="tab"
                      aria-selected={tab === key}
                      href={`#${key}`}
                      onClick={(e) => {
                        e.preventDefault();
                        setTab(key);
                      }}
                      data-testid={`tab-${key}`}
                    >
                      {label}
                    </a>
                  </li>
                ))}
              </ul>
            </div>
            <div className="card-content">
              {tab === 'files' ? (
                <div role="tabpanel" aria-label="Files">
                  <div
                    className={`dropzone${dragging ? ' is-dragging' : ''}`}
                    onDragOver={(e) => {
                      e.preventDefault();
                      setDragging(true);
                    }}
                    onDragLeave={() => setDragging(false)}
                    onDrop={(e) => {
                      e.preventDefault();
                      setDragging(false);
                      add(e.dataTransfer.files);
                    }}
                    data-testid="dropzone"
                  >
                    <p>Drag and drop files here, or</p>
                    <button
                      type="button"
                      className="button is-primary is-light"
                      onClick={() => browse.current?.click()}
                      data-testid="browse"
                    >
                      Browse Computer
                    </button>
                    <input
                      ref={browse}
                      type="file"
                      multiple
                      hidden
                      onChange={(e) => {
                        add(e.target.files);
                        e.target.value = '';
                      }}
                      data-testid="file-input"
                      aria-label="Files to upload"
                    />
                  </div>
                  <p className="files-count" data-testid="files-count">
                    {count} file(s) uploaded
                  </p>
                  {$message && (
                    <p className={`help is-${$message.kind}`} role="status" data-testid="file-message">
                      {$message.text}
                    </p>
                  )}
                  <ul className="file-list">
                    {$draft.assets.map((a) => (
                      <li key={a.id} data-testid="file-row">
                        <span className="file-name">{a.name}</span>
                        <span className="file-size has-text-grey">{formatFileSize(a.size)}</span>
                        <button
                          type="button"
                          className="button is-small is-white"
                          aria-label={`Delete ${a.name}`}
                          onClick={() => void deleteFile(a.id)}
                          data-testid="file-delete"
                        >
                          <TrashIcon />
                        </button>
                      </li>
                    ))}
                    {$uploads.map((u) => (
                      <li key={u.key} data-testid="upload-row">
                        <span className="file-name">{u.name}</span>
                        <span className="file-size has-text-grey">{formatFileSize(u.size)}</span>
                        <progress
                          className="progress is-small is-primary"
                          value={Math.round(u.progress * 100)}
                          max={100}
                          aria-label={`Uploading ${u.name}`}
                          data-testid="upload-progress"
                        >
                          {Math.round(u.progress * 100)}%
                        </progress>
                      </li>
                    ))}
                  </ul>
                </div>
              ) : (
                <div role="tabpanel" aria-label="Settings">
                  <h2 className="title is-6">Link settings</h2>
                  <div className="field">
                    <label className="checkbox switch-label">
                      <input
                        type="checkbox"
                        checked={$draft.expiry !== null}
                        onChange={(e) => toggleExpiry(e.target.checked)}
                        data-testid="expiry-toggle"
                      />{' '}
                      The link expires
                    </label>
                  </div>
                  {$draft.expiry !== null && (
                    <ExpiryField value={$draft.expiry} onPick={(v) => pickExpiry(v)} error={$expiryError} />
                  )}
                  <div className="field">
                    <label className="checkbox switch-label">
                      <input
                        type="checkbox"
                        checked={$draft.accessLimit > 0}
                        onChange={(e) => toggleAccessLimit(e.target.checked)}
                        data-testid="limit-toggle"
                      />{' '}
                      Limit the number of downloads
                    </label>
                  </div>
                  {$draft.accessLimit > 0 && (
                    <Field id="attachment-limit" label="Access limit" bare>
                      <input
                        id="attachment-limit"
                        className="input"
                        type="number"
                        min={1}
                        step={1}
                        value={$draft.accessLimit}
                        onChange={(e) =>
                          updateDraft({ accessLimit: Math.max(1, Math.floor(Number(e.target.value) || 1)) })
                        }
                        data-testid="attachment-limit"
                      />
                    </Field>
                  )}
                  <h2 className="title is-6">Integration ID</h2>
                  {$draft.integrationId ? (
                    <CopyField label="Integration ID" value={$draft.integrationId} testId="integration-id" />
                  ) : (
                    <p className="has-text-grey">Save the link to get its integration ID.</p>
                  )}
                  <p className="help">
                    Send it as <code>online_attachment_id</code> with POST /v1/mail, or in the{' '}
                    <code>X-Transact-Attachments</code> header over SMTP.
                  </p>
                </div>
              )}
            </div>
          </section>
          <aside className="card attachments-pane" aria-label="Preview">
            <div className="card-content">
              <AttachmentPreview
                branding={$branding}
                previewLink={$draft.previewLink}
                expiry={$draft.expiry}
                // what the recipient would see with these settings now (a saved link only has downloads)
                state={
                  $draft.id === null
                    ? 'live'
                    : linkState(
                        { expiry: $draft.expiry, accessLimit: $draft.accessLimit, downloads: $draft.downloads },
                        Date.now() / 1000,
                      )
                }
                files={[...$draft.assets, ...$uploads]}
                name={$draft.name}
                sender={sender}
              />
            </div>
          </aside>
        </div>
        <footer className="editor-footer buttons is-right">
          <button
            type="button"
            className={`button${pending ? ' is-loading' : ''}`}
            onClick={() => void save(false)}
            data-testid="attachment-save"
          >
            Save
          </button>
          <button
            type="button"
            className={`button is-primary${pending ? ' is-loading' : ''}`}
            onClick={() => void save(true)}
            data-testid="attachment-save-exit"
          >
            Save &amp; Exit
          </button>
        </footer>
      </fieldset>
    </div>
  );
}
