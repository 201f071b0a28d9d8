// Who an API key belongs to, read from the Authorization header the same way for every call that
// takes one: `Bearer <apiKey>`, or Basic `base64(username:apiKey)` (the SMTP username and the key).
import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../core/context.ts';
import { customerForApiKey } from '../credentials/credentials.service.ts';
import { DomainError } from '../core/errors.ts';
import { HttpRefusal } from './errors.ts';
import { type ApiEnv, csrfGuard } from './middleware.ts';

/** The customer of the key in `header`, or null (none, malformed, unknown or revoked). */
export async function customerOfAuthorization(ctx: AppContext, header: string): Promise<number | null> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return customerForApiKey(ctx, bearer[1]);
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? customerForApiKey(ctx, decoded.slice(colon + 1), decoded.slice(0, colon)) : null;
}

/** The refusal for a missing or wrong key, with the challenge header RFC 9110 §11.6.1 asks for. */
export function apiKeyRefusal(header: string): HttpRefusal {
  return new HttpRefusal(
    'unauthorized',
    header ? 'The API key is not valid' : 'An API key is required (Authorization: Bearer <apiKey>)',
    {
      headers: { 'WWW-Authenticate': 'Bearer realm="transact"' },
    },
  );
}

export type KeyOrSessionEnv = ApiEnv & { Variables: { customerId: number } };
export type ApiKeyEnv = KeyOrSessionEnv;

/** Calls made with the API key only (Bearer, or Basic username:apiKey): the customer lands in c.var.customerId. */
export function apiKeyAuth(ctx: AppContext): MiddlewareHandler<ApiKeyEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const customerId = await customerOfAuthorization(ctx, header);
    if (customerId === null) throw apiKeyRefusal(header);
    c.set('customerId', customerId);
    await next();
  };
}

/**
 * Calls an application may make with its API key as well as the console with its session: an
 * Authorization header decides (a wrong key is 401 even with a session, so a mistake shows); without
 * one the session is needed, with the console's CSRF rule. The customer lands in c.var.customerId.
 */
export function sessionOrApiKey(ctx: AppContext): MiddlewareHandler<KeyOrSessionEnv> {
  const csrf = csrfGuard<KeyOrSessionEnv>(ctx);
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header !== undefined) {
      const customerId = await customerOfAuthorization(ctx, header);
      if (customerId === null) throw apiKeyRefusal(header);
      c.set('customerId', customerId);
      return next();
    }
    const session = c.get('session');
    if (!session) throw new DomainError('unauthorized', 'Sign in to continue');
    c.set('customerId', session.customerId);
    return csrf(c, next);
  };
}
