// The Suppression List's calls (docs/console-reports.md §7 "Suppression"): POST /v1/suppression {emails[]},
// POST /v1/suppression/search {page, email, suppressed_origin}, DELETE /v1/suppression/{email}.
// Console calls: a session, CSRF protection on every one of them (all three are POST or DELETE),
// and the send permission (docs/console.md §6).
import type { Hono } from 'hono';
import * as contract from '../../contract/webhooks.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { type ApiEnv, sessionOf } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { noStoreJson } from '../http/no-store.ts';
import { addSuppressions, answerSuppressionSearch, removeSuppression } from './suppressions.service.ts';

export function suppressionRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, senderWrite } = consoleRoutes(ctx);

  serve(contract.addSuppressions, senderWrite, async (c, { body: { emails } }) => {
    const { customerId } = sessionOf(c);
    const result = await addSuppressions(ctx, customerId, emails);
    return c.json(result);
  });

  serve(contract.searchSuppressions, senderWrite, async (c, { body }) =>
    noStoreJson(c, await answerSuppressionSearch(ctx, sessionOf(c).customerId, body)),
  );

  // {email} is URL-encoded by the client; Hono decodes the parameter. `.+` keeps an encoded '/'
  // (a valid local-part character) from ending the match should a proxy decode it.
  serve(contract.deleteSuppression, senderWrite, async (c, { params }) => {
    const { customerId } = sessionOf(c);
    const { email } = params;
    if (email.length > 1000) throw new DomainError('validation_failed', 'The address is too long');
    await removeSuppression(ctx, customerId, email);
    return c.json({ message: 'Suppression Deleted Successfully' });
  });
  return app;
}
