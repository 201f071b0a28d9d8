// What an SMTP answer means for a message (docs/architecture.md §5 "Transaction status"). RFC 5321
// §4.2.1: 2yz is success, 4yz a transient failure worth retrying, 5yz a permanent one — except 503
// (bad sequence of commands), which says our client misbehaved, not that the recipient is bad, so
// it is retried. Connection-level errors are transient; a recipient domain that does not exist
// (RFC 5321 §5.1: no MX and no address record) is permanent.

export type ReplyClass = 'delivered' | 'permanent' | 'temporary';

export interface Classified {
  kind: ReplyClass;
  /** Seconds the server asked us to wait ("try again in N seconds"), if it said so. */
  retryAfterSeconds?: number;
}

const RETRY_HINT =
  /(?:try|retry)(?:\s+again)?\s+(?:in|after)\s+(\d+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)\b/i;

/** The delay a server asked for in its reply text, in seconds. */
export function retryHintSeconds(text: string): number | undefined {
  const m = RETRY_HINT.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  const unit = m[2].toLowerCase();
  if (unit.startsWith('h')) return n * 3600;
  if (unit.startsWith('m')) return n * 60;
  return n;
}

/** Classifies an SMTP response code (with its text) from the remote server. */
export function classifyReply(code: number | undefined, text = ''): Classified {
  const retryAfterSeconds = retryHintSeconds(text);
  const hint = retryAfterSeconds === undefined ? {} : { retryAfterSeconds };
  if (code === undefined || !Number.isFinite(code)) return { kind: 'temporary', ...hint };
  if (code >= 200 && code < 300) return { kind: 'delivered' };
  if (code === 503) return { kind: 'temporary', ...hint };
  if (code >= 500 && code < 600) return { kind: 'permanent' };
  return { kind: 'temporary', ...hint };
}

/** Node/nodemailer error codes that mean the recipient's domain cannot receive mail at all. */
const PERMANENT_NETWORK_CODES = new Set(['ENOTFOUND', 'ENODOMAIN', 'EDNSNXDOMAIN']);

/** Classifies a failure that happened before or without an SMTP reply (DNS, connection, TLS). */
export function classifyNetworkError(code: string | undefined): ReplyClass {
  return code && PERMANENT_NETWORK_CODES.has(code) ? 'permanent' : 'temporary';
}

/** Backoff after the Nth failed attempt (1-based): about 1, 5, 15, 30 minutes, then hourly. */
const SCHEDULE_SECONDS = [60, 300, 900, 1800];

/**
 * When to try again after `attempts` failed attempts, or null when the message has been retried
 * for longer than `maxHours` since it was queued and must fail (soft bounce).
 */
export function nextAttemptAt(opts: {
  attempts: number;
  queuedAt: Date;
  now: Date;
  maxHours: number;
  retryAfterSeconds?: number;
}): Date | null {
  const base = SCHEDULE_SECONDS[opts.attempts - 1] ?? 3600;
  const delay = Math.max(base, opts.retryAfterSeconds ?? 0);
  const next = new Date(opts.now.getTime() + delay * 1000);
  const deadline = opts.queuedAt.getTime() + opts.maxHours * 3600_000;
  return next.getTime() > deadline ? null : next;
}
