// The Resend-compatible surface's own calls (contract/resend.ts), with the API key; its send calls
// are served with the others in sending/mail.routes.ts. Refusals are Resend's shape (app.ts puts
// http/resend-errors.ts in front of every /resend path).
import { Hono } from 'hono';
import * as contract from '../../contract/resend.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { cancelEmail, rescheduleEmail } from '../lifecycle/scheduling.service.ts';
import { getEmail, listEmails } from './emails.service.ts';

export function resendRoutes(ctx: AppContext): Hono<ApiKeyEnv> {
  const app = new Hono<ApiKeyEnv>();
  const serve = contractRoutes(app, '/resend');
  const auth = [apiKeyAuth(ctx)];

  serve(contract.resendGetEmail, auth, async (c, { params }) =>
    c.json(await getEmail(ctx, c.get('customerId'), params.id), 200),
  );
  serve(contract.resendListEmails, auth, async (c, { query }) =>
    c.json(await listEmails(ctx, c.get('customerId'), query), 200),
  );
  serve(contract.resendUpdateEmail, auth, async (c, { params, body }) => {
    await rescheduleEmail(ctx, c.get('customerId'), params.id, body.scheduled_at);
    return c.json({ object: 'email' as const, id: params.id }, 200);
  });
  serve(contract.resendCancelEmail, auth, async (c, { params }) => {
    await cancelEmail(ctx, c.get('customerId'), params.id);
    return c.json({ object: 'email' as const, id: params.id }, 200);
  });
  return app;
}
