// Webhooks on the Resend-compatible surface (contract/resend-webhooks.ts), with the API key.
// Refusals are Resend's shape (app.ts puts http/resend-errors.ts in front of every /resend path).
import { Hono } from 'hono';
import * as contract from '../../contract/resend-webhooks.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import * as service from './webhooks.service.ts';

export function resendWebhookRoutes(ctx: AppContext): Hono<ApiKeyEnv> {
  const app = new Hono<ApiKeyEnv>();
  const serve = contractRoutes(app, '/resend');
  const auth = [apiKeyAuth(ctx)];
  const customer = (c: { get(key: 'customerId'): number }) => c.get('customerId');

  // the answers that carry a signing secret are not stored by any cache (set first: a refusal neither)
  serve(contract.resendCreateWebhook, auth, async (c, { body }) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await service.createWebhook(ctx, customer(c), body), 201);
  });
  serve(contract.resendListWebhooks, auth, async (c, { query }) =>
    c.json(await service.listWebhooks(ctx, customer(c), query), 200),
  );
  serve(contract.resendGetWebhook, auth, async (c, { params }) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await service.getWebhook(ctx, customer(c), params.id), 200);
  });
  serve(contract.resendUpdateWebhook, auth, async (c, { params, body }) =>
    c.json(await service.updateWebhook(ctx, customer(c), params.id, body), 200),
  );
  serve(contract.resendRemoveWebhook, auth, async (c, { params }) =>
    c.json(await service.removeWebhook(ctx, customer(c), params.id), 200),
  );
  serve(contract.resendRotateWebhookSecret, auth, async (c, { params }) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await service.rotateSigningSecret(ctx, customer(c), params.id), 200);
  });
  serve(contract.resendListWebhookEvents, auth, async (c, { params, query }) =>
    c.json(await service.listEvents(ctx, customer(c), params.webhookId, query), 200),
  );
  serve(contract.resendGetWebhookEvent, auth, async (c, { params }) =>
    c.json(await service.getEvent(ctx, customer(c), params.webhookId, params.eventId), 200),
  );
  serve(contract.resendReplayWebhookEvent, auth, async (c, { params }) =>
    c.json(await service.replayEvent(ctx, customer(c), params.webhookId, params.eventId), 200),
  );
  serve(contract.resendListWebhookEventAttempts, auth, async (c, { params, query }) =>
    c.json(await service.listAttempts(ctx, customer(c), params, query), 200),
  );
  return app;
}
