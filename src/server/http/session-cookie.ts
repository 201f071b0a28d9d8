// The console session cookie: HttpOnly, SameSite=Lax, Secure when served over TLS (docs/architecture.md §8,
// security lines). Shared by the API (Hono) and the page middleware (Astro).
import type { Config } from '../core/config.ts';

export const SESSION_COOKIE = 'transact_session';
export const CHALLENGE_COOKIE = 'transact_challenge';

/** True when the browser reached us over TLS (directly, or through a trusted proxy). */
export function isSecureRequest(config: Config, headers: { get(name: string): string | null }): boolean {
  if (config.trustProxy) {
    const proto = headers.get('x-forwarded-proto');
    if (proto) return proto.split(',')[0].trim() === 'https';
  }
  return config.publicUrl.startsWith('https:');
}

export interface CookieOptions {
  httpOnly: true;
  sameSite: 'lax';
  secure: boolean;
  path: string;
  maxAge: number;
}

export function sessionCookieOptions(config: Config, secure: boolean): CookieOptions {
  return { httpOnly: true, sameSite: 'lax', secure, path: '/', maxAge: config.sessionTtlSeconds };
}
