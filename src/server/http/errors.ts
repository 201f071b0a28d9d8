// The API's answer to an error, made here and nowhere else (docs/architecture.md §3): a DomainError's
// code becomes its HTTP status (src/contract/error-codes.ts) and the body { error: { code, message,
// details? } }. The handlers that use it (http/middleware.ts, http/request-guard.ts) are the only callers.
import { ERROR_STATUS } from '../../contract/error-codes.ts';
import { DomainError, type ErrorCode } from '../core/errors.ts';

/**
 * A refusal with more to its HTTP answer than a DomainError carries: a header (Allow on a 405,
 * WWW-Authenticate on a 401) or fields beside `error` in the body (POST v1/domains' `messages`).
 */
export class HttpRefusal extends DomainError {
  readonly headers: Record<string, string>;
  readonly fields: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: unknown; headers?: Record<string, string>; fields?: Record<string, unknown> },
  ) {
    super(code, message, { details: opts.details });
    this.headers = opts.headers ?? {};
    this.fields = opts.fields ?? {};
  }
}

export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
  [field: string]: unknown;
}

/** What an error is answered with over HTTP. */
export interface ErrorAnswer {
  status: ErrorStatus;
  headers: Record<string, string>;
  body: ErrorBody;
}

/** The answer for an unexpected error, after it was logged. */
export const INTERNAL_ERROR = new DomainError('internal', 'Internal server error');

/** The HTTP status, headers and body of a DomainError. */
export function errorAnswer(err: DomainError): ErrorAnswer {
  const headers: Record<string, string> = err instanceof HttpRefusal ? { ...err.headers } : {};
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  const details = err.details === undefined ? {} : { details: err.details };
  const error = { code: err.code, message: err.message, ...details };
  const fields = err instanceof HttpRefusal ? err.fields : {};
  return { status: ERROR_STATUS[err.code], headers, body: { error, ...fields } };
}
