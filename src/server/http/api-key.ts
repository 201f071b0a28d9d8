// Who an API key belongs to, read from the Authorization header the same way for every call that
// takes one: `Bearer <apiKey>`, or Basic `base64(username:apiKey)` (the SMTP username and the key;
// any username with a named key). A sending_access key (docs/architecture.md §7 "API keys") may make
// only the send calls, which mount apiKeyAuth with `sends`; every other call refuses it (403).
import type { MiddlewareHandler } from 'hono';
import type { AppContext } from '../core/context.ts';
import { type KeyGrant, grantForApiKey, requireFullAccess } from '../credentials/api-keys.service.ts';
import { DomainError } from '../core/errors.ts';
import { HttpRefusal } from './errors.ts';
import { type ApiEnv, csrfGuard } from './middleware.ts';

/** The grant of the key in `header`, or null (none, malformed, unknown, revoked or deleted). */
async function grantOfAuthorization(ctx: AppContext, header: string): Promise<KeyGrant | null> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return grantForApiKey(ctx, bearer[1]);
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? grantForApiKey(ctx, decoded.slice(colon + 1), decoded.slice(0, colon)) : null;
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
export type ApiKeyEnv = ApiEnv & { Variables: { customerId: number; keyGrant: KeyGrant } };

/**
 * Calls made with an API key only (Bearer, or Basic username:apiKey): the customer lands in
 * c.var.customerId, what the key allows in c.var.keyGrant. Only a call that `sends` takes a
 * sending_access key (its From domain is checked by the call).
 */
export function apiKeyAuth(ctx: AppContext, opts: { sends?: boolean } = {}): MiddlewareHandler<ApiKeyEnv> {
  return async (c, next) => {
    const header = c.req.header('authorization') ?? '';
    const grant = await grantOfAuthorization(ctx, header);
    if (grant === null) throw apiKeyRefusal(header);
    if (!opts.sends) requireFullAccess(grant);
    c.set('customerId', grant.customerId);
    c.set('keyGrant', grant);
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
      const grant = await grantOfAuthorization(ctx, header);
      if (grant === null) throw apiKeyRefusal(header);
      requireFullAccess(grant);
      c.set('customerId', grant.customerId);
      return next();
    }
    const session = c.get('session');
    if (!session) throw new DomainError('unauthorized', 'Sign in to continue');
    c.set('customerId', session.customerId);
    return csrf(c, next);
  };
}
