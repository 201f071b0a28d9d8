// Sending domains on the Resend-compatible surface (contract/resend-domains.ts), with the API key.
// Refusals are Resend's shape (app.ts puts http/resend-errors.ts in front of every /resend path).
import { Hono } from 'hono';
import * as contract from '../../contract/resend-domains.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { createDomain, deleteDomain, getDomain, listDomains, updateDomain, verifyDomain } from './domains.service.ts';

export function resendDomainRoutes(ctx: AppContext): Hono<ApiKeyEnv> {
  const app = new Hono<ApiKeyEnv>();
  const serve = contractRoutes(app, '/resend');
  const auth = [apiKeyAuth(ctx)];

  serve(contract.resendListDomains, auth, async (c) => c.json(await listDomains(ctx, c.get('customerId')), 200));
  serve(contract.resendGetDomain, auth, async (c, { params }) =>
    c.json(await getDomain(ctx, c.get('customerId'), params.id), 200),
  );
  serve(contract.resendCreateDomain, auth, async (c, { body }) =>
    c.json(await createDomain(ctx, c.get('customerId'), body), 200),
  );
  serve(contract.resendUpdateDomain, auth, async (c, { params, body }) => {
    const id = await updateDomain(ctx, c.get('customerId'), params.id, body);
    return c.json({ object: 'domain' as const, id }, 200);
  });
  serve(contract.resendVerifyDomain, auth, async (c, { params }) => {
    const id = await verifyDomain(ctx, c.get('customerId'), params.id);
    return c.json({ object: 'domain' as const, id }, 200);
  });
  serve(contract.resendRemoveDomain, auth, async (c, { params }) => {
    const id = await deleteDomain(ctx, c.get('customerId'), params.id);
    return c.json({ object: 'domain' as const, id, deleted: true as const }, 200);
  });
  return app;
}
