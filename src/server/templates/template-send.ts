// Sending by template: a send request that names a template
// (`template_id` + `variables` on /v1/mail, Resend's `template: { id, variables }` on /v1/emails)
// is turned into the ordinary request the send path already checks: the rendered subject, HTML and
// text, and the template's from and reply-to unless the request gives them. The rendered result is
// what the message stores, so a later edit of the template never changes accepted mail.
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { renderForSend, sendableTemplate } from './templates.service.ts';

type Shape = 'mail' | 'resend';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function bad(message: string, path: string): DomainError {
  return new DomainError('validation_failed', `Invalid request: ${path}: ${message}`, { details: [{ path, message }] });
}

/** The template reference of a request body, or null when it names none. */
function reference(
  body: Record<string, unknown>,
  shape: Shape,
  prefix: string,
): { id: string; variables: Record<string, unknown> } | null {
  let id: unknown;
  let variables: unknown;
  let at: string;
  if (shape === 'mail') {
    if (body.template_id === undefined) {
      if (body.variables !== undefined) throw bad('variables need a template_id', `${prefix}variables`);
      return null;
    }
    ({ template_id: id, variables } = body);
    at = `${prefix}`;
    if (typeof id !== 'string' || id.trim() === '' || id.length > 200)
      throw bad('must be a template id or alias', `${at}template_id`);
  } else {
    if (body.template === undefined) return null;
    if (!isObject(body.template)) throw bad('must be an object { id, variables }', `${prefix}template`);
    ({ id, variables } = body.template);
    at = `${prefix}template.`;
    if (typeof id !== 'string' || id.trim() === '' || id.length > 200)
      throw bad('must be a template id or alias', `${at}id`);
    const extra = Object.keys(body.template).filter((k) => k !== 'id' && k !== 'variables');
    if (extra.length) throw bad(`unknown field ${extra[0]}`, `${at}${extra[0]}`);
  }
  if (variables !== undefined && variables !== null && !isObject(variables))
    throw bad('must be an object of names and values', `${at}variables`);
  return { id: (id as string).trim(), variables: (variables as Record<string, unknown> | null) ?? {} };
}

/**
 * `body` with the named template rendered into it (and the template fields removed), or `body`
 * unchanged when it names no template. `prefix` locates a batch item in error paths ("3.").
 */
export async function withTemplate(
  ctx: AppContext,
  customerId: number,
  body: unknown,
  shape: Shape,
  prefix = '',
): Promise<unknown> {
  if (!isObject(body)) return body;
  const ref = reference(body, shape, prefix);
  if (!ref) return body;
  if (body.html !== undefined || body.text !== undefined)
    throw bad('give a template or html/text, not both', `${prefix}html`);
  if (body.subject !== undefined && typeof body.subject !== 'string') throw bad('must be text', `${prefix}subject`);
  let rendered: ReturnType<typeof renderForSend>;
  try {
    const template = await sendableTemplate(ctx, customerId, ref.id);
    rendered = renderForSend(template, ref.variables, body.subject as string | undefined);
    if (rendered.subject === null) throw bad('the template has no subject; give one', `${prefix}subject`);
    const out: Record<string, unknown> = {
      ...body,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
    };
    delete out.template_id;
    delete out.variables;
    delete out.template;
    if (out.from === undefined && template.fromEmail) {
      // Resend's from is one string; ours also takes { email, name }
      if (!template.fromName) out.from = template.fromEmail;
      else
        out.from =
          shape === 'mail'
            ? { email: template.fromEmail, name: template.fromName }
            : `${JSON.stringify(template.fromName)} <${template.fromEmail}>`;
    }
    if (out.reply_to === undefined && template.replyEmail && template.replyEmail !== template.fromEmail)
      out.reply_to = template.replyEmail;
    if (out.from === undefined) throw bad('the template has no from address; give one', `${prefix}from`);
    return out;
  } catch (err) {
    if (err instanceof DomainError && prefix && err.code !== 'validation_failed')
      throw new DomainError(err.code, `Message ${prefix.slice(0, -1)}: ${err.message}`, { details: err.details });
    throw err;
  }
}
