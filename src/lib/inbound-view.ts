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

export type Verdict = 'passed' | 'failed' | 'flagged';

/**
 * The list's tag. Flagged: it failed DMARC under a reject policy and was kept (docs/receiving.md).
 * Passed: DMARC passed, or, where the From domain publishes no DMARC, SPF or DKIM passed. Failed:
 * anything else: it cannot be told apart from forged mail.
 */
export function verdictOf(auth: InboundRowWire['authentication']): Verdict {
  if (auth.flagged) return 'flagged';
  if (auth.dmarc === 'pass') return 'passed';
  if (auth.dmarc === 'none' && (auth.spf === 'pass' || auth.dkim === 'pass')) return 'passed';
  return 'failed';
}

export const VERDICT_LABEL: Readonly<Record<Verdict, string>> = {
  passed: 'Passed',
  failed: 'Failed',
  flagged: 'Flagged',
};

/** Bulma's tag colour for each verdict. */
export const VERDICT_TAG: Readonly<Record<Verdict, string>> = {
  passed: 'is-success',
  failed: 'is-danger',
  flagged: 'is-warning',
};

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
