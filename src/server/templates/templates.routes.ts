// The Templates screens' calls (docs/console-reports.md §7 "Templates"): POST /v1/templates/search in the
// list's shape {template_name, sort, page} and the Select Template page's {templateName,
// templateType, templateStatus}; GET, POST, PUT, DELETE of one template (the response holds the
// template); and POST /v1/templates/render for the editor's live preview. Console calls: a
// session, CSRF protection on writes, the send permission (docs/console.md §6).
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { jsonBody } from '../http/validate.ts';
import type { TemplateSort } from './templates.repository.ts';
import { createTemplate, deleteTemplate, readTemplate, renderPreview, searchTemplates, templateToWire, updateTemplate } from './templates.service.ts';

const SORTS = ['name', 'description', 'published', 'updated'] as const;
type SortParam = (typeof SORTS)[number] | `-${(typeof SORTS)[number]}`;
const DEFAULT_SORT: SortParam = '-description';
// "name" ascending, "-name" descending; or only a direction, "ASC" or "DESC" in any case, on the
// default key (docs/console-reports.md §9: "sorted by description, DESC" by default)
const sortParam = z.union([
  z.enum([...SORTS, ...SORTS.map((s) => `-${s}` as const)]),
  z
    .string()
    .regex(/^(asc|desc)$/i, 'a key (name, description, published, updated; "-" before it for descending), or ASC or DESC')
    .transform((dir): SortParam => (dir.toLowerCase() === 'asc' ? 'description' : '-description')),
]);

const searchBody = z.union([
  z.strictObject({
    template_name: z.string().max(200).nullish(),
    sort: sortParam.nullish(),
    page: z.number().int().min(1).max(100_000).default(1),
  }),
  z.strictObject({
    templateName: z.string().max(200).nullish(),
    templateType: z.enum(['user', 'system']),
    templateStatus: z.enum(['published', 'draft']).nullish(),
    sort: sortParam.nullish(),
    page: z.number().int().min(1).max(100_000).default(1),
  }),
]);

const text = (max: number) => z.string().max(max).nullish();
const templateBody = z.strictObject({
  // the editor sends back what it loaded; these are the server's own and ignored
  id: z.string().optional(),
  type: z.string().optional(),
  created_timestamp: z.string().optional(),
  updated_timestamp: z.string().optional(),
  published_timestamp: z.string().nullish(),
  unpublished_changes: z.boolean().optional(),
  name: text(200),
  status: z.enum(['draft', 'published']).optional(),
  alias: z.string().max(100).regex(/^[A-Za-z0-9_.-]+$/, 'use letters, digits, dot, dash and underscore').nullish(),
  from_name: text(200).refine((v) => !v || !/[\r\n]/.test(v), 'must not contain a line break'),
  from_email: text(320),
  reply_email: text(320),
  subject: text(998).refine((v) => !v || !/[\r\n]/.test(v), 'must not contain a line break'),
  description: text(1000),
  // the byte limit (413) is the service's; this only bounds what is parsed at all
  content_html: z.string().max(4 * 1024 * 1024).nullish(),
  content_text: z.string().max(4 * 1024 * 1024).nullish(),
});

const renderBody = z.strictObject({
  subject: text(998),
  content_html: z.string().max(4 * 1024 * 1024),
  content_text: text(4 * 1024 * 1024),
  variables: z.record(z.string(), z.unknown(), { error: 'variables must be an object' }).default({}),
});

const ID = /^[0-9a-f-]{36}$/i;
const idParam = (raw: string) => (ID.test(raw) ? raw.toLowerCase() : '00000000-0000-0000-0000-000000000000');

export function templateRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const read = [requireSession, requireSender] as const;
  const write = [requireSession, csrfGuard(ctx), requireSender] as const;

  app.post('/templates/search', ...write, async (c) => {
    const { customerId } = sessionOf(c);
    const body = await jsonBody(c, searchBody);
    const gallery = 'templateType' in body;
    const sort = body.sort ?? DEFAULT_SORT;
    const page = await searchTemplates(ctx.db, customerId, {
      name: (gallery ? body.templateName : body.template_name) ?? '',
      type: gallery ? body.templateType : 'user',
      status: gallery ? (body.templateStatus ?? null) : null,
      sort: sort.replace(/^-/, '') as TemplateSort,
      order: sort.startsWith('-') ? 'desc' : 'asc',
      page: body.page,
    });
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });

  app.post('/templates/render', ...write, async (c) => {
    const body = await jsonBody(c, renderBody);
    return c.json(renderPreview({ subject: body.subject ?? null, content_html: body.content_html, content_text: body.content_text ?? null, variables: body.variables }));
  });

  app.get('/templates/:id', ...read, async (c) => {
    const row = await readTemplate(ctx.db, sessionOf(c).customerId, idParam(c.req.param('id')));
    c.header('Cache-Control', 'no-store');
    return c.json({ template: templateToWire(row) });
  });

  app.post('/templates', ...write, async (c) => {
    const body = await jsonBody(c, templateBody);
    const row = await createTemplate(ctx, sessionOf(c).customerId, body);
    return c.json({ template: templateToWire(row), message: 'Save complete' }, 201);
  });

  app.put('/templates/:id', ...write, async (c) => {
    const body = await jsonBody(c, templateBody);
    const row = await updateTemplate(ctx, sessionOf(c).customerId, idParam(c.req.param('id')), body);
    return c.json({ template: templateToWire(row), message: 'Save complete' });
  });

  app.delete('/templates/:id', ...write, async (c) => {
    await deleteTemplate(ctx, sessionOf(c).customerId, idParam(c.req.param('id')));
    return c.json({ message: 'Template deleted successfully' });
  });
  return app;
}
