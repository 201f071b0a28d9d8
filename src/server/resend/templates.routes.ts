// Templates on the Resend-compatible surface (contract/resend-templates.ts), with the API key.
// Refusals are Resend's shape (app.ts puts http/resend-errors.ts in front of every /resend path).
import { Hono } from 'hono';
import * as contract from '../../contract/resend-templates.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import {
  createResendTemplate,
  duplicateResendTemplate,
  getResendTemplate,
  listResendTemplates,
  publishResendTemplate,
  removeResendTemplate,
  updateResendTemplate,
} from './templates.service.ts';

export function resendTemplateRoutes(ctx: AppContext): Hono<ApiKeyEnv> {
  const app = new Hono<ApiKeyEnv>();
  const serve = contractRoutes(app, '/resend');
  const auth = [apiKeyAuth(ctx)];
  const ref = (id: string) => contract.templateRef(id);

  serve(contract.resendCreateTemplate, auth, async (c, { body }) =>
    c.json(await createResendTemplate(ctx, c.get('customerId'), body), 200),
  );
  serve(contract.resendListTemplates, auth, async (c, { query }) =>
    c.json(await listResendTemplates(ctx, c.get('customerId'), query), 200),
  );
  serve(contract.resendGetTemplate, auth, async (c, { params }) =>
    c.json(await getResendTemplate(ctx, c.get('customerId'), ref(params.id)), 200),
  );
  serve(contract.resendUpdateTemplate, auth, async (c, { params, body }) =>
    c.json(await updateResendTemplate(ctx, c.get('customerId'), ref(params.id), body), 200),
  );
  serve(contract.resendPublishTemplate, auth, async (c, { params }) =>
    c.json(await publishResendTemplate(ctx, c.get('customerId'), ref(params.id)), 200),
  );
  serve(contract.resendDuplicateTemplate, auth, async (c, { params }) =>
    c.json(await duplicateResendTemplate(ctx, c.get('customerId'), ref(params.id)), 200),
  );
  serve(contract.resendRemoveTemplate, auth, async (c, { params }) =>
    c.json(await removeResendTemplate(ctx, c.get('customerId'), ref(params.id)), 200),
  );
  return app;
}
