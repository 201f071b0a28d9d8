// The start of every console app mounted at /v1 (docs/console.md §6, §7): its Hono app, the
// registrar of its contract operations (contract-route.ts), and the guards its calls share.
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppContext } from '../core/context.ts';
import { contractRoutes } from './contract-route.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession } from './middleware.ts';

type Guard = readonly MiddlewareHandler<ApiEnv>[];

export function consoleRoutes(ctx: AppContext) {
  const app = new Hono<ApiEnv>();
  const csrf = csrfGuard(ctx);
  /** A console call by POST, PATCH or DELETE (a change, or a search with a body): a session, then CSRF protection. */
  const write: Guard = [requireSession, csrf];
  /** The same for users allowed to send transactions (docs/console.md §6). */
  const senderWrite: Guard = [...write, requireSender];
  return { app, serve: contractRoutes(app, '/v1'), csrf, write, senderWrite };
}
