// The console's Inbound calls (docs/console.md §7): POST /v1/inbound/search (a search with a body, so a
// session and CSRF protection, like the transaction search), GET /v1/inbound/{id} and its webhook
// requests, GET /v1/inbound/{id}/webhook-requests (Replay is Webhook Logs' call). Every signed-in
// user of the account may read its received mail, as its transactions (docs/console.md §6).
import type { Hono } from 'hono';
import * as contract from '../../contract/inbound.ts';
import type { AppContext } from '../core/context.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { type ApiEnv, requireSession, sessionOf } from '../http/middleware.ts';
import { noStoreJson } from '../http/no-store.ts';
import { answerInboundSearch, inboundMessage, inboundWebhookRequests } from './inbound-console.service.ts';

export function inboundConsoleRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, write } = consoleRoutes(ctx);
  serve(contract.searchInbound, write, async (c, { body }) =>
    noStoreJson(c, await answerInboundSearch(ctx, sessionOf(c).customerId, body)),
  );
  serve(contract.getInbound, [requireSession], async (c, { params }) =>
    noStoreJson(c, await inboundMessage(ctx, sessionOf(c).customerId, params.id)),
  );
  serve(contract.getInboundWebhookRequests, [requireSession], async (c, { params }) =>
    noStoreJson(c, await inboundWebhookRequests(ctx, sessionOf(c).customerId, params.id)),
  );
  return app;
}
