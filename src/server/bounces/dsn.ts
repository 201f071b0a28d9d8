// Decides what a message received at the VERP return path means: a hard bounce (the address is
// gone: suppress it), a soft bounce (this message failed, the address may work), or not a bounce
// at all (a delay warning, a success notice, an auto-reply). Pure. The DSN's own concerns (RFC
// 3464: which recipient block, what its Action says) are here; the verdict on the remote's answer
// is delivery/remote-answer.ts's, the same a reply during delivery gets.
import {
  ADDRESS_GONE,
  type AnswerVerdict,
  answerText,
  classifyAnswer,
  enhancedCodeIn,
  noSuchAddressIn,
  replyCodeIn,
  saysNoSuchAddress,
} from '../delivery/remote-answer.ts';

export type BounceKind = 'hard' | 'soft' | 'not_a_bounce';

/** One per-recipient block of a message/delivery-status part (RFC 3464 §2.3), values unfolded. */
export interface DsnRecipient {
  /** The address of Final-Recipient, without its address type ("rfc822;"). */
  finalRecipient: string | null;
  originalRecipient: string | null;
  /** Action, lower-case: failed, delayed, delivered, relayed or expanded (RFC 3464 §2.3.3). */
  action: string | null;
  /** The Status field as received, e.g. "5.1.1" or "5.1.1 (bad destination mailbox)". */
  status: string | null;
  /** Diagnostic-Code as received, with its type: "smtp; 550 5.1.1 User unknown". */
  diagnosticCode: string | null;
}

/** What the classifier needs from a received message (see parse-dsn.ts). */
export interface BounceFields {
  /** True when the message carried a delivery-status part (RFC 3464): a machine-readable DSN. */
  isReport: boolean;
  recipients: DsnRecipient[];
  /** The human-readable text of the message. */
  text: string;
}

/**
 * What a received message came to. A bounce carries the verdict on the remote's answer
 * (delivery/remote-answer.ts, the one a reply during delivery also gets): hard when the address is bad.
 */
export type BounceClassification =
  | { kind: Exclude<BounceKind, 'not_a_bounce'>; status: string | null; reason: string; verdict: AnswerVerdict }
  | { kind: 'not_a_bounce'; status: string | null; reason: string };

/** bounce_reason is shown in the console; a diagnostic is a line or two, anything longer is noise. */
export const MAX_REASON_LENGTH = 500;

/** The line(s) of `text` that say the address does not exist, or null. */
function noSuchAddressLine(text: string): string | null {
  const m = noSuchAddressIn(text);
  if (!m) return null;
  const end = text.indexOf('\n', m.index + m[0].length);
  return text.slice(text.lastIndexOf('\n', m.index) + 1, end < 0 ? undefined : end);
}

/** The enhanced status code (RFC 3463 §2: class.subject.detail) at the start of a Status field. */
function codeOfStatus(status: string | null): string | null {
  const m = status ? /^\s*([245]\.\d{1,3}\.\d{1,3})\b/.exec(status) : null;
  return m ? m[1] : null;
}

/** A code anywhere in a line of text ("550 5.1.1 …", "(#5.1.1)"), or the reply code as X.0.0. */
function codeInText(text: string): string | null {
  const enhanced = /(?:^|[\s;(#])(?:[245]\d\d[ -])?([245]\.\d{1,3}\.\d{1,3})(?=[\s).,;:]|$)/.exec(text);
  if (enhanced) return enhanced[1];
  const basic = /(?:^|;\s*)([245])\d\d(?:[ -]|$)/.exec(text.trim());
  return basic ? `${basic[1]}.0.0` : null;
}

/** The remote's words on one line, as remote-answer.ts reads them, cut to MAX_REASON_LENGTH. */
export function cleanDiagnostic(diagnostic: string): string {
  return truncate(answerText(diagnostic));
}

function truncate(text: string): string {
  return text.length <= MAX_REASON_LENGTH ? text : `${text.slice(0, MAX_REASON_LENGTH - 1)}…`;
}

/**
 * The recipient block a DSN says about `address` (Final- or Original-Recipient), else the first
 * failed one, else the first: forwarding can rewrite Final-Recipient, and the VERP token already
 * names the transaction.
 */
export function pickRecipient(recipients: DsnRecipient[], address?: string): DsnRecipient | undefined {
  const wanted = address?.toLowerCase();
  return (
    (wanted
      ? recipients.find(
          (r) => r.finalRecipient?.toLowerCase() === wanted || r.originalRecipient?.toLowerCase() === wanted,
        )
      : undefined) ??
    recipients.find((r) => r.action === 'failed') ??
    recipients[0]
  );
}

/** Classifies one recipient block of a DSN. */
export function classifyRecipient(r: DsnRecipient): BounceClassification {
  const diagnostic = r.diagnosticCode ? cleanDiagnostic(r.diagnosticCode) : '';
  // the SMTP reply the Diagnostic-Code quotes (RFC 3464 §2.3.6), when it is one
  const code = replyCodeIn(diagnostic);
  const fromStatus = codeOfStatus(r.status);
  const fromDiagnostic = enhancedCodeIn(diagnostic) ?? (code === null ? null : `${String(code)[0]}.0.0`);
  // X.0.0 is "other or undefined" (RFC 3463 §3.1): a more specific code of the same class in the
  // diagnostic says more
  const status =
    fromStatus?.endsWith('.0.0') && fromDiagnostic?.[0] === fromStatus[0]
      ? fromDiagnostic
      : (fromStatus ?? fromDiagnostic);
  const reason = diagnostic || (status ? `Status ${status}` : 'no status given');
  const action = r.action?.toLowerCase() ?? null;

  // RFC 3464 §2.3.3: only "failed" reports a message that will not arrive; "delayed" is a warning
  // that the MTA is still trying, "delivered", "relayed" and "expanded" report success or a
  // handover. A block without Action is judged by its status.
  if (action !== null && action !== 'failed') return { kind: 'not_a_bounce', status, reason: `Action: ${action}` };
  if (status === null) {
    return saysNoSuchAddress(diagnostic)
      ? { kind: 'hard', status, reason, verdict: ADDRESS_GONE }
      : { kind: 'not_a_bounce', status, reason: 'no status code in the delivery report' };
  }
  // class 2 is success (RFC 3463 §3.1)
  if (status.startsWith('2.')) return { kind: 'not_a_bounce', status, reason };
  // The verdict a reply during delivery would get (remote-answer.ts); the Status field is the
  // reporting MTA's final word, so a reply code of another class is left out. A class 4 the
  // remote MTA gave up on is a soft bounce: the address may work later.
  const verdict = classifyAnswer({
    code: code !== null && String(code)[0] === status[0] ? code : null,
    status,
    text: r.diagnosticCode ?? '',
  });
  return { kind: verdict.address === 'bad' ? 'hard' : 'soft', status, reason, verdict };
}

/**
 * Classifies a received message. A DSN (RFC 3464) is judged by the recipient block about
 * `recipient`; a message without one (a non-standard bounce, an auto-reply) is a hard bounce only
 * when its text clearly says the address does not exist, and otherwise not a bounce.
 */
export function classifyBounce(fields: BounceFields, recipient?: string): BounceClassification {
  const block = fields.isReport ? pickRecipient(fields.recipients, recipient) : undefined;
  if (block) return classifyRecipient(block);
  const line = noSuchAddressLine(fields.text);
  if (line === null)
    return {
      kind: 'not_a_bounce',
      status: null,
      reason: 'no delivery status and no statement that the address does not exist',
    };
  const status = codeInText(line);
  return {
    kind: 'hard',
    status: status?.startsWith('5.') ? status : null,
    reason: truncate(line.replace(/\s+/g, ' ').trim()),
    verdict: ADDRESS_GONE,
  };
}
