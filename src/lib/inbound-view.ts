// The Inbound page's query and the request it becomes, the one verdict a message's checks add up to,
// and the document its HTML is shown in (docs/console.md §2 "Inbound"): pure, so the page renders the
// first rows and the message on the server with what the islands use.
import type { InboundRowWire } from '../contract/inbound.ts';

export interface InboundQuery {
  page: number;
  /** The search text in effect (the box's text once the debounce has passed). */
  search: string;
}

export const FIRST_INBOUND_QUERY: InboundQuery = { page: 1, search: '' };

/** POST /v1/inbound/search's body for a query. */
export function inboundSearchBody({ page, search }: InboundQuery) {
  return { page, search };
}

export type Verdict = 'passed' | 'failed' | 'flagged' | 'unverified';

/** A check's result that is a verdict against the message (RFC 8601 §2.7): it failed, or its record is broken. */
const FAILING = new Set(['fail', 'softfail', 'permerror']);

/**
 * The list's tag. Flagged: it failed DMARC under a reject policy and was kept (docs/receiving.md).
 * Passed: DMARC passed, or, where the From domain publishes no DMARC, SPF or DKIM passed. Failed: a
 * check failed (fail, softfail, permerror). Unverified: nothing failed and nothing passed (no SPF
 * record, no signature, no DMARC policy, a neutral SPF, or a lookup that could not be made): nothing
 * confirms the sender, and nothing says it was forged either.
 */
export function verdictOf(auth: InboundRowWire['authentication']): Verdict {
  if (auth.flagged) return 'flagged';
  if (auth.dmarc === 'pass') return 'passed';
  if (auth.dmarc === 'none' && (auth.spf === 'pass' || auth.dkim === 'pass')) return 'passed';
  if ([auth.spf, auth.dkim, auth.dmarc].some((result) => FAILING.has(result))) return 'failed';
  return 'unverified';
}

export const VERDICT_LABEL: Readonly<Record<Verdict, string>> = {
  passed: 'Passed',
  failed: 'Failed',
  flagged: 'Flagged',
  unverified: 'Unverified',
};

/** Bulma's tag colour for each verdict (unverified: the plain grey tag). */
export const VERDICT_TAG: Readonly<Record<Verdict, string>> = {
  passed: 'is-success',
  failed: 'is-danger',
  flagged: 'is-warning',
  unverified: 'is-dark',
};

/** What `none` means for each check: there was nothing to check. */
const NOTHING_TO_CHECK: Readonly<Record<'spf' | 'dkim' | 'dmarc', string>> = {
  spf: 'No SPF record',
  dkim: 'Not signed',
  dmarc: 'No policy',
};

/**
 * How one check's RFC 8601 result reads on the message page: `none` says what was missing (no SPF
 * record, not signed, no DMARC policy) and `neutral` that the domain gave no verdict, so neither
 * reads as a failure; the other results as written.
 */
export function resultLabel(check: 'spf' | 'dkim' | 'dmarc', result: string): string {
  if (result === 'none') return NOTHING_TO_CHECK[check];
  if (result === 'neutral') return 'Neutral: no verdict';
  return result;
}

/** Bulma's tag colour for one check's RFC 8601 result. */
export function resultTag(result: string): string {
  if (result === 'pass') return 'is-success';
  if (result === 'fail' || result === 'permerror') return 'is-danger';
  if (result === 'softfail' || result === 'temperror') return 'is-warning';
  return 'is-light';
}

/**
 * A received message's frame: `sandbox` without allow-scripts, the document as `srcdoc`, and this
 * CSP first in it, so nothing runs and nothing loads from anywhere (images only as data: URIs in the
 * message itself); the template preview's approach (src/lib/template-editor.ts), stricter on images.
 */
export const RECEIVED_HTML_CSP =
  "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; form-action 'none'; base-uri 'none'";

export function receivedHtmlDocument(sanitizedHtml: string): string {
  return (
    `<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="${RECEIVED_HTML_CSP}">` +
    // a mail client's default font; the message's own styles come after and win
    `<meta name="referrer" content="no-referrer"><style>body { font-family: Arial, Helvetica, sans-serif; }</style>` +
    sanitizedHtml
  );
}

/** The name and address of a mailbox written `Name <address>` (or a bare address). */
export function mailboxParts(mailbox: string): { name: string; address: string } {
  const m = /^(.*?)\s*<([^<>]*)>\s*$/.exec(mailbox);
  if (!m) return { name: '', address: mailbox.trim() };
  return { name: m[1].replace(/^"|"$/g, '').trim(), address: m[2].trim() };
}
