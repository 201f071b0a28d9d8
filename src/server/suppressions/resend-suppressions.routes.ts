// The suppression list on the Resend-compatible surface (contract/resend-suppressions.ts), with the
// API key: the SDK's resend.suppressions.*. Refusals are Resend's shape (app.ts puts
// http/resend-errors.ts in front of every /resend path).
import { Hono } from 'hono';
import * as contract from '../../contract/resend-suppressions.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiKeyEnv, apiKeyAuth } from '../http/api-key.ts';
import { contractRoutes } from '../http/contract-route.ts';
import {
  addSuppressionEntries,
  getSuppressionEntry,
  listSuppressionEntries,
  removeSuppressionEntries,
  removeSuppressionEntry,
} from './resend-suppressions.service.ts';

export function resendSuppressionRoutes(ctx: AppContext): Hono<ApiKeyEnv> {
  const app = new Hono<ApiKeyEnv>();
  const serve = contractRoutes(app, '/resend');
  const auth = [apiKeyAuth(ctx)];

  serve(contract.resendAddSuppression, auth, async (c, { body }) => {
    const [entry] = await addSuppressionEntries(ctx, c.get('customerId'), [body.email]);
    return c.json(entry, 201);
  });
  serve(contract.resendAddSuppressions, auth, async (c, { body }) =>
    c.json({ data: await addSuppressionEntries(ctx, c.get('customerId'), body.emails) }, 201),
  );
  serve(contract.resendRemoveSuppressions, auth, async (c, { body }) =>
    c.json({ data: await removeSuppressionEntries(ctx, c.get('customerId'), body) }, 200),
  );
  serve(contract.resendListSuppressions, auth, async (c, { query }) =>
    c.json(await listSuppressionEntries(ctx, c.get('customerId'), query), 200),
  );
  serve(contract.resendGetSuppression, auth, async (c, { params }) =>
    c.json(await getSuppressionEntry(ctx, c.get('customerId'), params.idOrEmail), 200),
  );
  serve(contract.resendRemoveSuppression, auth, async (c, { params }) =>
    c.json(await removeSuppressionEntry(ctx, c.get('customerId'), params.idOrEmail), 200),
  );
  return app;
}
