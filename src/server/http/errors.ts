// One error type for the whole API, serialized once (in app.ts) as { error: { code, message } }.
// Services throw these for expected failures; anything else is logged and becomes a plain 500.
import { ERROR_STATUS, type ErrorCode } from '../../contract/error-codes.ts';
import { isDatabaseUnavailable, isStorageFull } from '../db/availability.ts';

export type { ErrorCode };

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;
  /** Calls whose spec answer is a messages list (POST v1/domains) carry it beside `error`. */
  readonly messages?: string[];

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: unknown; headers?: Record<string, string>; messages?: string[] } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = opts.details;
    this.headers = opts.headers;
    this.messages = opts.messages;
  }

  get status(): (typeof ERROR_STATUS)[ErrorCode] {
    return ERROR_STATUS[this.code];
  }

  toBody(): { error: { code: ErrorCode; message: string; details?: unknown }; messages?: string[] } {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details === undefined ? {} : { details: this.details }),
      },
      ...(this.messages ? { messages: this.messages } : {}),
    };
  }
}

/**
 * The API error a fault becomes (issue 23): the database unreachable → 503 database_unavailable,
 * a full disk (ENOSPC, PostgreSQL's disk_full) → 507 storage_full; null for anything else.
 */
export function faultError(err: unknown): ApiError | null {
  if (isDatabaseUnavailable(err)) {
    return new ApiError(
      'database_unavailable',
      'The database is unavailable for a moment; nothing was changed. Try again shortly.',
      { headers: { 'Retry-After': '5' } },
    );
  }
  if (isStorageFull(err)) {
    return new ApiError('storage_full', 'The server is out of storage space; nothing was stored. Try again later.', {
      headers: { 'Retry-After': '60' },
    });
  }
  return null;
}
