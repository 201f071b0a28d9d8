// Decides what a message received at the VERP return path means: a hard bounce (the address is
// gone: suppress it), a soft bounce (this message failed, the address may work), or not a bounce
// at all (a delay warning, a success notice, an auto-reply). Pure; the rules cite RFC 3463/3464.

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

export interface BounceClassification {
  kind: BounceKind;
  /** The enhanced status code (RFC 3463), e.g. "5.1.1"; null when none was given. */
  status: string | null;
  /** Why: the remote's diagnostic text, or a line saying what was decided. */
  reason: string;
}

/** bounce_reason is shown in the console; a diagnostic is a line or two, anything longer is noise. */
export const MAX_REASON_LENGTH = 500;

interface Rule {
  code: RegExp;
  kind: 'hard' | 'soft';
}

/**
 * Permanent (class 5) codes with Action: failed, first match wins. "hard" means the address
 * itself is bad and is suppressed; "soft" means this message failed for a reason that says nothing
 * against the address, so it stays sendable.
 */
const PERMANENT_RULES: Rule[] = [
  // X.1.* addressing status (RFC 3463 §3.2): bad mailbox (5.1.1), bad domain (5.1.2), bad syntax
  // (5.1.3), moved (5.1.6); 5.1.10 is RFC 7505's null MX, and Microsoft's RecipientNotFound.
  { code: /^5\.1\.\d+$/, kind: 'hard' },
  // X.2.2 mailbox full: RFC 3463 §3.3 "should be used as a persistent transient failure"; the
  // mailbox exists.
  { code: /^5\.2\.2$/, kind: 'soft' },
  // X.2.3 message length exceeds administrative limit: about this message, not the address.
  { code: /^5\.2\.3$/, kind: 'soft' },
  // X.2.4 mailing list expansion problem: the list's trouble, not the list address's.
  { code: /^5\.2\.4$/, kind: 'soft' },
  // X.2.1 mailbox disabled (closed accounts), X.2.0 other mailbox status: the mailbox is unusable.
  { code: /^5\.2\.\d+$/, kind: 'hard' },
  // X.3.* mail system status (RFC 3463 §3.4): the destination system's condition (full disk,
  // 5.3.4 message too big for the system); a smaller message or a later one may be delivered.
  { code: /^5\.3\.\d+$/, kind: 'soft' },
  // X.4.4 unable to route (RFC 3463 §3.5: e.g. DNS answers only an SOA): the domain has no mail
  // host, so no address there can receive mail.
  { code: /^5\.4\.4$/, kind: 'hard' },
  // X.4.* other network and routing trouble (no answer, bad connection, routing loop, delivery
  // time expired): the path failed, not the address.
  { code: /^5\.4\.\d+$/, kind: 'soft' },
  // X.5.* protocol status and X.6.* media/content status: the exchange or this message's
  // content failed; nothing is known about the address.
  { code: /^5\.[56]\.\d+$/, kind: 'soft' },
  // X.7.* security or policy (5.7.1 delivery not authorized, 5.7.26 DMARC, spam filters): the
  // message or our reputation was refused, and suppressing the recipient would hide that.
  // Servers that answer "5.7.1 unknown recipient" are caught by the text check below.
  { code: /^5\.7\.\d+$/, kind: 'soft' },
  // X.0.0 and anything unlisted: class 5 is "not likely to be resolved by resending the message
  // in the current form" (RFC 3463 §3.1). X.0.0 saying "mailbox full" is softened below.
  { code: /^5\.\d+\.\d+$/, kind: 'hard' },
];

/** Wording that clearly says the address does not exist (not "mailbox unavailable": too vague). */
const NO_SUCH_ADDRESS: RegExp[] = [
  /\b(?:user|mailbox|recipient|address|account|addressee)s?\s+(?:is\s+)?unknown\b/i,
  /\bunknown\s+(?:user|mailbox|recipient|address|account|addressee|local[- ]?part)\b/i,
  /\bno\s+such\s+(?:user|mailbox|recipient|address|account|person)\b/i,
  /\b(?:user|mailbox|recipient|address|account)\b[^.\n]{0,60}?\b(?:does\s+not|doesn't|no\s+longer)\s+exists?\b/i,
  /\b(?:user|mailbox|recipient|address)\s*not\s*found\b/i,
  /\bno\s+mailbox\s+here\b/i, // qmail: "Sorry, no mailbox here by that name. (#5.1.1)"
  /\binvalid\s+(?:recipient|mailbox)\b/i,
];

const MAILBOX_FULL =
  /\b(?:mailbox|inbox|account)\b[^.\n]{0,30}?\b(?:full|over\s*quota)\b|\bover\s*quota\b|\bquota\s+exceeded\b/i;

/** True when the text clearly says the address does not exist. */
export function saysNoSuchAddress(text: string): boolean {
  return NO_SUCH_ADDRESS.some((re) => re.test(text));
}

/** The line(s) of `text` that say the address does not exist, or null. */
function noSuchAddressLine(text: string): string | null {
  for (const re of NO_SUCH_ADDRESS) {
    const m = re.exec(text);
    if (!m) continue;
    const end = text.indexOf('\n', m.index + m[0].length);
    return text.slice(text.lastIndexOf('\n', m.index) + 1, end < 0 ? undefined : end);
  }
  return null;
}

/** The enhanced status code (RFC 3463 §2: class.subject.detail) at the start of a Status field. */
function codeOfStatus(status: string | null): string | null {
  const m = status ? /^\s*([245]\.\d{1,3}\.\d{1,3})\b/.exec(status) : null;
  return m ? m[1] : null;
}

/** The code in an SMTP reply ("550 5.1.1 …", "550-5.1.1 …", "#5.1.1"), or the reply code as X.0.0. */
function codeInText(text: string): string | null {
  const enhanced = /(?:^|[\s;(#])(?:[245]\d\d[ -])?([245]\.\d{1,3}\.\d{1,3})(?=[\s).,;:]|$)/.exec(text);
  if (enhanced) return enhanced[1];
  const basic = /(?:^|;\s*)([245])\d\d(?:[ -]|$)/.exec(text.trim());
  return basic ? `${basic[1]}.0.0` : null;
}

/**
 * The remote's words without the diagnostic type (RFC 3464 §2.3.6) and the repeated "550-5.1.1"
 * prefixes of a multiline SMTP reply (RFC 5321 §4.2.1), on one line, trimmed.
 */
export function cleanDiagnostic(diagnostic: string): string {
  let text = diagnostic.replace(/\s+/g, ' ').trim();
  if (/^[A-Za-z][\w-]*\s*;/.test(text)) text = text.replace(/^[A-Za-z][\w-]*\s*;\s*/, '');
  const first = /^(\d{3})[ -](?:(\d\.\d{1,3}\.\d{1,3}) )?/.exec(text);
  if (first) {
    const [prefix, code, enhanced] = first;
    const repeat = new RegExp(` ${code}[ -]${enhanced ? `${enhanced.replace(/\./g, '\\.')} ` : ''}`, 'g');
    text = `${code} ${enhanced ? `${enhanced} ` : ''}${text.slice(prefix.length).replace(repeat, ' ')}`
      .replace(/\s+/g, ' ')
      .trim();
  }
  return truncate(text);
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
  const fromStatus = codeOfStatus(r.status);
  const fromDiagnostic = diagnostic ? codeInText(diagnostic) : null;
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
      ? { kind: 'hard', status, reason }
      : { kind: 'not_a_bounce', status, reason: 'no status code in the delivery report' };
  }
  // class 2 is success (RFC 3463 §3.1)
  if (status.startsWith('2.')) return { kind: 'not_a_bounce', status, reason };
  // class 4 with Action failed: a persistent transient failure the remote MTA gave up on (RFC 3463
  // §3.1); the address may work later, even when the text says "unknown"
  if (status.startsWith('4.')) return { kind: 'soft', status, reason };

  const rule = PERMANENT_RULES.find((p) => p.code.test(status))!;
  let kind = rule.kind;
  if (kind === 'soft' && saysNoSuchAddress(diagnostic)) kind = 'hard';
  if (kind === 'hard' && status.endsWith('.0.0') && MAILBOX_FULL.test(diagnostic)) kind = 'soft';
  return { kind, status, reason };
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
  };
}
