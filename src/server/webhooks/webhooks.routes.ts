// GET /v1/webhooks (spec core §7): the signed-in customer's webhook for the Settings page, as
// { data: [webhook] } or { data: [] }; the console uses only the first item.
import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { type ApiEnv, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { webhooksForConsole } from './webhooks.service.ts';

export function webhookRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/webhooks', requireSession, requireSender, async (c) => {
    const data = await webhooksForConsole(ctx, sessionOf(c).customerId);
    c.header('Cache-Control', 'no-store'); // it carries the basic-auth password
    return c.json({ data });
  });
  return app;
}
