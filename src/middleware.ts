// The route guard (docs/console-reports.md §2), resolved once per page request into Astro.locals.session:
// signed out on a private page → /login?url=<path>; signed in on /login → / or /{url}.
import { defineMiddleware } from 'astro:middleware';
import type { APIContext, MiddlewareNext } from 'astro';
import { nextParam, safeNextPath } from './lib/next-path.ts';
import { SESSION_COOKIE } from './server/http/session-cookie.ts';
import { isDatabaseUnavailable } from './server/db/availability.ts';
import { unavailable } from './server/http/unavailable-page.ts';

const PUBLIC_PREFIXES = ['/unsubscribe/', '/header-unsubscribe/', '/verify-domain/'];

export function isPublicPath(pathname: string): boolean {
  return pathname === '/login' || PUBLIC_PREFIXES.some((p) => pathname.startsWith(p));
}

export const onRequest = defineMiddleware(async (context, next) => {
  try {
    return await guard(context, next);
  } catch (err) {
    if (isDatabaseUnavailable(err)) return unavailable();
    throw err;
  }
});

async function guard(context: APIContext, next: MiddlewareNext): Promise<Response> {
  const { bridge } = context.locals;
  const token = context.cookies.get(SESSION_COOKIE)?.value;
  const resolved = bridge && token ? await bridge.resolveSession(token) : null;
  context.locals.session = resolved?.wire ?? null;
  if (resolved?.session.extended && token && bridge) {
    context.cookies.set(SESSION_COOKIE, token, bridge.sessionCookieOptions(context.request.headers));
  }

  const { pathname, search } = context.url;
  let response: Response;
  if (!resolved && !isPublicPath(pathname)) {
    const next = nextParam(pathname, search);
    response = context.redirect(next ? `/login?url=${encodeURIComponent(next)}` : '/login', 302);
  } else if (resolved && pathname === '/login') {
    response = context.redirect(safeNextPath(context.url.searchParams.get('url')), 302);
  } else {
    response = await next();
  }
  response.headers.set('X-Content-Type-Options', 'nosniff');
  response.headers.set('Referrer-Policy', 'same-origin');
  response.headers.set('X-Frame-Options', 'DENY');
  if (!response.headers.has('Cache-Control')) response.headers.set('Cache-Control', 'no-store');
  return response;
}
