// Whether the records a customer was asked to publish (dnsRecords) are really in DNS. Lookups turn
// into a small typed result; the rules that judge them are pure functions with their own tests.
import type { Resolver } from 'node:dns/promises';
import type { DnsCheck } from '../db/schema.ts';
import type { DnsRecord } from './domains.service.ts';

export type DnsPurpose = DnsRecord['purpose'];
/** Every record's check; the MX record's only once the domain receives mail. */
export type DnsCheckResults = Record<Exclude<DnsPurpose, 'receiving'>, DnsCheck> & { receiving?: DnsCheck };

/** What one DNS query came to; a TXT record's strings are already joined into one value. */
export type Lookup = { kind: 'found'; values: string[] } | { kind: 'none' } | { kind: 'failed'; code: string };

export const NO_RECORD = 'No record found';

/** Checks every record of `records` (one per purpose) against DNS; never throws for DNS trouble. */
export async function checkDomainRecords(resolver: Resolver, records: readonly DnsRecord[]): Promise<DnsCheckResults> {
  const record = (purpose: DnsPurpose) => {
    const found = records.find((r) => r.purpose === purpose);
    if (!found) throw new Error(`checkDomainRecords: no ${purpose} record given`);
    return found;
  };
  const [spf, dkim, dmarc, returnPath] = [record('spf'), record('dkim'), record('dmarc'), record('return_path')];
  const mx = records.find((r) => r.purpose === 'receiving');
  const [spfLookup, dkimLookup, dmarcLookup, returnPathLookup, mxLookup] = await Promise.all([
    lookupTxt(resolver, spf.name),
    lookupTxt(resolver, dkim.name),
    lookupTxt(resolver, dmarc.name),
    lookupCname(resolver, returnPath.name),
    mx ? lookupMx(resolver, mx.name) : undefined,
  ]);
  return {
    spf: checkSpf(spfLookup, spf.value),
    dkim: checkDkim(dkimLookup, dkim.value),
    dmarc: checkDmarc(dmarcLookup, dmarc.value),
    return_path: checkReturnPath(returnPathLookup, returnPath.value),
    ...(mx && mxLookup ? { receiving: checkReceivingMx(mxLookup, mx.value) } : {}),
  };
}

/** The exchanges of the MX records at `name`, most preferred first. */
export function lookupMx(resolver: Resolver, name: string): Promise<Lookup> {
  return lookup(async () =>
    (await resolver.resolveMx(name)).sort((a, b) => a.priority - b.priority).map((r) => r.exchange),
  );
}

/**
 * Receiving: our MX host is among the domain's MX records. Another MX beside it is allowed (a
 * backup, or the mailbox provider during a move), but mail reaches us only through ours.
 */
export function checkReceivingMx(lookup: Lookup, expected: string): DnsCheck {
  if (lookup.kind !== 'found') return unanswered(lookup, expected);
  const found = lookup.values.join(', ');
  if (lookup.values.some((host) => sameHostName(host, expected))) return { ok: true, found, expected };
  return { ok: false, found, expected, detail: `No MX record names ${expected}` };
}

async function lookup(query: () => Promise<string[]>): Promise<Lookup> {
  try {
    const values = await query();
    return values.length ? { kind: 'found', values } : { kind: 'none' };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'EDNS';
    // ENOTFOUND is NXDOMAIN, ENODATA is a name without records of this type
    if (code === 'ENOTFOUND' || code === 'ENODATA') return { kind: 'none' };
    return { kind: 'failed', code };
  }
}

/** TXT records at `name`, each one's strings joined without separators (RFC 7208 §3.3, RFC 6376 §3.6.2.2). */
export function lookupTxt(resolver: Resolver, name: string): Promise<Lookup> {
  return lookup(async () => (await resolver.resolveTxt(name)).map((strings) => strings.join('')));
}

export function lookupCname(resolver: Resolver, name: string): Promise<Lookup> {
  return lookup(() => resolver.resolveCname(name));
}

const LOOKUP_FAILED = 'The DNS lookup failed';

/** Whether a stored check is a lookup that failed (tried again at the next check) rather than DNS's answer. */
export function lookupFailed(check: DnsCheck): boolean {
  return check.found === null && (check.detail?.startsWith(LOOKUP_FAILED) ?? false);
}

/** The answer for a lookup that found nothing or failed. */
function unanswered(lookup: Exclude<Lookup, { kind: 'found' }>, expected: string): DnsCheck {
  if (lookup.kind === 'none') return { ok: false, found: null, expected, detail: NO_RECORD };
  return {
    ok: false,
    found: null,
    expected,
    detail: `${LOOKUP_FAILED} (${lookup.code}); it is tried again at the next check`,
  };
}

/** Host names compare case-insensitively (RFC 4343 §2); a trailing dot only marks a name absolute (RFC 1034 §3.1). */
export function sameHostName(a: string, b: string): boolean {
  const normal = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');
  return normal(a) === normal(b);
}

/**
 * Parses a DKIM-style tag list (RFC 6376 §3.2; DMARC uses the same, RFC 7489 §6.4) into its tags in
 * order, values trimmed. Undefined when it is not a tag list or a tag occurs twice ("the entire
 * tag-list is invalid").
 */
export function parseTagList(text: string): Map<string, string> | undefined {
  const tags = new Map<string, string>();
  for (const spec of text.split(';')) {
    if (spec.trim() === '') continue;
    const match = /^\s*([A-Za-z][A-Za-z0-9_]*)\s*=(.*)$/s.exec(spec);
    if (!match || tags.has(match[1])) return undefined;
    tags.set(match[1], match[2].trim());
  }
  return tags.size ? tags : undefined;
}

// RFC 7208 §4.5: the version section is exactly "v=spf1" (ABNF strings are case-insensitive),
// ended by a space or the end of the record.
const isSpf = (value: string) => /^v=spf1( |$)/i.test(value);

/**
 * The one record of a kind (as `[record]`), or the failed check: no answer, no such record, or
 * more than one (`tooMany` says what that does to receivers).
 */
function onlyRecord(
  lookup: Lookup,
  expected: string,
  isKind: (value: string) => boolean,
  tooMany: (count: number) => string,
): [string] | DnsCheck {
  if (lookup.kind !== 'found') return unanswered(lookup, expected);
  const records = lookup.values.filter(isKind);
  if (records.length === 0) return { ok: false, found: null, expected, detail: NO_RECORD };
  if (records.length > 1) return { ok: false, found: records.join(' | '), expected, detail: tooMany(records.length) };
  return [records[0]];
}

/** SPF: exactly one v=spf1 record, authorizing our servers through the expected include. */
export function checkSpf(lookup: Lookup, expected: string): DnsCheck {
  const spf = onlyRecord(
    lookup,
    expected,
    isSpf,
    (n) =>
      `${n} SPF records found; there must be exactly one, or receivers fail every check (RFC 7208 §4.5: permerror)`,
  );
  if (!Array.isArray(spf)) return spf;
  const want = expected.split(/\s+/).find((t) => /^include:/i.test(t)) ?? '';
  const wantDomain = want.slice('include:'.length);
  const terms = spf[0].split(/\s+/).slice(1);
  const include = terms.findIndex((term) => {
    const match = /^\+?include:(.+)$/i.exec(term);
    return match !== null && sameHostName(match[1], wantDomain);
  });
  if (include < 0) return { ok: false, found: spf[0], expected, detail: `The SPF record does not contain ${want}` };
  // a mechanism after "all" is never evaluated (RFC 7208 §5.1)
  const all = terms.slice(0, include).find((term) => /^[+\-~?]?all$/i.test(term));
  if (all)
    return {
      ok: false,
      found: spf[0],
      expected,
      detail: `${want} comes after "${all}", so receivers never reach it (RFC 7208 §5.1)`,
    };
  return { ok: true, found: spf[0], expected };
}

/** DKIM: a key record whose p= is our public key (whitespace ignored) and whose k= is rsa or absent. */
export function checkDkim(lookup: Lookup, expected: string): DnsCheck {
  if (lookup.kind !== 'found') return unanswered(lookup, expected);
  const stripSpace = (s: string) => s.replace(/\s+/g, '');
  const wantKey = stripSpace(parseTagList(expected)?.get('p') ?? '');
  const keys = lookup.values.map((value) => ({ value, tags: parseTagList(value) }));
  // several key records at one name: a verifier may use any of them (RFC 6376 §3.6.2.2)
  const ours = keys.find((k) => k.tags && stripSpace(k.tags.get('p') ?? '') === wantKey);
  if (ours) {
    const k = ours.tags!.get('k');
    if (k === undefined || k === 'rsa') return { ok: true, found: ours.value, expected };
    return {
      ok: false,
      found: ours.value,
      expected,
      detail: `The key record says k=${k}; this key is RSA (k=rsa or no k=)`,
    };
  }
  const found = lookup.values.join(' | ');
  const first = keys[0].tags;
  // RFC 6376 §3.6.1: v=, when present, is "DKIM1"; p= is required, and empty means revoked
  if (!first?.has('p') || (first.has('v') && first.get('v') !== 'DKIM1')) {
    return {
      ok: false,
      found,
      expected,
      detail: 'Not a DKIM key record (RFC 6376 §3.6.1: a tag list with v=DKIM1 and p=)',
    };
  }
  if (first.get('p') === '') return { ok: false, found, expected, detail: 'The published key is revoked (empty p=)' };
  return { ok: false, found, expected, detail: "The published key (p=) is not this domain's DKIM key" };
}

const DMARC_POLICIES = ['none', 'quarantine', 'reject'];

/** DMARC: exactly one record starting with v=DMARC1; the detail names its policy. */
export function checkDmarc(lookup: Lookup, expected: string): DnsCheck {
  // RFC 7489 §6.6.3: records that do not start with v=DMARC1 are discarded; more than one left
  // means no DMARC policy applies at all
  const dmarc = onlyRecord(
    lookup,
    expected,
    (v) => /^v\s*=\s*DMARC1\s*(;|$)/.test(v),
    (n) => `${n} DMARC records found; with more than one, receivers apply none (RFC 7489 §6.6.3)`,
  );
  if (!Array.isArray(dmarc)) return dmarc;
  const policy = parseTagList(dmarc[0])?.get('p');
  if (policy === undefined || !DMARC_POLICIES.includes(policy)) {
    return {
      ok: false,
      found: dmarc[0],
      expected,
      detail: 'The DMARC record has no valid policy (p=none, p=quarantine or p=reject)',
    };
  }
  return { ok: true, found: dmarc[0], expected, detail: `Policy: p=${policy}` };
}

/** Return path: bounces.<domain> is a CNAME to our return-path domain. */
export function checkReturnPath(lookup: Lookup, expected: string): DnsCheck {
  if (lookup.kind !== 'found') return unanswered(lookup, expected);
  const found = lookup.values.join(' | ');
  if (lookup.values.some((target) => sameHostName(target, expected))) return { ok: true, found, expected };
  return { ok: false, found, expected, detail: `The CNAME points to ${found}, not ${expected}` };
}
