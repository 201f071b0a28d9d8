// Named API keys (contract/api-keys.ts): /resend/api-keys with a full_access key (the SDK's
// resend.apiKeys.*; refusals in Resend's shape, app.ts), /v1/api-keys for Settings with the session,
// its CSRF rule and the send permission, like the credentials (docs/console.md §6).
import { Hono } from 'hono';
import * as contract from '../../contract/api-keys.ts';
import type { AppContext } from '../core/context.ts';
import {
  createApiKey,
  deleteApiKey,
  listApiKeys,
  pageOfApiKeys,
  updateApiKey,
} from '../credentials/api-keys.service.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession, sessionOf } from '../http/middleware.ts';

type CreateBody = { name: string; permission?: 'full_access' | 'sending_access'; domain_id?: number | string | null };
const createInput = (body: CreateBody) => ({
  name: body.name,
  permission: body.permission,
  domainId: body.domain_id === undefined || body.domain_id === null ? null : Number(body.domain_id),
});
const deletedAnswer = (id: string) => ({ object: 'api_key' as const, id, deleted: true as const });

/** Mounted at the root after the session middleware: it serves both /resend and /v1 paths. */
export function apiKeyRoutes(ctx: AppContext): Hono<ApiEnv> {
  const keyApp = new Hono<ApiKeyEnv>();
  const serveKey = contractRoutes(keyApp, '');
  const key = [apiKeyAuth(ctx)];

  serveKey(contract.resendCreateApiKey, key, async (c, { body }) =>
    c.json(await createApiKey(ctx, c.get('customerId'), createInput(body)), 201),
  );
  serveKey(contract.resendListApiKeys, key, async (c, { query }) => {
    const page = await pageOfApiKeys(ctx, c.get('customerId'), query);
    const data = page.data.map(({ id, name, permission, created_at, last_used_at }) => ({
      id,
      name,
      permission,
      created_at,
      last_used_at,
    }));
    return c.json({ object: 'list' as const, has_more: page.has_more, data }, 200);
  });
  serveKey(contract.resendUpdateApiKey, key, async (c, { params, body }) => {
    const { domain_id, ...rest } = body;
    await updateApiKey(ctx, c.get('customerId'), params.id, { ...rest, domainId: domain_id });
    return c.json({ object: 'api_key' as const, id: params.id }, 200);
  });
  serveKey(contract.resendDeleteApiKey, key, async (c, { params }) => {
    await deleteApiKey(ctx, c.get('customerId'), params.id);
    return c.json(deletedAnswer(params.id), 200);
  });

  const app = new Hono<ApiEnv>();
  app.route('/', keyApp);
  const serve = contractRoutes(app, '');
  const read = [requireSession, requireSender];
  const write = [requireSession, csrfGuard(ctx), requireSender];
  serve(contract.listApiKeys, read, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ data: await listApiKeys(ctx, sessionOf(c).customerId) }, 200);
  });
  serve(contract.createApiKey, write, async (c, { body }) => {
    c.header('Cache-Control', 'no-store');
    return c.json(await createApiKey(ctx, sessionOf(c).customerId, createInput(body)), 201);
  });
  serve(contract.deleteApiKey, write, async (c, { params }) => {
    await deleteApiKey(ctx, sessionOf(c).customerId, params.id);
    return c.json(deletedAnswer(params.id), 200);
  });
  return app;
}
