// What an SMTP answer during delivery comes to for the message (docs/architecture.md §5.2): the
// verdict is remote-answer.ts's, the same a DSN quoting that answer gets later; here it becomes a
// retry with the server's own delay, or an end (a bounce, hard only when the address is bad).
// Failures without a reply (DNS, connection, TLS) are retried, except a recipient domain that
// does not exist (RFC 5321 §5.1: no MX and no address record).
import type { AnswerCategory } from '../../contract/values.ts';
import { ADDRESS_GONE, type AnswerVerdict, TRY_LATER, classifyAnswer, enhancedCodeIn } from './remote-answer.ts';

/** A delivery attempt the remote did not take, or that reached no server. */
export type Refusal =
  /** Not retried: a bounce, hard when `address` is bad (the recipient is then suppressed). */
  | { kind: 'permanent'; reply: string; address: 'bad' | 'ok'; category: AnswerCategory }
  /** Retried with backoff; `category` is absent when no server was asked (our own trouble). */
  | { kind: 'temporary'; reply: string; category?: AnswerCategory; retryAfterSeconds?: number };

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

/**
 * The verdict on a remote server's reply to our delivery (code and text, as nodemailer reports it),
 * through the one classifier DSNs also go through. A reply that is no refusal (2yz on a failed
 * command) says nothing the message can be held to: it is tried again.
 */
export function classifyReply(code: number | undefined, text = ''): AnswerVerdict {
  return classifyAnswer({ code, status: enhancedCodeIn(text), text });
}

/** Node/nodemailer error codes that mean the recipient's domain cannot receive mail at all. */
const PERMANENT_NETWORK_CODES = new Set(['ENOTFOUND', 'ENODOMAIN', 'EDNSNXDOMAIN']);

/** The verdict on a failure that happened before or without an SMTP reply (DNS, connection, TLS). */
export function classifyNetworkError(code: string | undefined): AnswerVerdict {
  return code && PERMANENT_NETWORK_CODES.has(code) ? ADDRESS_GONE : TRY_LATER;
}

/** What a verdict does to this attempt: retried (with the delay the reply asked for) or ended. */
export function refusalOf(verdict: AnswerVerdict, reply: string): Refusal {
  if (!verdict.retry) return { kind: 'permanent', reply, address: verdict.address, category: verdict.category };
  const retryAfterSeconds = retryHintSeconds(reply);
  return {
    kind: 'temporary',
    reply,
    category: verdict.category,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  };
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
