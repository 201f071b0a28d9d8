// The Suppression List's calls (docs/console-reports.md §7 "Suppression"): POST /v1/suppression {emails[]},
// POST /v1/suppression/search {page, email, suppressed_origin}, DELETE /v1/suppression/{email}.
// Console calls: a session, CSRF protection on every one of them (all three are POST or DELETE),
// and the send permission (docs/console.md §6).
import { Hono } from 'hono';
import type { z } from 'zod';
import * as contract from '../../contract/webhooks.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { contractRoutes } from '../http/contract-route.ts';
import {
  type SuppressionPage,
  addSuppressions,
  removeSuppression,
  searchSuppressions,
} from './suppressions.service.ts';

/**
 * POST /v1/suppression/search's answer to a checked body; also the page's first page, rendered on the server (issue
 * 19).
 */
export function answerSuppressionSearch(
  ctx: AppContext,
  customerId: number,
  body: z.infer<typeof contract.searchSuppressionsBody>,
): Promise<SuppressionPage> {
  return searchSuppressions(ctx.db, customerId, {
    page: body.page,
    email: body.email ?? '',
    origin: body.suppressed_origin ?? '',
  });
}

export function suppressionRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const serve = contractRoutes(app, '/v1');
  const guard = [requireSession, csrfGuard(ctx), requireSender];

  serve(contract.addSuppressions, guard, async (c, { body: { emails } }) => {
    const { customerId } = sessionOf(c);
    const result = await ctx.db.transaction().execute((trx) => addSuppressions(trx, customerId, emails));
    return c.json(result);
  });

  serve(contract.searchSuppressions, guard, async (c, { body }) => {
    const page = await answerSuppressionSearch(ctx, sessionOf(c).customerId, body);
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });

  // {email} is URL-encoded by the client; Hono decodes the parameter. `.+` keeps an encoded '/'
  // (a valid local-part character) from ending the match should a proxy decode it.
  serve(contract.deleteSuppression, guard, async (c, { params }) => {
    const { customerId } = sessionOf(c);
    const { email } = params;
    if (email.length > 1000) throw new ApiError('validation_failed', 'The address is too long');
    await ctx.db.transaction().execute((trx) => removeSuppression(trx, customerId, email));
    return c.json({ message: 'Suppression Deleted Successfully' });
  });
  return app;
}
