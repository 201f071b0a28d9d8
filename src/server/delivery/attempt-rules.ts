// Whether one host's answer ends a delivery attempt (RFC 5321 §5.1 and §4.2.1), as Postfix and
// other MTAs read it: a host that cannot be reached, greets or answers EHLO with anything but 2xx,
// or says 421 at any stage is skipped for the next address or host in the same attempt; an answer
// to MAIL, RCPT or DATA ends the attempt, and what it means for the message (retried, or a bounce)
// is remote-answer.ts's question. Pure: the table in tests/unit/mx-delivery-rules.test.ts is the
// specification.

export type HostVerdict = 'next-host' | 'ends-attempt';

/** The shape of a nodemailer SMTPConnection error (code, the command it failed at, the reply). */
export interface SmtpFailure {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
}

const SESSION_COMMANDS = new Set(['CONN', 'EHLO', 'HELO', 'LHLO', 'STARTTLS', 'GREETING']);

export function verdictOf(f: SmtpFailure): HostVerdict {
  const code = f.responseCode;
  // the server is closing the channel (RFC 5321 §3.8): another host may take the message now
  if (code === 421) return 'next-host';
  const command = (f.command ?? 'CONN').toUpperCase();
  // no reply at all (refused, timed out, reset, TLS handshake failed) or a session that never got
  // ready: this host cannot take mail now, another may
  if (code === undefined || !Number.isFinite(code)) return 'next-host';
  // a session command that failed although answered 2xx ends the attempt (then retried later)
  if (SESSION_COMMANDS.has(command) || command === 'API')
    return code >= 200 && code < 300 ? 'ends-attempt' : 'next-host';
  return 'ends-attempt';
}

const ENHANCED = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
const SLOW_WORDS = /rate|too many|slow|throttl|limit|unusual|try again later|temporarily deferred/i;

/**
 * A reply that tells us to slow down for the whole destination, not just this message: 421, or a
 * 4.7.x enhanced status (RFC 3463, e.g. Gmail's 4.7.28) whose text speaks of rates or limits.
 */
export function isSlowDown(code: number | undefined, text: string): boolean {
  if (code === 421) return true;
  if (code === undefined || code < 400 || code >= 500) return false;
  const m = ENHANCED.exec(text);
  return m !== null && m[1] === '4' && m[2] === '7' && SLOW_WORDS.test(text);
}
