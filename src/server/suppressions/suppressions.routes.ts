// The Suppression List's calls (docs/console-reports.md §7 "Suppression"): POST /v1/suppression {emails[]},
// POST /v1/suppression/search {page, email, suppressed_origin}, DELETE /v1/suppression/{email}.
// Console calls: a session, CSRF protection on every one of them (all three are POST or DELETE),
// and the send permission (docs/console.md §6).
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { jsonBody } from '../http/validate.ts';
import { MAX_EMAILS_PER_REQUEST, type SuppressionPage, addSuppressions, removeSuppression, searchSuppressions } from './suppressions.service.ts';

const addBody = z.strictObject({
  emails: z.array(z.string(), { error: 'emails must be a list of email addresses' }).max(MAX_EMAILS_PER_REQUEST, {
    error: `Add at most ${MAX_EMAILS_PER_REQUEST} email addresses at a time`,
  }),
});

// docs/console-reports.md §2: filter buttons All, User, Bounce, Unsubscribe; '' (or null) also means all
export const suppressionSearchBody = z.strictObject({
  page: z.number().int().min(1).max(1_000_000).default(1),
  email: z.string().max(320).nullish(),
  suppressed_origin: z.enum(['', 'all', 'user', 'bounce', 'unsubscribe']).nullish(),
});

/** POST /v1/suppression/search's answer to a checked body; also the page's first page, rendered on the server (issue 19). */
export function answerSuppressionSearch(ctx: AppContext, customerId: number, body: z.infer<typeof suppressionSearchBody>): Promise<SuppressionPage> {
  return searchSuppressions(ctx.db, customerId, { page: body.page, email: body.email ?? '', origin: body.suppressed_origin ?? '' });
}

export function suppressionRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const guard = [requireSession, csrfGuard(ctx), requireSender] as const;

  app.post('/suppression', ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    const { emails } = await jsonBody(c, addBody);
    const result = await ctx.db.transaction().execute((trx) => addSuppressions(trx, customerId, emails));
    return c.json(result);
  });

  app.post('/suppression/search', ...guard, async (c) => {
    const page = await answerSuppressionSearch(ctx, sessionOf(c).customerId, await jsonBody(c, suppressionSearchBody));
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });

  // {email} is URL-encoded by the client; Hono decodes the parameter. `.+` keeps an encoded '/'
  // (a valid local-part character) from ending the match should a proxy decode it.
  app.delete('/suppression/:email{.+}', ...guard, async (c) => {
    const { customerId } = sessionOf(c);
    const email = c.req.param('email');
    if (email.length > 1000) throw new ApiError('validation_failed', 'The address is too long');
    await ctx.db.transaction().execute((trx) => removeSuppression(trx, customerId, email));
    return c.json({ message: 'Suppression Deleted Successfully' });
  });
  return app;
}
