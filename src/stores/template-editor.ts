// The template editor's state (docs/console-reports.md §2 editor, §4 "Reply-to", "Template status" and
// "Editor request status", §8, §9): the fields, the reply-to box, the request status (idle,
// pending, resolved, rejected), the customer's verified domains for the from address, and the live
// preview that renders 2 s after the last change with editable sample variables. Publish
// names each missing field at the field (checked here first, then by the server, which refuses the
// same); a compile error of the HTML, found by the preview, is shown beside the editor with its line.
import { atom } from 'nanostores';
import { FetchError } from 'ofetch';
import { call, errorMessage } from '../lib/api.ts';
import { debounced } from '../lib/debounced.ts';
import { EDITOR_DEBOUNCE_MS, PUBLISH_REDIRECT_MS } from '../lib/timings.ts';
import {
  BLANK,
  type FieldErrors,
  type PublishField,
  type TemplateFields,
  fieldsFor,
  publishProblems,
  initialDifferentReplyTo,
  sampleVariables,
  withDifferentReplyTo,
  withFromEmail,
} from '../lib/template-editor.ts';
import { showAlert } from './alerts.ts';

export type RequestStatus = 'idle' | 'pending' | 'resolved' | 'rejected';

export const fields = atom<TemplateFields>({ ...BLANK });
export const differentReplyTo = atom(false);
/** The saved template's id; null until the first save of a new one. */
export const templateId = atom<string | null>(null);
export const requestStatus = atom<RequestStatus>('idle');
export const loadStatus = atom<'loading' | 'loaded' | 'failed'>('loading');
/** The customer's verified sending domains (GET v1/domains). */
export const verifiedDomains = atom<string[]>([]);
export const sampleText = atom('{}');
export const preview = atom<{ html: string | null; subject: string; error: string | null }>({
  html: null,
  subject: '',
  error: null,
});
/** Why the last Publish was refused, at each field (cleared when that field changes). */
export const fieldErrors = atom<FieldErrors>({});
/** Where the HTML does not compile (from the preview's render or a refused Publish), or null. */
export const compileError = atom<{ line: number; column: number; message: string } | null>(null);
/** A published template saved since its last Publish: what is sent is the published version. */
export const unpublishedChanges = atom(false);

interface Problem {
  path?: string;
  message?: string;
  line?: number;
  column?: number;
}

/** The per-field details of a 422 from the templates API. */
function problemsOf(err: unknown): Problem[] {
  if (!(err instanceof FetchError)) return [];
  const details = (err.data as { error?: { details?: unknown } } | undefined)?.error?.details;
  return Array.isArray(details) ? (details as Problem[]).filter((d) => typeof d === 'object' && d !== null) : [];
}

const FIELDS: readonly PublishField[] = ['name', 'from_email', 'subject', 'content_html', 'content_text'];

/** Notes the HTML's compile error from a refused call (or clears it when the HTML compiled). */
function noteCompileError(problems: Problem[]): void {
  const html = problems.find((p) => p.path === 'content_html' && typeof p.line === 'number');
  compileError.set(
    html ? { line: html.line!, column: html.column ?? 1, message: html.message ?? 'The HTML does not compile' } : null,
  );
}

/** Opens the editor: /templates/create/new (blank), /templates/create/{id} (a copy), /templates/edit/{id}. */
export async function openEditor(mode: 'create' | 'edit', hash: string): Promise<void> {
  loadStatus.set('loading');
  try {
    const [template, domains] = await Promise.all([
      hash === 'new' && mode === 'create'
        ? Promise.resolve(null)
        : call('GET /v1/templates/{id}', { params: { id: hash } }).then((a) => a.template),
      call('GET /v1/domains').then((a) => a.domains),
    ]);
    verifiedDomains.set(domains.filter((d) => d.domain_sending_verified === 'yes').map((d) => d.domain_domain));
    const loaded = fieldsFor(mode, template);
    fields.set(loaded);
    differentReplyTo.set(initialDifferentReplyTo(loaded));
    templateId.set(mode === 'edit' && template ? template.id : null);
    unpublishedChanges.set(mode === 'edit' && template ? template.unpublished_changes : false);
    fieldErrors.set({});
    compileError.set(null);
    loadStatus.set('loaded');
    void renderPreview();
  } catch {
    loadStatus.set('failed');
    showAlert('danger', 'Error in getting templates');
  }
}

const previewAfterPause = debounced(EDITOR_DEBOUNCE_MS, () => void renderPreview());

/** Any field changed; the preview follows 2 s after the last change (docs/console-reports.md §9). */
export function setField<K extends keyof TemplateFields>(name: K, value: TemplateFields[K]): void {
  fields.set({ ...fields.get(), [name]: value });
  clearFieldError(name);
  if (name === 'content_html' || name === 'subject') previewAfterPause();
}

function clearFieldError(name: keyof TemplateFields): void {
  const errors = fieldErrors.get();
  if (name in errors) {
    const { [name as PublishField]: _, ...rest } = errors;
    fieldErrors.set(rest);
  }
}

/**
 * docs/console-reports.md §4: the from address carries reply-to along unless 'Use different reply to Email' is ticked.
 */
export function setFromEmail(value: string): void {
  fields.set(withFromEmail(fields.get(), value, differentReplyTo.get()));
  clearFieldError('from_email');
}

/** docs/console-reports.md §4: unticking copies the from address into reply-to. */
export function setDifferentReplyTo(ticked: boolean): void {
  differentReplyTo.set(ticked);
  fields.set(withDifferentReplyTo(fields.get(), ticked));
}

export function setSampleText(text: string): void {
  sampleText.set(text);
  previewAfterPause();
}

let renderRequest = 0;

/** Renders the unsaved subject and HTML with the sample variables (POST v1/templates/render). */
export async function renderPreview(): Promise<void> {
  const request = ++renderRequest;
  let variables: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(sampleText.get() || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    variables = parsed as Record<string, unknown>;
  } catch {
    preview.set({ ...preview.get(), error: 'The sample variables are not a JSON object.' });
    return;
  }
  const { content_html, subject } = fields.get();
  try {
    const answer = await call('POST /v1/templates/render', { body: { content_html, subject, variables } });
    if (request !== renderRequest) return;
    const samples = sampleVariables(answer.variables, variables);
    if (answer.variables.some((name) => !(name in variables))) {
      // new variables appeared: give them sample values and render once more with them
      sampleText.set(JSON.stringify(samples, null, 2));
      void renderPreview();
      return;
    }
    preview.set({ html: answer.html, subject: answer.subject ?? '', error: null });
    compileError.set(null);
  } catch (err) {
    if (request !== renderRequest) return;
    const problems = problemsOf(err);
    noteCompileError(problems);
    // the HTML's error is shown beside the editor; the preview says only what else went wrong
    preview.set({
      ...preview.get(),
      error: compileError.get()
        ? 'The preview shows the last HTML that compiled.'
        : errorMessage(err, 'The preview could not be rendered.'),
    });
  }
}

/**
 * Save (docs/console-reports.md §4: keeps the status) or Publish (status published). The first save of a new
 * template creates it and the address becomes the edit form's. 'Save complete', or the server's
 * message, or 'Error in saving template' (§8). Returns whether it saved.
 */
export async function save(status?: 'published'): Promise<boolean> {
  if (requestStatus.get() === 'pending') return false;
  if (status === 'published') {
    const problems = publishProblems(fields.get(), verifiedDomains.get());
    fieldErrors.set(problems);
    if (Object.keys(problems).length > 0) {
      requestStatus.set('rejected');
      showAlert('danger', 'The template cannot be published yet: see the fields marked in red');
      return false;
    }
  }
  requestStatus.set('pending');
  // Save keeps the status (docs/console-reports.md §4): a draft stays a draft; a published template's edits are kept
  // without being published (the server keeps its status when none is sent)
  const { status: current, ...rest } = fields.get();
  const body = { ...rest, ...(status ? { status } : current === 'draft' ? { status: current } : {}) };
  try {
    const id = templateId.get();
    const answer = id
      ? await call('PUT /v1/templates/{id}', { params: { id }, body })
      : await call('POST /v1/templates', { body });
    templateId.set(answer.template.id);
    fields.set({ ...fields.get(), status: answer.template.status, name: answer.template.name });
    unpublishedChanges.set(answer.template.unpublished_changes);
    fieldErrors.set({});
    if (!id && typeof window !== 'undefined')
      window.history.replaceState(null, '', `/templates/edit/${answer.template.id}`);
    requestStatus.set('resolved');
    showAlert('success', 'Save complete');
    // a kept draft that does not compile shows its error beside the editor at once
    void renderPreview();
    return true;
  } catch (err) {
    requestStatus.set('rejected');
    const problems = problemsOf(err);
    const errors: FieldErrors = {};
    for (const p of problems)
      if (FIELDS.includes(p.path as PublishField) && p.message) errors[p.path as PublishField] = p.message;
    fieldErrors.set(errors);
    if (problems.some((p) => p.path === 'content_html')) noteCompileError(problems);
    showAlert('danger', errorMessage(err, 'Error in saving template'));
    return false;
  }
}

/** Publish: sets published and saves, then returns to /templates after 1 s (docs/console-reports.md §4, §9). */
export async function publish(
  navigate: (path: string) => void = (path) => window.location.assign(path),
): Promise<void> {
  if (await save('published')) setTimeout(() => navigate('/templates'), PUBLISH_REDIRECT_MS);
}
