// Reads a message received at the return path into the fields dsn.ts classifies: the
// delivery-status part of a multipart/report (RFC 3462/3464), the human-readable text, and the
// Message-ID of the message it reports on, so a bounce about some other message can be told apart;
// and, for a feedback report (RFC 5965), its feedback-report part and the original's headers (arf.ts).
import type { SimpleParserOptions } from 'mailparser';
import { type FeedbackReport, feedbackReportOf } from './arf.ts';
import type { BounceFields, DsnRecipient } from './dsn.ts';

export interface ParsedBounce extends BounceFields {
  /** The per-message fields of the DSN (Reporting-MTA, Arrival-Date, …), names lower-case. */
  perMessage: Record<string, string>;
  /** The Message-ID of the message the bounce is about, when it can be found. */
  originalMessageId: string | null;
  /** The feedback-report part when the message is a feedback report (RFC 5965 §2), else null. */
  feedback: FeedbackReport | null;
  /** The header fields of the returned or reported message (names lower-case), when it came with it. */
  original: Record<string, string> | null;
}

/** RFC 3464 §2.1; the internationalized variants of RFC 6533 have the same syntax. */
const DELIVERY_STATUS = new Set(['message/delivery-status', 'message/global-delivery-status']);
/** RFC 5965 §3: the machine-readable part of a feedback report. */
const FEEDBACK_REPORT = 'message/feedback-report';
/** The returned message (RFC 3462 §2, RFC 5965 §2 (d): whole, or its headers only). */
const RETURNED = new Set(['message/rfc822', 'text/rfc822-headers', 'message/global', 'message/global-headers']);

/**
 * Splits header-style text into groups of fields separated by blank lines (the syntax of a
 * delivery-status body, RFC 3464 §2.1). Folded lines are unfolded (RFC 5322 §2.2.3); field names
 * are lower-cased; the first occurrence of a name in a group wins.
 */
export function fieldGroups(text: string): Record<string, string>[] {
  const groups: Record<string, string>[] = [];
  let group: Record<string, string> | null = null;
  let last: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') {
      if (group) groups.push(group);
      group = null;
      last = null;
      continue;
    }
    if (/^[ \t]/.test(line)) {
      if (group && last !== null) group[last] += line;
      continue;
    }
    const m = /^([!-9;-~]+)[ \t]*:[ \t]*(.*)$/.exec(line);
    if (!m) {
      last = null;
      continue;
    }
    group ??= {};
    const name = m[1].toLowerCase();
    if (name in group) {
      last = null; // a repeated field's continuation lines belong to the copy we ignore
      continue;
    }
    group[name] = m[2];
    last = name;
  }
  if (group) groups.push(group);
  return groups.map((g) => Object.fromEntries(Object.entries(g).map(([k, v]) => [k, v.trim()])));
}

/** "rfc822; Ann@Example.com" → "Ann@Example.com" (RFC 3464 §2.3.1: address-type ; address). */
function addressOf(value: string | undefined): string | null {
  if (!value) return null;
  const address = (value.includes(';') ? value.slice(value.indexOf(';') + 1) : value).trim().replace(/^<(.*)>$/, '$1');
  return address || null;
}

const RECIPIENT_FIELDS = ['final-recipient', 'original-recipient', 'action', 'status', 'diagnostic-code'];

/** The per-message fields and per-recipient blocks of a delivery-status body. */
export function parseDeliveryStatus(text: string): { perMessage: Record<string, string>; recipients: DsnRecipient[] } {
  const groups = fieldGroups(text);
  const perMessage: Record<string, string> = {};
  const recipients: DsnRecipient[] = [];
  groups.forEach((g, i) => {
    if (RECIPIENT_FIELDS.some((f) => f in g)) {
      recipients.push({
        finalRecipient: addressOf(g['final-recipient']),
        originalRecipient: addressOf(g['original-recipient']),
        action: g.action ? g.action.toLowerCase().replace(/\s*\(.*$/, '') : null,
        status: g.status ?? null,
        diagnosticCode: g['diagnostic-code'] ?? null,
      });
    } else if (i === 0) {
      Object.assign(perMessage, g);
    }
  });
  return { perMessage, recipients };
}

function messageIdIn(value: string | undefined): string | null {
  const m = value ? /<[^<>\s]+>/.exec(value) : null;
  return m ? m[0] : null;
}

const PARSER_OPTIONS: SimpleParserOptions & { ignoreEmbedded: boolean } = {
  keepDeliveryStatus: true,
  skipImageLinks: true,
  skipTextLinks: true,
  skipTextToHtml: true,
  // mailsplit's option, which mailparser passes on: an attached message stays one part even when
  // marked inline (as feedback loops send the original), so its headers can be read
  ignoreEmbedded: true,
};

/** Whether the top-level Content-Type is multipart/report; report-type=feedback-report (RFC 5965 §2 (a)). */
function saysFeedbackReport(contentType: unknown): boolean {
  const value = contentType as { value?: unknown; params?: Record<string, unknown> } | undefined;
  return (
    value?.value === 'multipart/report' &&
    String(value.params?.['report-type'] ?? '').toLowerCase() === 'feedback-report'
  );
}

/** Parses a received message; never throws on odd content (missing parts just stay empty). */
export async function parseBounce(raw: Buffer | string): Promise<ParsedBounce> {
  // loaded on the first report: a process that receives none never reads mailparser
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(raw, PARSER_OPTIONS);
  let perMessage: Record<string, string> = {};
  let recipients: DsnRecipient[] = [];
  let isReport = false;
  let feedback: FeedbackReport | null = null;
  let original: Record<string, string> | null = null;
  for (const part of mail.attachments) {
    const type = part.contentType.toLowerCase();
    if (DELIVERY_STATUS.has(type) && !isReport) {
      isReport = true;
      ({ perMessage, recipients } = parseDeliveryStatus(part.content.toString('utf8')));
    } else if (type === FEEDBACK_REPORT && feedback === null) {
      feedback = feedbackReportOf(fieldGroups(part.content.toString('utf8'))[0] ?? {});
    } else if (RETURNED.has(type) && original === null) {
      original = fieldGroups(part.content.toString('utf8'))[0] ?? {};
    }
  }
  // RFC 5965 §2 (a): the report type says so even when the feedback-report part is missing or unreadable
  if (feedback === null && saysFeedbackReport(mail.headers.get('content-type'))) feedback = feedbackReportOf({});
  const text = mail.text ?? '';
  let originalMessageId = messageIdIn(original?.['message-id']);
  // Gmail names the original in the per-message fields; a non-standard bounce (qmail) quotes the
  // original's headers in its text
  originalMessageId ??= messageIdIn(perMessage['x-original-message-id']);
  if (!isReport && feedback === null) originalMessageId ??= messageIdIn(/^message-id:[ \t]*(.*)$/im.exec(text)?.[1]);
  return { isReport, perMessage, recipients, text, originalMessageId, feedback, original };
}
