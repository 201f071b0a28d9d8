// The hand-written bounces in tests/fixtures/dsn, with their placeholders filled in: {{VERP}} (the
// envelope recipient, our return path), {{RECIPIENT}} and {{MESSAGE_ID}} (of the bounced message).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '../fixtures/dsn');

export interface FixtureValues {
  verp: string;
  recipient: string;
  messageId: string;
}

/** The fixture as CRLF text, the line ending SMTP carries (RFC 5321 §2.3.8). */
export function dsnFixture(name: string, values: FixtureValues): string {
  return readFileSync(path.join(dir, name), 'utf8')
    .replaceAll('{{VERP}}', values.verp)
    .replaceAll('{{RECIPIENT}}', values.recipient)
    .replaceAll('{{MESSAGE_ID}}', values.messageId)
    .replace(/\r?\n/g, '\r\n');
}

/**
 * A DSN (RFC 3464) as a Postfix-like MTA writes it after a remote's `reply` refused the recipient
 * for good: Action failed; Status the enhanced code right after the reply code, or the reply's
 * class with .0.0 when it has none (RFC 3463 §3.1); the reply, line by line, folded into
 * Diagnostic-Code (RFC 3464 §2.3.6). CRLF text, as SMTP carries it.
 */
export function dsnOfReply(reply: string, values: FixtureValues): string {
  const replyClass = /^([245])\d\d/.exec(reply)?.[1] ?? '5';
  const status = /^\d{3}[ -]#?([245]\.\d{1,3}\.\d{1,3})(?:\s|$)/.exec(reply)?.[1] ?? `${replyClass}.0.0`;
  const boundary = 'report-boundary-1736849523';
  return [
    'From: MAILER-DAEMON@mx1.relay.example (Mail Delivery System)',
    `To: ${values.verp}`,
    'Subject: Undelivered Mail Returned to Sender',
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    'This is the mail system at host mx1.relay.example. Your message could not be delivered.',
    '',
    `--${boundary}`,
    'Content-Type: message/delivery-status',
    '',
    'Reporting-MTA: dns; mx1.relay.example',
    '',
    `Final-Recipient: rfc822; ${values.recipient}`,
    'Action: failed',
    `Status: ${status}`,
    `Diagnostic-Code: smtp; ${reply.split('\n').join('\r\n    ')}`,
    '',
    `--${boundary}`,
    'Content-Type: text/rfc822-headers',
    '',
    `Message-ID: ${values.messageId}`,
    'From: Shop <orders@shop.example>',
    `To: ${values.recipient}`,
    'Subject: Your order',
    '',
    `--${boundary}--`,
    '',
  ].join('\r\n');
}
