// The public unsubscribe calls: POST /v1/unsubscribe and /v1/resubscribe {transaction_id} →
// {message, redirect} (docs/console-reports.md §7), made by the recipients' pages, and the RFC 8058
// one-click POST /header-unsubscribe/{transactionId} made by mailbox providers (server.ts sends
// that POST here: Astro's origin check would refuse it, as it comes cross-site with no Origin).
//
// No session and no CSRF check, on purpose: the transaction uuid in the link is the recipient's
// only credential, a cross-site request can do no more than anyone holding the link, and RFC 8058
// §3.2 has the provider post from elsewhere without cookies.
import { Hono } from 'hono';
import * as contract from '../../contract/sending.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { type ApiEnv, limitBody } from '../http/middleware.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { ONE_CLICK_BODY } from '../message/list-unsubscribe.ts';
import { resubscribe, unsubscribe } from './unsubscribe.service.ts';

/** A one-click body is one short field (RFC 8058 §3.1); anything bigger is not one. */
const ONE_CLICK_MAX_BYTES = 4096;

export function unsubscribeRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const serve = contractRoutes(app, '');

  serve(contract.unsubscribe, [], async (c, { body: { transaction_id } }) => {
    return c.json(await unsubscribe(ctx, transaction_id, 'page'));
  });

  serve(contract.resubscribe, [], async (c, { body: { transaction_id } }) => {
    return c.json(await resubscribe(ctx, transaction_id, 'page'));
  });

  // RFC 8058 §3.1: the body is `List-Unsubscribe=One-Click`, form-urlencoded or multipart; the
  // answer must not be a redirect, so it is a plain 200.
  app.post('/header-unsubscribe/:transactionId', limitBody(ONE_CLICK_MAX_BYTES), async (c) => {
    const [key, value] = ONE_CLICK_BODY.split('=');
    // a malformed multipart body is just not a one-click request
    const form: Record<string, unknown> = await c.req.parseBody().catch(() => ({}));
    if (form[key] !== value)
      throw new DomainError('bad_request', `A one-click unsubscribe posts the form body ${ONE_CLICK_BODY} (RFC 8058)`);
    const answer = await unsubscribe(ctx, c.req.param('transactionId'), 'one_click');
    c.header('Cache-Control', 'no-store');
    return c.text(answer.message);
  });

  return app;
}
