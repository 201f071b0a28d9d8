// Webhook calls (docs/console.md §7 GET/POST /v1/webhooks; docs/console-reports.md §7 POST /v1/webhook-logs) and ours
// beyond the spec: several webhooks (an `id` names one), POST /v1/webhooks/secret (rotate the signing secret),
// POST /v1/webhooks/test
// (send a test event now), GET /v1/webhook-logs/{id} (More info) and POST /v1/webhook-logs/{id}/replay.
import type { Hono } from 'hono';
import { z } from 'zod';
import * as contract from '../../contract/webhooks.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { noStoreJson } from '../http/no-store.ts';
import { jsonBody } from '../http/validate.ts';
import {
  DELETED_MESSAGE,
  SAVED_MESSAGE,
  logDetail,
  replayLog,
  rotateSecret,
  saveWebhook,
  searchLogs,
  deleteWebhook,
  sendTestEvent,
  webhooksForConsole,
} from './webhooks.service.ts';

export function webhookRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, write, senderWrite: change } = consoleRoutes(ctx);

  serve(contract.getWebhooks, [requireSession, requireSender], async (c) => {
    const data = await webhooksForConsole(ctx, sessionOf(c).customerId);
    // it carries the basic-auth password and the signing secret
    return noStoreJson(c, { data });
  });

  // the service checks the body (its messages are the modal's)
  serve(contract.saveWebhook, change, async (c) => {
    const webhook = await saveWebhook(ctx, sessionOf(c).customerId, await jsonBody(c, z.unknown()));
    return noStoreJson(c, { message: SAVED_MESSAGE, data: webhook });
  });

  serve(contract.deleteWebhook, change, async (c, { params }) => {
    await deleteWebhook(ctx, sessionOf(c).customerId, params.id);
    return c.json({ message: DELETED_MESSAGE });
  });

  serve(contract.rotateSecret, change, async (c, { query }) => {
    c.header('Cache-Control', 'no-store'); // set first: a refusal is not stored either
    return c.json(await rotateSecret(ctx, sessionOf(c).customerId, query.id));
  });

  serve(contract.testWebhook, change, async (c, { query }) =>
    c.json(await sendTestEvent(ctx, sessionOf(c).customerId, query.id)),
  );

  serve(contract.searchWebhookLogs, write, async (c, { body }) => {
    return c.json(await searchLogs(ctx, sessionOf(c).customerId, body));
  });

  serve(contract.getWebhookLog, [requireSession], async (c, { params }) => {
    return c.json(await logDetail(ctx, sessionOf(c).customerId, params.id));
  });

  serve(contract.replayWebhookLog, change, async (c, { params }) => {
    await replayLog(ctx, sessionOf(c).customerId, params.id);
    return c.json({ message: 'Queued again.' }, 202);
  });
  return app;
}
