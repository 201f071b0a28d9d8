// Feedback-loop reports (RFC 5965) for tests: the hand-written ones in tests/fixtures/arf with their
// placeholders filled in, and a report wrapped around a message as it was delivered.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { verpAddress } from '../../src/server/delivery/verp.ts';
import { unsubscribeAddress } from '../../src/server/message/list-unsubscribe.ts';

const dir = path.resolve(import.meta.dirname, '../fixtures/arf');

export interface ArfValues {
  /** Where the report is mailed: the VERP address, or the feedback address (fbl@…). */
  reportTo: string;
  /** The transaction reported, its recipient and Message-ID. */
  uuid: string;
  recipient: string;
  messageId: string;
  secret: string;
  returnPath: string;
  publicUrl?: string;
  feedbackType?: string;
}

/** The fixture as CRLF text, the line ending SMTP carries (RFC 5321 §2.3.8). */
export function arfFixture(name: string, values: ArfValues): string {
  return readFileSync(path.join(dir, name), 'utf8')
    .replaceAll('{{REPORT_TO}}', values.reportTo)
    .replaceAll('{{VERP}}', verpAddress(values.secret, values.uuid, values.returnPath))
    .replaceAll('{{UNSUBSCRIBE}}', unsubscribeAddress(values.secret, values.uuid, values.returnPath))
    .replaceAll('{{UUID}}', values.uuid)
    .replaceAll('{{RECIPIENT}}', values.recipient)
    .replaceAll('{{MESSAGE_ID}}', values.messageId)
    .replaceAll('{{RETURN_PATH}}', values.returnPath)
    .replaceAll('{{PUBLIC_URL}}', values.publicUrl ?? 'https://transact.example')
    .replaceAll('{{FEEDBACK_TYPE}}', values.feedbackType ?? 'abuse')
    .replace(/\r?\n/g, '\r\n');
}

/**
 * A report as a feedback loop writes it about `original` (the message as the mailbox got it, CRLF
 * text): the whole message attached inline, or only its header block as text/rfc822-headers.
 */
export function arfAbout(
  original: string,
  opts: { reportTo: string; feedbackType?: string; headersOnly?: boolean; returnPath?: string },
): string {
  const boundary = 'arf-boundary-1736878960';
  const headerEnd = original.indexOf('\r\n\r\n');
  const attached = opts.headersOnly ? original.slice(0, headerEnd + 2) : original;
  return [
    'From: Feedback Loop <fbl@mailbox.example>',
    `To: ${opts.reportTo}`,
    'Subject: Abuse report',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=feedback-report; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'This is an email abuse report for a message a user of mailbox.example marked as spam.',
    '',
    `--${boundary}`,
    'Content-Type: message/feedback-report',
    '',
    `Feedback-Type: ${opts.feedbackType ?? 'abuse'}`,
    'User-Agent: MailboxFBL/1.4',
    'Version: 1',
    '',
    `--${boundary}`,
    opts.headersOnly ? 'Content-Type: text/rfc822-headers' : 'Content-Type: message/rfc822',
    'Content-Disposition: inline',
    '',
    // a mailbox records the envelope sender as Return-Path at final delivery (RFC 5321 §4.4)
    ...(opts.returnPath ? [`Return-Path: <${opts.returnPath}>`] : []),
    attached,
    `--${boundary}--`,
    '',
  ].join('\r\n');
}
