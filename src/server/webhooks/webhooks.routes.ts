// Webhook calls (docs/console.md §7 GET/POST /v1/webhooks; docs/console-reports.md §7 POST /v1/webhook-logs) and ours
// beyond the spec: POST /v1/webhooks/secret (rotate the signing secret), POST /v1/webhooks/test
// (send a test event now), GET /v1/webhook-logs/{id} (More info) and POST /v1/webhook-logs/{id}/replay.
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { jsonBody } from '../http/validate.ts';
import { SAVED_MESSAGE, logDetail, logSearch, replayLog, rotateSecret, saveWebhook, searchLogs, sendTestEvent, webhooksForConsole } from './webhooks.service.ts';

function logId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw new ApiError('not_found', 'No such webhook log entry');
  return Number(raw);
}

export function webhookRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const change = [requireSession, csrfGuard(ctx), requireSender] as const;

  app.get('/webhooks', requireSession, requireSender, async (c) => {
    const data = await webhooksForConsole(ctx, sessionOf(c).customerId);
    c.header('Cache-Control', 'no-store'); // it carries the basic-auth password and the signing secret
    return c.json({ data });
  });

  app.post('/webhooks', ...change, async (c) => {
    const webhook = await saveWebhook(ctx, sessionOf(c).customerId, await jsonBody(c, z.unknown()));
    c.header('Cache-Control', 'no-store');
    return c.json({ message: SAVED_MESSAGE, data: webhook });
  });

  app.post('/webhooks/secret', ...change, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await rotateSecret(ctx, sessionOf(c).customerId));
  });

  app.post('/webhooks/test', ...change, async (c) => c.json(await sendTestEvent(ctx, sessionOf(c).customerId)));

  app.post('/webhook-logs', requireSession, csrfGuard(ctx), async (c) => {
    return c.json(await searchLogs(ctx, sessionOf(c).customerId, await jsonBody(c, logSearch)));
  });

  app.get('/webhook-logs/:id', requireSession, async (c) => {
    return c.json(await logDetail(ctx, sessionOf(c).customerId, logId(c.req.param('id'))));
  });

  app.post('/webhook-logs/:id/replay', ...change, async (c) => {
    await replayLog(ctx, sessionOf(c).customerId, logId(c.req.param('id')));
    return c.json({ message: 'Queued again.' }, 202);
  });
  return app;
}
