// The Templates screens' calls (docs/console-reports.md §7 "Templates"): POST /v1/templates/search in the
// list's shape {template_name, sort, page} and the Select Template page's {templateName,
// templateType, templateStatus}; GET, POST, PUT, DELETE of one template (the response holds the
// template); and POST /v1/templates/render for the editor's live preview. Console calls: a
// session, CSRF protection on writes, the send permission (docs/console.md §6).
import type { Hono } from 'hono';
import * as contract from '../../contract/templates.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import type { TemplateSort } from './templates.repository.ts';
import {
  createTemplate,
  deleteTemplate,
  readTemplate,
  renderPreview,
  searchTemplates,
  templateToWire,
  updateTemplate,
} from './templates.service.ts';

export function templateRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, senderWrite: write } = consoleRoutes(ctx);
  const read = [requireSession, requireSender];

  serve(contract.searchTemplates, write, async (c, { body }) => {
    const { customerId } = sessionOf(c);
    const gallery = 'templateType' in body;
    const sort = body.sort ?? contract.DEFAULT_TEMPLATE_SORT;
    const page = await searchTemplates(ctx, customerId, {
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

  serve(contract.renderTemplate, write, async (c, { body }) => {
    return c.json(
      renderPreview({
        subject: body.subject ?? null,
        content_html: body.content_html,
        content_text: body.content_text ?? null,
        variables: body.variables,
      }),
    );
  });

  serve(contract.getTemplate, read, async (c, { params }) => {
    const row = await readTemplate(ctx, sessionOf(c).customerId, params.id);
    c.header('Cache-Control', 'no-store');
    return c.json({ template: templateToWire(row) });
  });

  serve(contract.createTemplate, write, async (c, { body }) => {
    const row = await createTemplate(ctx, sessionOf(c).customerId, body);
    return c.json({ template: templateToWire(row), message: 'Save complete' }, 201);
  });

  serve(contract.updateTemplate, write, async (c, { params, body }) => {
    const row = await updateTemplate(ctx, sessionOf(c).customerId, params.id, body);
    return c.json({ template: templateToWire(row), message: 'Save complete' });
  });

  serve(contract.deleteTemplate, write, async (c, { params }) => {
    await deleteTemplate(ctx, sessionOf(c).customerId, params.id);
    return c.json({ message: 'Template deleted successfully' });
  });
  return app;
}
