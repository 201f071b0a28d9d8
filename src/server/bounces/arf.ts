// What a feedback report (RFC 5965, the Abuse Reporting Format) says: the kind of feedback its
// machine-readable part names, what that kind asks of us, and which of our transactions the report
// is about, read from the tokens we put in every message (the VERP return path, the List-Unsubscribe
// mailto:) and its Message-ID. Pure: parse-dsn.ts finds the parts, complaints.service.ts records.
import { parseVerp } from '../delivery/verp.ts';
import { parseUnsubscribeAddress } from '../message/list-unsubscribe.ts';

/** The fields of a message/feedback-report part we use (RFC 5965 §3.1, §3.2). */
export interface FeedbackReport {
  /** Feedback-Type, lower-case without comments: abuse, fraud, not-spam… null when missing. */
  feedbackType: string | null;
  /** User-Agent: the software that made the report, e.g. 'Yahoo!-Mail-Feedback/2.0'. */
  userAgent: string | null;
  /** Original-Mail-From: the envelope sender of the message reported (our VERP address). */
  originalMailFrom: string | null;
  /** Original-Rcpt-To: its envelope recipient, when the provider does not redact it. */
  originalRcptTo: string | null;
  /**
   * Arrival-Date (Received-Date in the older ARF drafts that Yahoo and Microsoft still follow): when
   * the provider received the message reported, ISO 8601 UTC; null when missing or no RFC 5322 date.
   */
  arrivalDate: string | null;
}

/** What a report asks of us: record a complaint, unsubscribe the recipient, or nothing. */
export type FeedbackAction = 'complaint' | 'unsubscribe' | 'none';

/**
 * The registered types that report unwanted mail (RFC 5965 §7.3: abuse, fraud, virus, other). A
 * feedback loop sends a report when a recipient pressed "Report spam"; `other` is still such a press.
 */
const COMPLAINT_TYPES = new Set(['abuse', 'fraud', 'virus', 'other']);
/** A request to leave the list: not registered by RFC 5965, sent by some loops (the ARF drafts' opt-out). */
const UNSUBSCRIBE_TYPES = new Set(['unsubscribe', 'opt-out', 'opt-out-list']);

/** Longest header value kept from a report: the fields are a token or a product name. */
const MAX_FIELD_LENGTH = 200;

function clean(value: string | undefined): string | null {
  if (value === undefined) return null;
  // comments dropped (RFC 5322 §3.2.2); control characters too, which no field has and a jsonb value refuses (NUL)
  const text = value
    .replace(/\([^()]*\)/g, ' ')
    .replace(/[\p{Cc}\s]+/gu, ' ')
    .trim();
  return text === '' ? null : text.slice(0, MAX_FIELD_LENGTH);
}

/** An RFC 5322 §3.3 date-time, comments dropped: [day-name,] day month year hh:mm[:ss] zone. */
const DATE_TIME = new RegExp(
  [
    /^(?:[a-z]{3},\s*)?\d{1,2}\s+/.source,
    /(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/.source,
    /\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|ut|gmt|[a-z]{3})$/.source,
  ].join(''),
  'i',
);

/** A report's date field as ISO 8601 UTC; null unless it is an RFC 5322 date-time. */
function dateOf(value: string | undefined): string | null {
  const text = clean(value);
  if (text === null || !DATE_TIME.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/** The report's fields from the first field group of a message/feedback-report part (names lower-case). */
export function feedbackReportOf(fields: Record<string, string>): FeedbackReport {
  return {
    feedbackType: clean(fields['feedback-type'])?.toLowerCase() ?? null,
    userAgent: clean(fields['user-agent']),
    originalMailFrom: clean(fields['original-mail-from']),
    originalRcptTo: clean(fields['original-rcpt-to']),
    arrivalDate: dateOf(fields['arrival-date'] ?? fields['received-date']),
  };
}

/**
 * What a feedback type asks: `not-spam` (RFC 6430) says the message was wanted, `auth-failure`
 * (RFC 6591) reports our signature, not the recipient's wish; an unknown or missing type changes nothing.
 */
export function feedbackActionOf(feedbackType: string | null): FeedbackAction {
  if (feedbackType === null) return 'none';
  if (COMPLAINT_TYPES.has(feedbackType)) return 'complaint';
  if (UNSUBSCRIBE_TYPES.has(feedbackType)) return 'unsubscribe';
  return 'none';
}

/** What the receiver checks a reported address against: our secret and the return-path domain. */
export interface ReturnPathKeys {
  secret: string;
  returnPathDomain: string;
}

/** '<bounces+…@rp.example>' or 'rfc822; bounces+…@rp.example' → the transaction its VERP token names. */
function verpTransaction(keys: ReturnPathKeys, value: string | null | undefined): string | null {
  const address = value
    ?.replace(/^[^;<]*;/, '')
    .trim()
    .replace(/^<(.*)>$/, '$1');
  const at = address?.lastIndexOf('@') ?? -1;
  if (!address || at <= 0 || address.slice(at + 1).toLowerCase() !== keys.returnPathDomain.toLowerCase()) return null;
  return parseVerp(keys.secret, address.slice(0, at));
}

/** The transactions the mailto: addresses of a List-Unsubscribe header name (RFC 2369 §2: <URL>, …). */
function unsubscribeTransactions(keys: ReturnPathKeys, value: string | undefined): string[] {
  const found: string[] = [];
  for (const m of (value ?? '').matchAll(/<\s*mailto:([^>?\s]+)/gi)) {
    const uuid = parseUnsubscribeAddress(keys.secret, keys.returnPathDomain, decodeURIComponentSafe(m[1]));
    if (uuid) found.push(uuid);
  }
  return found;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const UUID_MESSAGE_ID = /^<([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^<>\s]+>$/i;

/**
 * The transactions a report may be about, most certain first, without repeats: the VERP token of
 * Original-Mail-From and of the original's Return-Path, then the unsubscribe token of its
 * List-Unsubscribe (both carry our HMAC), then the uuid of a Message-ID we made (`<uuid@domain>`,
 * sending.service.ts), which the receiver accepts only when the transaction's Message-ID is that one.
 */
export function reportedTransactions(
  keys: ReturnPathKeys,
  report: FeedbackReport,
  original: Record<string, string> | null,
  originalMessageId: string | null,
): string[] {
  const uuids = [
    verpTransaction(keys, report.originalMailFrom),
    verpTransaction(keys, original?.['return-path']),
    ...unsubscribeTransactions(keys, original?.['list-unsubscribe']),
    UUID_MESSAGE_ID.exec(originalMessageId ?? '')?.[1].toLowerCase() ?? null,
  ];
  return [...new Set(uuids.filter((uuid) => uuid !== null))];
}
