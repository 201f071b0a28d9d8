// The one error type of the domains (docs/architecture.md §3): a code from the closed set of
// src/contract/error-codes.ts, a message a person can read and optional details. It knows no
// protocol: the API turns it into an HTTP status and body (src/server/http/errors.ts), the SMTP
// server into a reply code (src/server/smtp/submission.ts), the admin CLI into an exit status.
import type { ErrorCode } from '../../contract/error-codes.ts';
import { isDatabaseUnavailable, isStorageFull } from '../db/availability.ts';

export type { ErrorCode };

/** An expected failure of a call: the caller's request refused, or a fault the service names. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  /** Seconds after which the same call may succeed (a sign-in limit, a fault that passes). */
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, opts: { details?: unknown; retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** Codes that say the service could not do the call, rather than that the request was refused. */
const FAULT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'internal',
  'unavailable',
  'database_unavailable',
  'storage_full',
]);

/** True for a DomainError that refuses the request (its caller can change it); false for a fault or anything else. */
export function isRefusal(err: unknown): err is DomainError {
  return err instanceof DomainError && !FAULT_CODES.has(err.code);
}

/**
 * The error a fault becomes: the database unreachable → database_unavailable, a full
 * disk (ENOSPC, PostgreSQL's disk_full) → storage_full; null for anything else.
 */
export function faultError(err: unknown): DomainError | null {
  if (isDatabaseUnavailable(err)) {
    const message = 'The database is unavailable for a moment; nothing was changed. Try again shortly.';
    return new DomainError('database_unavailable', message, { retryAfterSeconds: 5 });
  }
  if (isStorageFull(err)) {
    const message = 'The server is out of storage space; nothing was stored. Try again later.';
    return new DomainError('storage_full', message, { retryAfterSeconds: 60 });
  }
  return null;
}
