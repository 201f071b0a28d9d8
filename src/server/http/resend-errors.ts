// Refusals in Resend's shape, `{ statusCode, name, message }` (the names of contract/error-codes.ts),
// for the Resend-compatible surface: the official SDK hands its callers that body as `error`.
import type { Context, Env, MiddlewareHandler } from 'hono';
import { type ErrorCode, RESEND_ERROR_NAME } from '../../contract/error-codes.ts';
import type { DomainError } from '../core/errors.ts';
import { reshapeErrors } from './middleware.ts';

/** The Resend-compatible surface's paths: every answer under them is Resend's shape. */
export function isResendPath(path: string): boolean {
  return path.startsWith('/resend/');
}

/**
 * Resend's fields for a refusal: its status, Resend's name for our code (`missing_api_key` for an
 * unauthorized call that sent no key at all), and our message.
 */
export function resendErrorBody(err: Pick<DomainError, 'code' | 'message'>, status: number, keySent: boolean) {
  const name = err.code === 'unauthorized' && !keySent ? 'missing_api_key' : RESEND_ERROR_NAME[err.code];
  return { statusCode: status, name, message: err.message };
}

/** resendErrorBody for a request Hono serves. */
export function resendError(err: Pick<DomainError, 'code' | 'message'>, status: number, c: Context) {
  return resendErrorBody(err, status, c.req.header('authorization') !== undefined);
}

/**
 * Every refusal of the routes behind it in Resend's shape alone: a thrown error, and the 404 and
 * 405 answers of paths no route serves (written in our envelope by the API's not-found handler).
 */
export function resendErrors<E extends Env>(): MiddlewareHandler<E> {
  const thrown = reshapeErrors<E>((err, { status }, c) => resendError(err, status, c));
  return async (c, next) => {
    await thrown(c, next);
    if (c.res.status < 400 || !c.res.headers.get('content-type')?.includes('application/json')) return;
    const body = (await c.res.clone().json()) as { error?: { code?: ErrorCode; message?: string } };
    if (!body.error?.code || !(body.error.code in RESEND_ERROR_NAME)) return;
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    const reshaped = resendError({ code: body.error.code, message: body.error.message ?? '' }, c.res.status, c);
    const status = c.res.status;
    c.res = undefined;
    c.res = new Response(JSON.stringify(reshaped), { status, headers });
  };
}
