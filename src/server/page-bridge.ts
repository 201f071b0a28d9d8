// What console pages may use on the server, handed to Astro in `locals.bridge` by the HTTP server
// (or by the dev integration). Pages never import the database or services directly: Astro's
// bundle gets this one object, so both share one database connection.
import type { AppContext } from './context.ts';
import { type ResolvedSession, type SessionWire, resolveSession, sessionToWire } from './auth/auth.service.ts';
import { isSecureRequest, sessionCookieOptions, type CookieOptions } from './http/session-cookie.ts';

export interface PageSession {
  session: ResolvedSession;
  wire: SessionWire;
}

export interface PageBridge {
  /** Public settings pages need. */
  publicUrl: string;
  parentPlatformUrl: string | null;
  /** The signed-in session for a cookie token, or null. */
  resolveSession(token: string | undefined): Promise<PageSession | null>;
  /** Options for re-sending the session cookie when the session was extended. */
  sessionCookieOptions(headers: Headers): CookieOptions;
}

export function createPageBridge(ctx: AppContext): PageBridge {
  return {
    publicUrl: ctx.config.publicUrl,
    parentPlatformUrl: ctx.config.parentPlatformUrl ?? null,
    async resolveSession(token) {
      const session = await resolveSession(ctx, token);
      if (!session) return null;
      return { session, wire: sessionToWire(ctx, session) };
    },
    sessionCookieOptions(headers) {
      return sessionCookieOptions(ctx.config, isSecureRequest(ctx.config, headers));
    },
  };
}
