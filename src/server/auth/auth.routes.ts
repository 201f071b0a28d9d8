// Sign-in, sign-out and the session answer of the console (docs/console.md §7, docs/console-reports.md §7 Auth).
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { safeNextPath } from '../../lib/next-path.ts';
import { DomainError } from '../core/errors.ts';
import { type ApiEnv, clientIp } from '../http/middleware.ts';
import { CHALLENGE_COOKIE, SESSION_COOKIE, isSecureRequest, sessionCookieOptions } from '../http/session-cookie.ts';
import { check } from '../core/check.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import * as contract from '../../contract/account.ts';
import type { AppContext } from '../core/context.ts';
import * as auth from './auth.service.ts';

export function authRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, csrf } = consoleRoutes(ctx);
  /** A new session for the user, its token set as the session cookie; answers the token. */
  const startSession = async (c: Context<ApiEnv>, userId: number): Promise<string> => {
    const token = await auth.startSession(ctx, userId, {
      ip: clientIp(c),
      userAgent: c.req.header('user-agent') ?? null,
    });
    setCookie(
      c,
      SESSION_COOKIE,
      token,
      sessionCookieOptions(ctx.config, isSecureRequest(ctx.config, c.req.raw.headers)),
    );
    return token;
  };

  serve(contract.login, [csrf], async (c, { body }) => {
    const userId = await auth.login(ctx, { email: body.email, password: body.password, ip: clientIp(c) });
    const token = await startSession(c, userId);
    const session = await auth.resolveSession(ctx, token);
    return c.json(auth.sessionToWire(ctx, session));
  });

  serve(contract.logout, [csrf], async (c) => {
    const redirect = auth.logoutDestination(c.get('session'));
    await auth.endSession(ctx, getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.json({ redirect });
  });

  serve(contract.verifyAuth, [], async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json(auth.sessionToWire(ctx, c.get('session')));
  });

  serve(contract.initiateChallenge, [csrf], async (c, { body }) => {
    const { nonce, redirectUrl } = await auth.initiateChallenge(ctx, {
      installUrl: body.installUrl,
      redirect: body.redirect ?? null,
    });
    setCookie(c, CHALLENGE_COOKIE, nonce, {
      httpOnly: true,
      sameSite: 'lax',
      secure: isSecureRequest(ctx.config, c.req.raw.headers),
      path: '/v1/auth',
      maxAge: auth.CHALLENGE_TTL_SECONDS,
    });
    return c.json({ redirectUrl });
  });

  // The parent platform sends the browser here with its signed assertion (a top-level GET, so the
  // Lax challenge cookie comes along). Failures land on /unauthorized rather than a JSON page.
  serve(contract.authCallback, [], async (c) => {
    try {
      const { assertion } = check(contract.callbackQuery, c.req.query());
      const { userId, redirect } = await auth.completeChallenge(ctx, assertion, getCookie(c, CHALLENGE_COOKIE));
      deleteCookie(c, CHALLENGE_COOKIE, { path: '/v1/auth' });
      await startSession(c, userId);
      return c.redirect(safeNextPath(redirect), 302);
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      ctx.logger.warn({ code: err.code, reason: err.message }, 'parent platform sign-in refused');
      return c.redirect('/unauthorized', 302);
    }
  });

  return app;
}
