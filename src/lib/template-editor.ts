// The template editor's rules that need no browser (docs/console-reports.md §2 editor, §4 "Reply-to" and
// "Template status"), and the sandboxed preview document (a template can never run
// script in the console). Pure, shared by the islands and their tests.

import type { TemplateWire } from './wire.ts';

export interface TemplateFields {
  name: string;
  status: 'draft' | 'published';
  from_name: string;
  from_email: string;
  reply_email: string;
  subject: string;
  description: string;
  content_html: string;
  /** The text part; empty means "made from the HTML" (html-to-text) when sent. */
  content_text: string;
}

// the server's own wire shape (a type only: nothing of the server reaches the browser)
export type { TemplateWire };

/** docs/console-reports.md §9. */
export const DEFAULT_TEMPLATE_NAME = 'Untitled Template';

export const BLANK: TemplateFields = {
  name: DEFAULT_TEMPLATE_NAME,
  status: 'draft',
  from_name: '',
  from_email: '',
  reply_email: '',
  subject: '',
  description: '',
  content_html: '',
  content_text: '',
};

/**
 * The editor's fields for /templates/create/{hash} (a new draft from a template) and
 * /templates/edit/{hash} (the template itself). Re-creating one of your own published templates
 * yields a draft named '{name} (Copy)' (§4); a gallery template keeps its name.
 */
export function fieldsFor(mode: 'create' | 'edit', t: TemplateWire | null): TemplateFields {
  if (!t) return { ...BLANK };
  const fields: TemplateFields = {
    name: t.name,
    status: t.status,
    from_name: t.from_name ?? '',
    from_email: t.from_email ?? '',
    reply_email: t.reply_email ?? '',
    subject: t.subject ?? '',
    description: t.description ?? '',
    content_html: t.content_html,
    content_text: t.content_text ?? '',
  };
  if (mode === 'edit') return fields;
  return { ...fields, status: 'draft', name: t.type === 'user' ? `${t.name} (Copy)` : t.name };
}

/** docs/console-reports.md §4: the 'Use different reply to Email' box starts ticked when the two addresses differ. */
export function initialDifferentReplyTo(fields: Pick<TemplateFields, 'from_email' | 'reply_email'>): boolean {
  return fields.reply_email !== '' && fields.reply_email !== fields.from_email;
}

/** docs/console-reports.md §4: editing the from address updates reply-to too, unless the box is ticked. */
export function withFromEmail(fields: TemplateFields, fromEmail: string, differentReplyTo: boolean): TemplateFields {
  return { ...fields, from_email: fromEmail, reply_email: differentReplyTo ? fields.reply_email : fromEmail };
}

/** docs/console-reports.md §4: unticking copies the from address into reply-to; ticking leaves both as they are. */
export function withDifferentReplyTo(fields: TemplateFields, ticked: boolean): TemplateFields {
  return ticked ? fields : { ...fields, reply_email: fields.from_email };
}

/**
 * The preview's document for an iframe with `sandbox=""` (no allow-scripts) and `srcdoc`. The CSP
 * comes first so it governs the whole document: no script of any kind, nothing loaded from
 * anywhere but images (which mail clients load too), no forms, no plugins.
 */
export const PREVIEW_CSP =
  "default-src 'none'; img-src https: http: data:; style-src " +
  "'unsafe-inline'; font-src data:; form-action 'none'; base-uri 'none'";

export function previewDocument(renderedHtml: string): string {
  return (
    `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="${PREVIEW_CSP}"><meta name="referrer" ` +
    `content="no-referrer">${renderedHtml}`
  );
}

/** The fields Publish needs, each with its inline message. */
export type PublishField = 'name' | 'from_email' | 'subject' | 'content_html' | 'content_text';
export type FieldErrors = Partial<Record<PublishField, string>>;

/**
 * What stops Publish before asking the server, in the server's words (it refuses the same with
 * 422): a name of its own (the placeholder 'Untitled Template' is not one), a from address at one
 * of the account's sending-verified domains, a subject.
 */
export function publishProblems(
  fields: Pick<TemplateFields, 'name' | 'from_email' | 'subject'>,
  verifiedDomains: readonly string[],
): FieldErrors {
  const problems: FieldErrors = {};
  if (!fields.name.trim() || fields.name.trim() === DEFAULT_TEMPLATE_NAME)
    problems.name = 'Give the template a name to publish it';
  const at = fields.from_email.lastIndexOf('@');
  if (at <= 0) problems.from_email = 'Choose a from address at one of your verified domains';
  else {
    const domain = fields.from_email.slice(at + 1);
    if (!verifiedDomains.some((d) => d.toLowerCase() === domain.toLowerCase()))
      problems.from_email = `The domain ${domain} is not a verified sending domain of this account`;
  }
  if (!fields.subject.trim()) problems.subject = 'Give the template a subject to publish it';
  return problems;
}

/** Sample values for the preview: each variable the template reads, keeping what the user typed. */
export function sampleVariables(names: string[], current: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names)
    out[name] =
      name in current
        ? current[name]
        : name === 'items'
          ? [{ name: 'Item', quantity: 1, price: '10.00' }]
          : name.replace(/_/g, ' ');
  return out;
}
