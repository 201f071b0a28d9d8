// Templates in Resend's shape (contract/resend-templates.ts): the console's template library
// (templates/templates.service.ts, the one writer of its table) read and changed by id or alias, and
// answered as Resend answers. A change saves a draft; only Publish changes what sends use.
import { createHash } from 'node:crypto';
import {
  type CreateTemplateBody,
  type ResendListedTemplate,
  type ResendTemplate,
  type UpdateTemplateBody,
  templateRef,
} from '../../contract/resend-templates.ts';
import type { AppContext } from '../core/context.ts';
import { AddressError, parseAddress, parseEmail } from '../core/addresses.ts';
import { DomainError } from '../core/errors.ts';
import type { Template } from '../db/schema.ts';
import {
  type TemplateInput,
  createTemplate,
  deleteTemplate,
  duplicateTemplate,
  ownTemplate,
  templatePage,
  updateTemplate,
} from '../templates/templates.service.ts';

const NO_SUCH_TEMPLATE = 'No template with this id or alias in this account';

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** A stable id for one saved version of a template: a uuid made from its id and version number. */
function versionId(row: Pick<Template, 'uuid' | 'version'>): string {
  const h = createHash('sha256').update(`${row.uuid}:${row.version}`).digest('hex');
  // RFC 9562 §5.8: version 8 (custom), variant 10
  const variant = ((Number.parseInt(h[16], 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function fromOf(row: Pick<Template, 'from_name' | 'from_email'>): string | null {
  if (!row.from_email) return null;
  return row.from_name ? `${JSON.stringify(row.from_name)} <${row.from_email}>` : row.from_email;
}

function listed(
  row: Pick<Template, 'uuid' | 'name' | 'alias' | 'status' | 'created_at' | 'updated_at' | 'published_at'>,
) {
  return {
    id: row.uuid,
    name: row.name,
    alias: row.alias,
    status: row.status,
    published_at: iso(row.published_at),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  } satisfies ResendListedTemplate;
}

function toResend(row: Template): ResendTemplate {
  return {
    object: 'template',
    ...listed(row),
    current_version_id: versionId(row),
    subject: row.subject,
    html: row.content_html,
    text: row.content_text,
    from: fromOf(row),
    reply_to: row.reply_email ? [row.reply_email] : null,
    variables: row.variables,
    // a publish writes both times alike; a later save moves only updated_at
    has_unpublished_versions: row.published_at === null || row.updated_at.getTime() > row.published_at.getTime(),
  };
}

/** An address field of the request, refused as Resend refuses it (422) when it is not an address. */
function address<T>(field: string, value: string, parse: (v: string) => T): T {
  try {
    return parse(value);
  } catch (err) {
    if (!(err instanceof AddressError)) throw err;
    throw new DomainError('unprocessable', `${field}: ${err.message}`, {
      details: [{ path: field, message: err.message }],
    });
  }
}

/** The library's fields for a Resend body: only those it carries (undefined keeps, null clears). */
function inputOf(body: UpdateTemplateBody): TemplateInput {
  const input: TemplateInput = {
    name: body.name,
    alias: body.alias,
    subject: body.subject,
    content_html: body.html,
    content_text: body.text,
    variables: body.variables,
  };
  if (body.from !== undefined) {
    const from = body.from === null || body.from.trim() === '' ? null : address('from', body.from, parseAddress);
    input.from_email = from?.email ?? null;
    input.from_name = from?.name ?? null;
  }
  if (body.reply_to !== undefined) {
    const reply = Array.isArray(body.reply_to) ? body.reply_to[0] : body.reply_to;
    input.reply_email = reply ? address('reply_to', reply, (v) => parseEmail(parseAddress(v).email)) : null;
  }
  return input;
}

/** The library's refusals in Resend's terms: an alias taken is Resend's validation_error, not a conflict. */
async function asResend<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof DomainError && err.code === 'conflict') throw new DomainError('unprocessable', err.message);
    throw err;
  }
}

/** The uuid of the customer's template a parsed path names (null: malformed, 404). */
async function uuidOf(ctx: AppContext, customerId: number, ref: string | null): Promise<string> {
  if (ref === null) throw new DomainError('not_found', NO_SUCH_TEMPLATE);
  return (await ownTemplate(ctx, customerId, ref)).uuid;
}

/** POST /resend/templates: a draft in the library. */
export async function createResendTemplate(ctx: AppContext, customerId: number, body: CreateTemplateBody) {
  const row = await asResend(() => createTemplate(ctx, customerId, { ...inputOf(body), status: 'draft' }));
  return { object: 'template' as const, id: row.uuid };
}

/** GET /resend/templates/{id}. */
export async function getResendTemplate(ctx: AppContext, customerId: number, ref: string | null) {
  if (ref === null) throw new DomainError('not_found', NO_SUCH_TEMPLATE);
  return toResend(await ownTemplate(ctx, customerId, ref));
}

/** GET /resend/templates: a cursor page, newest first. */
export async function listResendTemplates(
  ctx: AppContext,
  customerId: number,
  query: { limit: number; after?: string; before?: string },
) {
  const cursor = (raw: string | undefined) => {
    if (raw === undefined) return undefined;
    const ref = templateRef(raw);
    if (ref === null) throw new DomainError('not_found', `${NO_SUCH_TEMPLATE} (the cursor)`);
    return ref;
  };
  const { rows, hasMore } = await templatePage(ctx, customerId, {
    limit: query.limit,
    after: cursor(query.after),
    before: cursor(query.before),
  });
  return { object: 'list' as const, has_more: hasMore, data: rows.map(listed) };
}

/** PATCH /resend/templates/{id}: saves a draft; sends keep the published version. */
export async function updateResendTemplate(
  ctx: AppContext,
  customerId: number,
  ref: string | null,
  body: UpdateTemplateBody,
) {
  const uuid = await uuidOf(ctx, customerId, ref);
  // nothing to save: no new version, so a published template is not marked as changed
  if (Object.values(body).every((v) => v === undefined)) return { object: 'template' as const, id: uuid };
  await asResend(() => updateTemplate(ctx, customerId, uuid, inputOf(body)));
  return { object: 'template' as const, id: uuid };
}

/** POST /resend/templates/{id}/publish: what is saved becomes what sends use. */
export async function publishResendTemplate(ctx: AppContext, customerId: number, ref: string | null) {
  const uuid = await uuidOf(ctx, customerId, ref);
  await updateTemplate(ctx, customerId, uuid, { status: 'published' }, 'api');
  return { object: 'template' as const, id: uuid };
}

/** POST /resend/templates/{id}/duplicate. */
export async function duplicateResendTemplate(ctx: AppContext, customerId: number, ref: string | null) {
  const copy = await duplicateTemplate(ctx, customerId, await uuidOf(ctx, customerId, ref));
  return { object: 'template' as const, id: copy.uuid };
}

/** DELETE /resend/templates/{id}. */
export async function removeResendTemplate(ctx: AppContext, customerId: number, ref: string | null) {
  const uuid = await uuidOf(ctx, customerId, ref);
  await deleteTemplate(ctx, customerId, uuid);
  return { object: 'template' as const, id: uuid, deleted: true as const };
}
