// The console session of an API call, resolved from its cookie once per request (mounted by the
// composition root, src/server/app.ts), so http/ reads the session without importing auth/.
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { AppContext } from '../core/context.ts';
import type { ApiEnv } from '../http/middleware.ts';
import { SESSION_COOKIE, isSecureRequest, sessionCookieOptions } from '../http/session-cookie.ts';
import { resolveSession } from './auth.service.ts';

/** Resolves the session cookie once per request into c.var.session, re-sending the cookie when extended. */
export function sessionMiddleware(ctx: AppContext): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const token = getCookie(c, SESSION_COOKIE);
    const session = await resolveSession(ctx, token);
    c.set('session', session);
    if (session?.extended && token) {
      setCookie(
        c,
        SESSION_COOKIE,
        token,
        sessionCookieOptions(ctx.config, isSecureRequest(ctx.config, c.req.raw.headers)),
      );
    }
    await next();
  };
}
