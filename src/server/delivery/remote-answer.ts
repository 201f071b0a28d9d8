// What a remote server's answer means, for every path that hears one: a reply during delivery
// (worker.ts through SMTP_RELAY_URL, direct.ts at the MX, both via smtp-reply.ts) and the same
// reply quoted in a DSN later (bounces/dsn.ts) get their verdict here, so the same words never
// mean two things. Pure; the table of real replies in tests/unit/remote-answer.test.ts is its
// specification.
import type { AnswerCategory } from '../../contract/values.ts';

/** The questions an answer settles. */
export interface AnswerVerdict {
  /** Whether the message may be tried again later (RFC 5321 §4.2.1: 4yz and 503 yes, other 5yz no). */
  retry: boolean;
  /** 'bad' only when the answer says the address does not exist: a hard bounce, and suppressed. */
  address: 'bad' | 'ok';
  /** What the answer was about. */
  category: AnswerCategory;
}

/** An answer as heard: the reply code and the enhanced status code when there were any, and the words. */
export interface RemoteAnswer {
  /** The SMTP reply code (RFC 5321 §4.2), e.g. 550. */
  code?: number | null;
  /** The enhanced status code (RFC 3463 §2: class.subject.detail), e.g. "5.1.1". */
  status?: string | null;
  text: string;
}

/** The address cannot receive mail: no such mailbox, or a domain that takes no mail. */
export const ADDRESS_GONE: AnswerVerdict = Object.freeze({
  retry: false,
  address: 'bad',
  category: 'invalid_recipient',
});

/** No server answered, or one asked us to come back later. */
export const TRY_LATER: AnswerVerdict = Object.freeze({ retry: true, address: 'ok', category: 'transient' });

/**
 * Enhanced codes that say the recipient address itself is wrong (RFC 3463 §3.2): X.1.1 bad
 * destination mailbox, X.1.2 bad destination system (the domain), X.1.3 bad mailbox syntax, X.1.6
 * mailbox moved with no forwarding address; X.1.10 is RFC 7505's null MX (the domain takes no
 * mail), which Exchange Online also answers for an unknown recipient.
 */
const ADDRESS_GONE_CODES = new Set(['5.1.1', '5.1.2', '5.1.3', '5.1.6', '5.1.10']);

/** Wording that clearly says the address does not exist (not "mailbox unavailable": too vague). */
const NO_SUCH_ADDRESS: RegExp[] = [
  /\b(?:user|mailbox|recipient|address|account|addressee)s?\s+(?:is\s+)?unknown\b/i,
  /\bunknown\s+(?:user|mailbox|recipient|address|account|addressee|local[- ]?part)\b/i,
  /\bno\s+such\s+(?:user|mailbox|recipient|address|account|person)\b/i,
  /\b(?:user|mailbox|recipient|address|account)\b[^.\n]{0,60}?\b(?:does\s+not|doesn't|no\s+longer)\s+exists?\b/i,
  /\b(?:user|mailbox|recipient|address)\s*not\s*found\b/i,
  /\bno\s+mailbox\s+here\b/i, // qmail: "Sorry, no mailbox here by that name. (#5.1.1)"
  /\binvalid\s+(?:recipient|mailbox)\b/i,
  /\bunrouteable\s+address\b/i, // Exim, when no router takes the address
  /\bdoes(?:n't|\s+not)\s+have\s+an?\s+[\w.-]+\s+account\b/i, // Yahoo: "doesn't have a yahoo.com account"
];

/** Exim's sender verification quotes its own "Unrouteable address" about our sender, not the recipient. */
const SENDER_VERIFY = /\bsender\s+verif/i;

/** Where the text clearly says the recipient's address does not exist, or null. */
export function noSuchAddressIn(text: string): RegExpExecArray | null {
  if (SENDER_VERIFY.test(text)) return null;
  for (const re of NO_SUCH_ADDRESS) {
    const m = re.exec(text);
    if (m) return m;
  }
  return null;
}

/** True when the text clearly says the recipient's address does not exist. */
export function saysNoSuchAddress(text: string): boolean {
  return noSuchAddressIn(text) !== null;
}

/** Any of `words` (regular expression sources) as a whole word, in any case. */
const anyOf = (...words: string[]) => new RegExp(`\\b(?:${words.join('|')})\\b`, 'i');

const AUTHENTICATION = anyOf(
  'DMARC',
  'SPF',
  'DKIM',
  'unauthenticated',
  'authenticat(?:e|ed|ion)',
  'PTR\\s+record',
  'reverse\\s+DNS',
);
// tried before SPAM: "Spamhaus" names a blocklist, not a verdict on the content
const BLOCKLIST = anyOf(
  '(?:block|black|deny)\\s?-?list(?:ed)?',
  'blocked\\s+using',
  'listed\\s+(?:at|on|in|by)',
  'spamhaus',
  'spamcop',
  'barracuda',
  'sorbs',
  'dnsbl',
  'rbl',
  'reputation',
  'BL\\d+', // Yahoo's [BL21]
);
const SPAM = anyOf('spam', 'spammy', 'unsolicited', 'junk', 'UCE');
const POLICY = anyOf(
  'polic(?:y|ies)',
  'prohibit(?:ed|ion)?',
  'relay(?:ing)?\\s+(?:access\\s+)?(?:denied|not\\s+permitted)',
  'access\\s+denied',
  'not\\s+(?:authori[sz]ed|permitted|allowed)',
  'denied',
  'refused',
  'blocked',
  'sender\\s+verify\\s+failed',
);
const MAILBOX_FULL =
  /\b(?:mailbox|inbox|account)\b[^.\n]{0,30}?\b(?:full|over\s*quota)\b|\bover\s*quota\b|\bquota\s+exceeded\b/i;
const TOO_LARGE =
  /\b(?:message|mail)\b[^.\n]{0,30}?\b(?:too\s+(?:big|large|long)|exceeds?\b[^.\n]{0,30}?\b(?:size|limit))/i;
const SIZE_LIMIT = anyOf('message\\s+size', 'size\\s+limit');
const DISABLED =
  /\b(?:account|mailbox|user)\b[^.\n]{0,40}?\b(?:disabled|deactivated|discontinued|suspended|inactive)\b/i;

interface Rule {
  /** The enhanced code it applies to; a refusal without one (or with X.0.0) is matched as 5.0.0. */
  status: RegExp;
  /** Words the text must also contain. */
  text?: RegExp;
  category: AnswerCategory;
}

/** X.7.x, or no specific code: the codes whose words decide between the policy categories. */
const POLICY_OR_UNSPECIFIC = /^5\.(?:7\.\d+|0\.0)$/;
const UNSPECIFIC = /^5\.0\.0$/;

/**
 * What a refusal for good (5yz but 503) that leaves the address alone is about, first match wins.
 * None of these suppresses: the message failed, the mailbox may take the next one.
 */
const PERMANENT_RULES: Rule[] = [
  // X.2.2 mailbox full: RFC 3463 §3.3 "should be used as a persistent transient failure"; it exists
  { status: /^5\.2\.2$/, category: 'mailbox_full' },
  // X.2.3 message longer than the mailbox's limit (§3.3), X.3.4 too big for the system (§3.4)
  { status: /^5\.(?:2\.3|3\.4)$/, category: 'message_too_large' },
  // X.2.1 mailbox disabled, not accepting messages (§3.3): it may be enabled again
  { status: /^5\.2\.1$/, category: 'mailbox_disabled' },
  // RFC 7372 §3: X.7.20-X.7.26 DKIM, SPF, reverse DNS and multiple checks failed; RFC 7505 §4:
  // X.7.27 our sender's domain has a null MX
  { status: /^5\.7\.2[0-7]$/, category: 'authentication' },
  // X.7.x security or policy status (§3.8) and refusals without a code, by their words: sender
  // authentication (DMARC, SPF, DKIM), a blocklist or our reputation, the content judged as spam
  { status: POLICY_OR_UNSPECIFIC, text: AUTHENTICATION, category: 'authentication' },
  { status: POLICY_OR_UNSPECIFIC, text: BLOCKLIST, category: 'policy_block' },
  { status: POLICY_OR_UNSPECIFIC, text: SPAM, category: 'spam_block' },
  // any other X.7.x: X.7.1 delivery not authorized, message refused, and the like
  { status: /^5\.7\.\d+$/, category: 'policy_block' },
  // X.1.7, X.1.8 (§3.2): our sender's address or domain is refused, not the recipient's
  { status: /^5\.1\.[78]$/, category: 'policy_block' },
  // X.3.x mail system status (§3.4): the destination system's condition
  { status: /^5\.3\.\d+$/, category: 'system' },
  // X.4.x network and routing status (§3.5): no answer, bad connection, loop, time expired
  { status: /^5\.4\.\d+$/, category: 'routing' },
  // X.5.x mail delivery protocol status (§3.6) and X.6.x message content or media status (§3.7):
  // the exchange or the message's format failed, not the address
  { status: /^5\.[56]\.\d+$/, category: 'protocol' },
  // no specific code: the words say what it was
  { status: UNSPECIFIC, text: MAILBOX_FULL, category: 'mailbox_full' },
  { status: UNSPECIFIC, text: TOO_LARGE, category: 'message_too_large' },
  { status: UNSPECIFIC, text: SIZE_LIMIT, category: 'message_too_large' },
  { status: UNSPECIFIC, text: DISABLED, category: 'mailbox_disabled' },
  { status: UNSPECIFIC, text: POLICY, category: 'policy_block' },
];

/**
 * The remote's words on one line: without the diagnostic type (RFC 3464 §2.3.6, "smtp;") and the
 * "550-5.1.1" prefixes a multiline SMTP reply repeats on each line (RFC 5321 §4.2.1).
 */
export function answerText(text: string): string {
  let out = text.replace(/\s+/g, ' ').trim();
  if (/^[A-Za-z][\w-]*\s*;/.test(out)) out = out.replace(/^[A-Za-z][\w-]*\s*;\s*/, '');
  const first = /^(\d{3})[ -](?:(\d\.\d{1,3}\.\d{1,3}) )?/.exec(out);
  if (first) {
    const [prefix, code, enhanced] = first;
    const repeat = new RegExp(` ${code}[ -]${enhanced ? `${enhanced.replace(/\./g, '\\.')} ` : ''}`, 'g');
    out = `${code} ${enhanced ? `${enhanced} ` : ''}${out.slice(prefix.length).replace(repeat, ' ')}`
      .replace(/\s+/g, ' ')
      .trim();
  }
  return out;
}

/** The reply code an SMTP answer starts with ("550 …", "550-…"), or null. */
export function replyCodeIn(text: string): number | null {
  const m = /^([2-5]\d\d)(?:[ -]|$)/.exec(answerText(text));
  return m ? Number(m[1]) : null;
}

/**
 * The enhanced status code at the start of an SMTP answer, after its reply code (RFC 3463 §2:
 * "550 5.1.1 …", "550-5.1.1 …", "5.1.1 …", "550 #5.1.1 …"), or null.
 */
export function enhancedCodeIn(text: string): string | null {
  const m = /^(?:[2-5]\d\d[ -])?#?([245]\.\d{1,3}\.\d{1,3})(?=[\s).,;:]|$)/.exec(answerText(text));
  return m ? m[1] : null;
}

/**
 * The verdict on a remote answer. The class comes from the reply code, else from the enhanced
 * code; an enhanced code of another class than the reply is ignored (RFC 3463 §2: they agree).
 * Only a refusal for good that says the address does not exist marks the address bad.
 */
export function classifyAnswer(answer: RemoteAnswer): AnswerVerdict {
  const code = answer.code ?? null;
  const klass = code !== null ? Math.floor(code / 100) : answer.status ? Number(answer.status[0]) : null;
  // 4yz: a transient failure, worth retrying (RFC 5321 §4.2.1); no class at all (no answer) likewise
  if (klass !== 5) return TRY_LATER;
  // 503, bad sequence of commands (RFC 5321 §4.2.4), says our client misbehaved, not that the
  // message or the recipient is refused: retried
  if (code === 503) return { retry: true, address: 'ok', category: 'protocol' };
  const text = answerText(answer.text);
  const status = answer.status?.startsWith('5.') && answer.status !== '5.0.0' ? answer.status : null;
  if (status !== null && ADDRESS_GONE_CODES.has(status)) return ADDRESS_GONE;
  // X.0.0 is "other or undefined" (RFC 3463 §3.1): without a specific code, the words decide
  if (status === null && saysNoSuchAddress(text)) return ADDRESS_GONE;
  const matched = status ?? '5.0.0';
  const rule = PERMANENT_RULES.find((r) => r.status.test(matched) && (!r.text || r.text.test(text)));
  return { retry: false, address: 'ok', category: rule?.category ?? 'unknown' };
}
