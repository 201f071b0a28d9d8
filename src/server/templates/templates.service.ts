// The template library (docs/console-reports.md §2 "Templates", §3 "Template", §4 "Template status", §7
// "Templates"): search in the list's and the gallery's shapes, read, create, update, delete, and
// what sending needs (a published template by id or alias, compiled once per version). Gallery
// templates (customer_id null) are read-only. Save keeps anything, even HTML that does not compile
//; Publish checks what sending relies on (a name, a subject, a from address at a verified
// domain, Handlebars that compiles; less for the Resend surface, whose sends may give the from
// address and subject) and copies the fields, declared variables too, into the published version
// sending reads.
import { randomUUID } from 'node:crypto';
import juice from 'juice';
import type { AppContext } from '../core/context.ts';
import type { Database } from '../db/database.ts';
import type { Template, TemplateStatus, TemplateVariable } from '../db/schema.ts';
import { requireSendingDomain } from '../domains/domains.service.ts';
import { DomainError } from '../core/errors.ts';
import { invalidateLookups, lookupCache } from '../core/lookup-cache.ts';
import { AddressError, domainOf, parseEmail } from '../core/addresses.ts';
import {
  type CompiledTemplate,
  type Rendered,
  TemplateSyntaxError,
  checkSyntax,
  compile,
  compiledFor,
  missingVariables,
  render,
} from './render.ts';
import * as repo from './templates.repository.ts';
import { inTransaction } from '../core/transaction.ts';

/** docs/console-reports.md §9: default template name. */
export const DEFAULT_TEMPLATE_NAME = 'Untitled Template';
/** Rows per page of the list (docs/console-reports.md §9: fixture page size 10). */
export const TEMPLATE_PAGE_SIZE = 10;
/** The gallery is small; its shape of the search answers it whole, up to this many. */
export const GALLERY_PAGE_SIZE = 100;
/** Largest HTML plus text part of one template (a 1 MB+ template is 413). */
export const MAX_TEMPLATE_BYTES = 1024 * 1024;

/**
 * A template as the console and API show it (docs/console-reports.md §3, plus what sending by alias and the gallery
 * need).
 */
export interface TemplateWire {
  id: string;
  name: string;
  status: TemplateStatus;
  type: 'user' | 'system';
  alias: string | null;
  from_name: string | null;
  from_email: string | null;
  reply_email: string | null;
  subject: string | null;
  description: string | null;
  content_html: string;
  content_text: string | null;
  created_timestamp: string;
  updated_timestamp: string;
  published_timestamp: string | null;
  /** A published template saved since its last Publish: the edits are not what is sent yet. */
  unpublished_changes: boolean;
}

export function templateToWire(row: Template): TemplateWire {
  return {
    id: row.uuid,
    name: row.name,
    status: row.status,
    type: row.customer_id === null ? 'system' : 'user',
    alias: row.alias,
    from_name: row.from_name,
    from_email: row.from_email,
    reply_email: row.reply_email,
    subject: row.subject,
    description: row.description,
    content_html: row.content_html,
    content_text: row.content_text,
    created_timestamp: row.created_at.toISOString(),
    updated_timestamp: row.updated_at.toISOString(),
    published_timestamp: row.published_at?.toISOString() ?? null,
    // a Publish writes both times alike; a later Save moves only updated_at
    unpublished_changes:
      row.status === 'published' && row.published_at !== null && row.updated_at.getTime() > row.published_at.getTime(),
  };
}

export interface TemplatePage {
  data: TemplateWire[];
  meta: { current_page: number; per_page: number; total: number; last_page: number };
}

export interface SearchInput {
  name: string;
  type: 'user' | 'system';
  status: TemplateStatus | null;
  sort: repo.TemplateSort;
  order: 'asc' | 'desc';
  page: number;
}

/** One page of the customer's templates, or of the gallery. */
export async function searchTemplates(ctx: AppContext, customerId: number, input: SearchInput): Promise<TemplatePage> {
  const { db } = ctx;
  const filter: repo.TemplateFilter = {
    customerId: input.type === 'system' ? null : customerId,
    contains: input.name.trim().toLowerCase(),
    status: input.status,
  };
  const perPage = input.type === 'system' ? GALLERY_PAGE_SIZE : TEMPLATE_PAGE_SIZE;
  const [rows, total] = await Promise.all([
    repo.searchTemplates(db, filter, input.sort, input.order, perPage, (input.page - 1) * perPage),
    repo.countTemplates(db, filter),
  ]);
  return {
    data: rows.map(templateToWire),
    meta: { current_page: input.page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}

/** A template the customer may read (its own or the gallery's), or 404. */
export async function readTemplate(ctx: AppContext, customerId: number, uuid: string): Promise<Template> {
  const { db } = ctx;
  const row = await repo.findReadable(db, customerId, uuid);
  if (!row) throw new DomainError('not_found', 'No such template');
  return row;
}

export interface TemplateInput {
  name?: string | null;
  status?: TemplateStatus;
  alias?: string | null;
  from_name?: string | null;
  from_email?: string | null;
  reply_email?: string | null;
  subject?: string | null;
  description?: string | null;
  content_html?: string | null;
  content_text?: string | null;
  /** Declared variables (the Resend surface's); null removes them, undefined keeps them. */
  variables?: VariableInput[] | null;
}

/** A variable as a request declares it. */
export interface VariableInput {
  key: string;
  type: 'string' | 'number';
  fallback_value?: string | number | null;
}

/** `input` as stored: each keeps the time it was first declared (`previous`), and is stamped now if new or changed. */
function declared(input: VariableInput[] | null, previous: TemplateVariable[] | null): TemplateVariable[] | null {
  if (input === null) return null;
  const now = new Date().toISOString();
  const before = new Map((previous ?? []).map((v) => [v.key, v]));
  return input.map(({ key, type, fallback_value }) => {
    const old = before.get(key);
    const fallback = fallback_value ?? null;
    const same = old && old.type === type && old.fallback_value === fallback;
    return {
      key,
      type,
      fallback_value: fallback,
      created_at: old?.created_at ?? now,
      updated_at: same ? old.updated_at : now,
    };
  });
}

/** A jsonb value as the driver takes it; SQL null for null. */
const json = (v: unknown) => (v === null ? null : JSON.stringify(v));

const blankToNull = (v: string | null | undefined) =>
  v === undefined ? undefined : v === null || v.trim() === '' ? null : v.trim();

/** An address field: empty is allowed, anything else must be an address (400 at save). */
function addressField(value: string | null | undefined, field: string): string | null | undefined {
  const v = blankToNull(value);
  if (v === undefined || v === null) return v;
  try {
    return parseEmail(v);
  } catch (err) {
    if (!(err instanceof AddressError)) throw err;
    throw new DomainError('validation_failed', `${field}: '${v.slice(0, 120)}' is not a valid email address`, {
      details: [{ path: field, message: err.message }],
    });
  }
}

function checkSize(html: string, text: string | null): void {
  if (Buffer.byteLength(html) + Buffer.byteLength(text ?? '') > MAX_TEMPLATE_BYTES) {
    throw new DomainError(
      'payload_too_large',
      `A template may hold at most ${MAX_TEMPLATE_BYTES / 1024 / 1024} MB of HTML and text`,
    );
  }
}

/** The checked columns of `input` (only the fields it carries). */
function columns(input: TemplateInput) {
  const name = input.name === undefined ? undefined : input.name?.trim() || DEFAULT_TEMPLATE_NAME;
  return {
    ...(name === undefined ? {} : { name }),
    ...(input.alias === undefined ? {} : { alias: blankToNull(input.alias) }),
    ...(input.from_name === undefined ? {} : { from_name: blankToNull(input.from_name) }),
    ...(input.from_email === undefined ? {} : { from_email: addressField(input.from_email, 'from_email') }),
    ...(input.reply_email === undefined ? {} : { reply_email: addressField(input.reply_email, 'reply_email') }),
    ...(input.subject === undefined ? {} : { subject: blankToNull(input.subject) }),
    ...(input.description === undefined ? {} : { description: blankToNull(input.description) }),
    ...(input.content_html === undefined ? {} : { content_html: input.content_html ?? '' }),
    ...(input.content_text === undefined ? {} : { content_text: blankToNull(input.content_text) }),
  };
}

/** A syntax error as the 422 publish and the preview answer (422, with the line and column). */
export function syntaxError(err: TemplateSyntaxError): DomainError {
  return new DomainError('unprocessable', `The template does not compile: ${err.message}`, {
    details: [syntaxDetail(err)],
  });
}

/** One reason a template cannot be published, at the field it concerns (the editor shows it there). */
export interface PublishProblem {
  path: 'name' | 'from_email' | 'subject' | 'content_html' | 'content_text';
  message: string;
  line?: number;
  column?: number;
}

function syntaxDetail(err: TemplateSyntaxError): PublishProblem {
  return { path: err.part, line: err.line, column: err.column, message: err.message };
}

type Publishable = Pick<
  Template,
  'name' | 'subject' | 'content_html' | 'content_text' | 'from_name' | 'from_email' | 'reply_email' | 'variables'
>;

/**
 * What a Publish asks beyond HTML that compiles: the console's editor (`console`) a name, subject and
 * from address; the Resend surface (`api`) only that a from address it has is at a verified domain,
 * since its sends may give the from address and subject (docs/integrating.md "Templates by API").
 */
export type PublishRules = 'console' | 'api';

/**
 * Why `t` cannot be published, every reason at once: it needs a name of its own (the
 * 'Untitled Template' an empty name becomes is not one), a subject, a from address at one of the
 * account's sending-verified domains, and Handlebars that compiles (under `api` rules, only the
 * last two, the from address when it has one).
 */
async function publishProblems(
  ctx: AppContext,
  customerId: number,
  t: Publishable,
  rules: PublishRules,
): Promise<PublishProblem[]> {
  const problems: PublishProblem[] = [];
  try {
    checkSyntax({ subject: t.subject, content_html: t.content_html, content_text: t.content_text });
  } catch (err) {
    if (!(err instanceof TemplateSyntaxError)) throw err;
    problems.push(syntaxDetail(err));
  }
  if (rules === 'console' && (!t.name.trim() || t.name === DEFAULT_TEMPLATE_NAME))
    problems.push({ path: 'name', message: 'Give the template a name to publish it' });
  if (!t.from_email) {
    if (rules === 'console')
      problems.push({ path: 'from_email', message: 'Choose a from address at one of your verified domains' });
  } else {
    try {
      await requireSendingDomain(ctx, customerId, domainOf(t.from_email));
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'domain_not_verified') throw err;
      problems.push({ path: 'from_email', message: err.message });
    }
  }
  if (rules === 'console' && !t.subject?.trim())
    problems.push({ path: 'subject', message: 'Give the template a subject to publish it' });
  return problems;
}

/**
 * The published version of `t` (what sending reads), or 422 naming every field in the way. Its HTML
 * has the CSS inlined (juice; media queries stay in <style> for clients that read them: the
 * gallery's single column under 600 px and dark mode).
 */
async function publishedColumns(ctx: AppContext, customerId: number, t: Publishable, rules: PublishRules = 'console') {
  const problems = await publishProblems(ctx, customerId, t, rules);
  if (problems.length > 0) {
    throw new DomainError(
      'unprocessable',
      `The template cannot be published: ` +
        `${problems
          .map((p) =>
            p.path === 'name' || p.path === 'subject' || p.path === 'from_email'
              ? `${p.path}: ` + `${p.message}`
              : `it does not compile: ${p.message}`,
          )
          .join('; ')}`,
      { details: problems },
    );
  }
  const published_html = juice(t.content_html, {
    preserveMediaQueries: true,
    preserveFontFaces: true,
    applyWidthAttributes: true,
    applyHeightAttributes: false,
    preserveImportant: true,
  });
  const at = new Date();
  return {
    published_html,
    published_subject: t.subject,
    published_text: t.content_text,
    published_from_name: t.from_name,
    published_from_email: t.from_email,
    published_reply_email: t.reply_email,
    published_variables: json(t.variables),
    published_at: at,
    updated_at: at,
  };
}

const UNPUBLISHED = {
  published_html: null,
  published_subject: null,
  published_text: null,
  published_from_name: null,
  published_from_email: null,
  published_reply_email: null,
  published_variables: null,
} as const;

function aliasTaken(err: unknown): never {
  const e = err as { code?: string; constraint?: string };
  if (e.code === '23505' && e.constraint === 'templates_customer_alias_idx')
    throw new DomainError('conflict', 'Another template of this account has that alias');
  throw err;
}

/** POST v1/templates: a draft unless the request says published. */
export async function createTemplate(ctx: AppContext, customerId: number, input: TemplateInput): Promise<Template> {
  const c = columns(input);
  const row = {
    uuid: randomUUID(),
    customer_id: customerId,
    system_key: null,
    alias: c.alias ?? null,
    name: c.name ?? DEFAULT_TEMPLATE_NAME,
    status: input.status ?? 'draft',
    from_name: c.from_name ?? null,
    from_email: c.from_email ?? null,
    reply_email: c.reply_email ?? null,
    subject: c.subject ?? null,
    description: c.description ?? null,
    content_html: c.content_html ?? '',
    content_text: c.content_text ?? null,
    variables: declared(input.variables ?? null, null),
  };
  checkSize(row.content_html, row.content_text);
  const version =
    row.status === 'published' ? await publishedColumns(ctx, customerId, row) : { ...UNPUBLISHED, published_at: null };
  return repo.insertTemplate(ctx.db, { ...row, variables: json(row.variables), ...version }).catch(aliasTaken);
}

/** The customer's own template for a change: 404 for another account's, 403 for the gallery's. */
async function ownForChange(db: Database, customerId: number, uuid: string): Promise<Template> {
  const row = await repo.findReadable(db, customerId, uuid);
  if (!row) throw new DomainError('not_found', 'No such template');
  if (row.customer_id === null)
    throw new DomainError('forbidden', 'Gallery templates cannot be changed; select one to make your own copy');
  return row;
}

/**
 * PUT v1/templates/{id}: Save keeps the status (docs/console-reports.md §4) and keeps whatever it is given;
 * Publish sends status published and makes the fields the published version; status draft
 * withdraws a published template. A Save of a published template leaves what is sent as it was.
 */
export async function updateTemplate(
  ctx: AppContext,
  customerId: number,
  uuid: string,
  input: TemplateInput,
  rules: PublishRules = 'console',
): Promise<Template> {
  // the checks read outside the writing transaction: the domain check has its own cached lookup,
  // and PGlite has one connection
  const current = await ownForChange(ctx.db, customerId, uuid);
  const c = columns(input);
  const variables = input.variables === undefined ? current.variables : declared(input.variables, current.variables);
  const next = { ...current, ...c, variables };
  checkSize(next.content_html, next.content_text);
  const status = input.status ?? current.status;
  const publish =
    input.status === 'published'
      ? await publishedColumns(ctx, customerId, next, rules)
      : status === 'draft'
        ? { ...UNPUBLISHED, published_at: null }
        : {};
  const changes = {
    ...c,
    ...(input.variables === undefined ? {} : { variables: json(variables) }),
    status,
    ...publish,
  };
  return inTransaction(ctx.db, async (trx) => {
    const row = await repo.updateTemplate(trx, customerId, uuid, changes).catch(aliasTaken);
    if (!row) throw new DomainError('not_found', 'No such template');
    await invalidateLookups(ctx, trx);
    return row;
  });
}

/** DELETE /v1/templates/{id}. */
export async function deleteTemplate(ctx: AppContext, customerId: number, uuid: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    await ownForChange(trx, customerId, uuid);
    await repo.deleteTemplate(trx, customerId, uuid);
    await invalidateLookups(ctx, trx);
  });
}

/** What sending keeps of a published template (cached per customer and id or alias). */
export interface SendableTemplate {
  uuid: string;
  version: number;
  status: TemplateStatus;
  fromName: string | null;
  fromEmail: string | null;
  replyEmail: string | null;
  /** The published version's declared variables (types and fallbacks), null when it declares none. */
  variables: TemplateVariable[] | null;
  compiled: () => CompiledTemplate;
}

/**
 * The customer's template named by a send (id or alias), from the lookup cache, which every change
 * clears (invalidateLookups), so a publish is seen by the next send. 404 for an unknown or another
 * account's id; 422 for a draft.
 */
export async function sendableTemplate(
  ctx: AppContext,
  customerId: number,
  idOrAlias: string,
): Promise<SendableTemplate> {
  const cache = lookupCache<SendableTemplate | null>(ctx, 'templates');
  const key = `${customerId}:${idOrAlias}`;
  let hit = cache.get(key);
  if (hit === undefined) {
    const row = idOrAlias.length <= 200 ? await repo.findOwn(ctx.db, customerId, idOrAlias) : undefined;
    hit = row
      ? {
          uuid: row.uuid,
          version: row.version,
          status: row.status,
          fromName: row.published_from_name,
          fromEmail: row.published_from_email,
          replyEmail: row.published_reply_email,
          variables: row.published_variables,
          compiled: () =>
            compiledFor(`${row.uuid}:${row.version}`, () => ({
              subject: row.published_subject,
              html: row.published_html ?? row.content_html,
              text: row.published_text,
            })),
        }
      : null;
    cache.set(key, hit);
  }
  if (!hit) throw new DomainError('not_found', `No template '${idOrAlias.slice(0, 200)}' in this account`);
  if (hit.status !== 'published')
    throw new DomainError(
      'unprocessable',
      `The template '${idOrAlias.slice(0, 200)}' is a draft; publish it before sending with it`,
    );
  return hit;
}

/**
 * `given` with the fallbacks of the declared variables it lacks; 422 for a value whose type is not
 * the declared one (a number is a JSON number, a string a JSON string).
 */
function withFallbacks(
  declaredVars: TemplateVariable[] | null,
  given: Record<string, unknown>,
): Record<string, unknown> {
  if (!declaredVars) return given;
  const out = { ...given };
  for (const v of declaredVars) {
    const value = given[v.key];
    if (value === undefined || value === null) {
      if (v.fallback_value !== null) out[v.key] = v.fallback_value;
    } else if (typeof value !== v.type || (v.type === 'number' && !Number.isFinite(value))) {
      const message = `must be a ${v.type}, as the template declares it`;
      throw new DomainError('unprocessable', `Variable ${v.key} ${message}`, {
        details: [{ path: `variables.${v.key}`, message }],
      });
    }
  }
  return out;
}

/**
 * Renders a sendable template with the request's variables and the declared fallbacks; 422
 * missing_variables names what the request lacks: a variable the template reads, or one it
 * declares without a fallback.
 */
export function renderForSend(template: SendableTemplate, given: Record<string, unknown>, subject?: string): Rendered {
  const compiled = template.compiled();
  const variables = withFallbacks(template.variables, given);
  const undeclared = (template.variables ?? []).filter(
    (v) => variables[v.key] === undefined || variables[v.key] === null,
  );
  const missing = [...new Set([...missingVariables(compiled, variables), ...undeclared.map((v) => v.key)])].sort();
  if (missing.length > 0)
    throw new DomainError(
      'missing_variables',
      `The template needs variables the request does not give: ${missing.join(', ')}`,
      { details: missing },
    );
  try {
    return render(compiled, variables, subject);
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw new DomainError('validation_failed', `subject: ${err.message}`);
    throw err;
  }
}

/** The editor's preview (POST v1/templates/render): unsaved parts rendered with sample variables. */
export function renderPreview(input: {
  subject: string | null;
  content_html: string;
  content_text: string | null;
  variables: Record<string, unknown>;
}): Rendered & { variables: string[] } {
  let compiled: CompiledTemplate;
  try {
    compiled = compile({ subject: input.subject, html: input.content_html, text: input.content_text });
  } catch (err) {
    if (err instanceof TemplateSyntaxError) throw syntaxError(err);
    throw err;
  }
  return { ...render(compiled, input.variables), variables: compiled.all };
}

/** One of the customer's own templates by id or alias (never the gallery's), or 404. */
export async function ownTemplate(ctx: AppContext, customerId: number, idOrAlias: string): Promise<Template> {
  const row = await repo.findOwn(ctx.db, customerId, idOrAlias);
  if (!row) throw new DomainError('not_found', 'No template with this id or alias in this account');
  return row;
}

/**
 * A draft copy of one of the customer's templates as it is being edited, named "<name> (copy)",
 * without the alias (an alias names one template).
 */
export async function duplicateTemplate(ctx: AppContext, customerId: number, uuid: string): Promise<Template> {
  const t = await ownForChange(ctx.db, customerId, uuid);
  return repo.insertTemplate(ctx.db, {
    uuid: randomUUID(),
    customer_id: customerId,
    system_key: null,
    alias: null,
    name: `${t.name} (copy)`.slice(0, 200),
    status: 'draft',
    from_name: t.from_name,
    from_email: t.from_email,
    reply_email: t.reply_email,
    subject: t.subject,
    description: t.description,
    content_html: t.content_html,
    content_text: t.content_text,
    variables: json(t.variables),
    ...UNPUBLISHED,
    published_at: null,
  });
}

/**
 * A cursor page of the customer's templates, newest first: at most `limit` after (older than) or
 * before (newer than) the template a cursor names (404 when it names none of theirs), and whether
 * more follow in that direction.
 */
export async function templatePage(
  ctx: AppContext,
  customerId: number,
  query: { limit: number; after?: string; before?: string },
): Promise<{ rows: repo.ListedTemplate[]; hasMore: boolean }> {
  const cursor = async (ref: string | undefined) =>
    ref === undefined ? undefined : (await ownTemplate(ctx, customerId, ref)).id;
  const after = await cursor(query.after);
  const before = await cursor(query.before);
  const rows = await repo.pageOfOwn(ctx.db, customerId, { limit: query.limit + 1, after, before });
  const page = rows.slice(0, query.limit);
  if (before !== undefined) page.reverse();
  return { rows: page, hasMore: rows.length > query.limit };
}
