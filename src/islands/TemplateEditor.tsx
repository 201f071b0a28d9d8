// The template editor (docs/console-reports.md §2): name, from name, from address on a verified domain,
// reply-to with 'Use different reply to Email' (§4), subject, description, the HTML in a code
// editor, Save and Publish; beside it the live preview in a sandboxed frame and its sample variables.
// What stops Publish is said at its field; the HTML's compile error beside the editor.
import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect } from 'react';
import CodeEditor from '../components/CodeEditor.tsx';
import TemplatePreview from '../components/TemplatePreview.tsx';
import {
  compileError,
  differentReplyTo,
  fieldErrors,
  fields,
  loadStatus,
  openEditor,
  preview,
  publish,
  requestStatus,
  sampleText,
  save,
  setDifferentReplyTo,
  setField,
  setFromEmail,
  setSampleText,
  unpublishedChanges,
  verifiedDomains,
} from '../stores/template-editor.ts';
import BusyButton from '../components/BusyButton.tsx';
import Field from '../components/Field.tsx';
import Checkbox from '../components/Checkbox.tsx';

/** A field's inline message, linked to its input by id. */
function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <p className="help is-danger" id={id} data-testid={id}>
      {message}
    </p>
  ) : null;
}

/** The attributes that tie an input to its inline message. */
const invalid = (id: string, message: string | undefined) =>
  message ? { 'aria-invalid': true, 'aria-describedby': id } : {};

/**
 * One of the template's one-line fields, bound to the editor's store (test id `field-` and the field's
 * name); a field Publish checks (`checkedAs`, its key among the problems) shows its problem below, tied
 * to it as `error-<key>`.
 */
function TextField({
  field,
  id,
  label,
  type = 'text',
  className,
  placeholder,
  readOnly,
  checkedAs,
}: {
  field: 'name' | 'from_name' | 'reply_email' | 'subject' | 'description';
  id: string;
  label: string;
  type?: 'text' | 'email';
  className?: string;
  placeholder?: string;
  readOnly?: boolean;
  checkedAs?: 'name' | 'subject';
}) {
  const value = useIslandStore(fields)[field];
  const $errors = useIslandStore(fieldErrors);
  const errorId = checkedAs && `error-${checkedAs}`;
  const error = checkedAs && $errors[checkedAs];
  return (
    <Field
      id={id}
      label={label}
      className={className}
      bare
      help={errorId && <FieldError id={errorId} message={error} />}
    >
      <input
        id={id}
        className={`input${error ? ' is-danger' : ''}`}
        type={type}
        value={value}
        placeholder={placeholder}
        readOnly={readOnly}
        {...(errorId && invalid(errorId, error))}
        onChange={(e) => setField(field, e.target.value)}
        data-testid={`field-${field.replace('_', '-')}`}
      />
    </Field>
  );
}

/** The from address as a local part and one of the verified domains. */
function FromAddress({
  value,
  domains,
  error,
  onChange,
}: {
  value: string;
  domains: string[];
  error: string | undefined;
  onChange(v: string): void;
}) {
  const at = value.lastIndexOf('@');
  const local = at >= 0 ? value.slice(0, at) : value;
  const domain = at >= 0 ? value.slice(at + 1) : (domains[0] ?? '');
  const options = domain && !domains.includes(domain) ? [...domains, domain] : domains;
  const join = (l: string, d: string) => (l === '' ? '' : `${l}@${d}`);
  return (
    <div className="field has-addons from-address">
      <p className="control is-expanded">
        <input
          id="from-local"
          className={`input${error ? ' is-danger' : ''}`}
          type="text"
          value={local}
          placeholder="hello"
          {...invalid('error-from-email', error)}
          onChange={(e) => onChange(join(e.target.value.replace(/@.*/, ''), domain))}
          data-testid="from-local"
        />
      </p>
      <p className="control">
        <span className="button is-static">@</span>
      </p>
      <p className="control">
        <span className={`select${error ? ' is-danger' : ''}`}>
          <select
            aria-label="From domain"
            value={domain}
            {...invalid('error-from-email', error)}
            onChange={(e) => onChange(join(local, e.target.value))}
            data-testid="from-domain"
          >
            {options.length === 0 && <option value="">No verified domain</option>}
            {options.map((d) => (
              <option key={d} value={d}>
                {domains.includes(d) ? d : `${d} (not verified)`}
              </option>
            ))}
          </select>
        </span>
      </p>
    </div>
  );
}

export default function TemplateEditor({ mode, hash }: { mode: 'create' | 'edit'; hash: string }) {
  const $fields = useIslandStore(fields);
  const $different = useIslandStore(differentReplyTo);
  const $status = useIslandStore(requestStatus);
  const $load = useIslandStore(loadStatus);
  const $domains = useIslandStore(verifiedDomains);
  const $sample = useIslandStore(sampleText);
  const $preview = useIslandStore(preview);
  const $errors = useIslandStore(fieldErrors);
  const $compile = useIslandStore(compileError);
  const $unpublished = useIslandStore(unpublishedChanges);
  useEffect(() => void openEditor(mode, hash), [mode, hash]);

  if ($load === 'loading')
    return (
      <p className="has-text-grey-dark" aria-busy="true">
        Loading…
      </p>
    );
  if ($load === 'failed')
    return (
      <p className="has-text-grey-dark" data-testid="editor-failed">
        Error in getting templates. <a href="/templates">Back to Templates</a>
      </p>
    );
  const pending = $status === 'pending';
  return (
    <form
      className="template-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      data-request-status={$status}
      data-testid="template-editor"
    >
      <div className="editor-fields card">
        <div className="card-content">
          <TextField field="name" id="template-name" label="Name" placeholder="Untitled Template" checkedAs="name" />
          <div className="columns">
            <TextField field="from_name" id="from-name" label="From name" className="column is-5" />
            <Field
              id="from-local"
              label="From email"
              className="column from-field"
              bare
              help={<FieldError id="error-from-email" message={$errors.from_email} />}
            >
              <FromAddress
                value={$fields.from_email}
                domains={$domains}
                error={$errors.from_email}
                onChange={setFromEmail}
              />
            </Field>
          </div>
          <Checkbox
            label="Use different reply to Email"
            checked={$different}
            onChange={setDifferentReplyTo}
            testId="different-reply-to"
          />
          <TextField field="reply_email" id="reply-email" label="Reply to email" type="email" readOnly={!$different} />
          <TextField field="subject" id="subject" label="Subject" checkedAs="subject" />
          <TextField field="description" id="description" label="Description" />
          <div className="field">
            <span className="label" id="html-label">
              HTML
            </span>
            <CodeEditor
              value={$fields.content_html}
              onChange={(v) => setField('content_html', v)}
              label="Template HTML"
              describedBy={$compile ? 'error-html' : undefined}
              error={$compile}
            />
            {$compile && (
              <p className="help is-danger compile-error" id="error-html" role="status" data-testid="error-html">
                The HTML does not compile ({$compile.message.replace(/^content_html /, '')}). Save keeps it as it is;
                Publish needs it to compile.
              </p>
            )}
            <p className="help">
              Variables in Handlebars: <code>{'{{first_name}}'}</code>, <code>{'{{#if coupon}}…{{/if}}'}</code>,{' '}
              <code>{'{{#each items}}…{{/each}}'}</code>.
            </p>
          </div>
          <Field id="content-text" label="Text part" bare>
            <textarea
              id="content-text"
              className="textarea is-family-monospace"
              rows={5}
              value={$fields.content_text}
              placeholder="Leave empty to send a text part made from the HTML"
              onChange={(e) => setField('content_text', e.target.value)}
              data-testid="field-content-text"
            />
          </Field>
          <div className="buttons">
            <BusyButton type="submit" className="is-primary" busy={pending} testId="save">
              Save
            </BusyButton>
            <button
              type="button"
              className="button is-success"
              disabled={pending}
              onClick={() => void publish()}
              data-testid="publish"
            >
              Publish
            </button>
            <span
              className={`tag ${$fields.status === 'published' ? 'is-success' : ''} is-light`}
              data-testid="template-status"
            >
              {$fields.status === 'published' ? 'Published' : 'Draft'}
            </span>
            {$fields.status === 'published' && $unpublished && (
              <span className="help" data-testid="unpublished-changes">
                Saved changes are not sent until you publish them.
              </span>
            )}
          </div>
        </div>
      </div>
      <div className="editor-preview card">
        <div className="card-content">
          <h2 className="title is-6">Preview</h2>
          <p className="template-subject" data-testid="preview-subject">
            {$preview.subject || ' '}
          </p>
          {$preview.error && (
            <p className="help is-danger" data-testid="preview-error">
              {$preview.error}
            </p>
          )}
          <TemplatePreview html={$preview.html} title="Template preview" />
          <Field id="sample-variables" label="Sample variables (JSON)" className="mt-3" bare>
            <textarea
              id="sample-variables"
              className="textarea is-family-monospace"
              rows={6}
              value={$sample}
              onChange={(e) => setSampleText(e.target.value)}
              data-testid="sample-variables"
            />
          </Field>
        </div>
      </div>
    </form>
  );
}
