import { describe, expect, it } from 'vitest';
import {
  checkDkim,
  checkDmarc,
  checkReturnPath,
  checkSpf,
  type Lookup,
  NO_RECORD,
  parseTagList,
  sameHostName,
} from '../../src/server/domains/dns-check.ts';

const found = (...values: string[]): Lookup => ({ kind: 'found', values });
const NONE: Lookup = { kind: 'none' };
const SERVFAIL: Lookup = { kind: 'failed', code: 'ESERVFAIL' };

describe('parseTagList (RFC 6376 §3.2)', () => {
  it.each([
    [
      'v=DKIM1; k=rsa; p=MIIB',
      [
        ['v', 'DKIM1'],
        ['k', 'rsa'],
        ['p', 'MIIB'],
      ],
    ],
    [
      '  v = DKIM1 ;p=MI IB ;',
      [
        ['v', 'DKIM1'],
        ['p', 'MI IB'],
      ],
    ],
    ['p=', [['p', '']]],
    [
      'v=DMARC1; p=reject; rua=mailto:d@example.com',
      [
        ['v', 'DMARC1'],
        ['p', 'reject'],
        ['rua', 'mailto:d@example.com'],
      ],
    ],
  ] as const)('%s', (text, tags) => {
    expect([...parseTagList(text)!]).toEqual(tags);
  });

  it.each(['', 'just some text', 'p=a; p=b', '1x=y', '=value'])('%j is not a tag list', (text) => {
    expect(parseTagList(text)).toBeUndefined();
  });
});

describe('sameHostName', () => {
  it.each([
    ['mail.example.com', 'mail.example.com', true],
    ['Mail.Example.COM.', 'mail.example.com', true],
    ['mail.example.com', 'mail.example.com.', true],
    ['mail.example.com', 'example.com', false],
    ['mail.example.com..', 'mail.example.com', false],
  ] as const)('%s ~ %s → %s', (a, b, same) => {
    expect(sameHostName(a, b)).toBe(same);
  });
});

const SPF = 'v=spf1 include:_spf.mail.test ~all';

describe('checkSpf (RFC 7208)', () => {
  it.each([
    [found(SPF), true, undefined],
    [found('v=spf1 ip4:192.0.2.1 include:_spf.google.com +include:_SPF.mail.test. -all'), true, undefined],
    [found('google-site-verification=abc', 'V=SPF1 include:_spf.mail.test -all'), true, undefined],
    [found('v=spf1 include:_spf.other.test ~all'), false, 'does not contain include:_spf.mail.test'],
    [found('v=spf1 ~include:_spf.mail.test -all'), false, 'does not contain'],
    [found('v=spf1 -all include:_spf.mail.test'), false, 'RFC 7208 §5.1'],
    [found('v=spf1 include:_spf.mail.test', 'v=spf1 -all'), false, 'RFC 7208 §4.5'],
    [found('v=spf10 include:_spf.mail.test'), false, NO_RECORD],
    [found('spf is nice'), false, NO_RECORD],
    [NONE, false, NO_RECORD],
    [SERVFAIL, false, 'lookup failed (ESERVFAIL)'],
  ] as const)('%j → %s', (lookup, ok, detail) => {
    const result = checkSpf(lookup, SPF);
    expect(result.ok).toBe(ok);
    expect(result.expected).toBe(SPF);
    if (detail) expect(result.detail).toContain(detail);
  });

  it('shows both records when there are two', () => {
    expect(checkSpf(found('v=spf1 a -all', 'v=spf1 mx -all'), SPF).found).toBe('v=spf1 a -all | v=spf1 mx -all');
  });
});

const KEY = 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAuKey+/=';
const DKIM = `v=DKIM1; k=rsa; p=${KEY}`;

describe('checkDkim (RFC 6376 §3.6.1)', () => {
  it.each([
    [found(DKIM), true, undefined],
    [found(`p=${KEY}`), true, undefined],
    [found(`v=DKIM1; p=${KEY.slice(0, 10)} ${KEY.slice(10, 30)}\t${KEY.slice(30)}; t=s`), true, undefined],
    [found('v=DKIM1; p=MIIBother', DKIM), true, undefined],
    [found(`v=DKIM1; k=ed25519; p=${KEY}`), false, 'k=ed25519'],
    [found('v=DKIM1; k=rsa; p=MIIBother'), false, "not this domain's DKIM key"],
    [found('v=DKIM1; p='), false, 'revoked'],
    [found(`v=DKIM2; p=MIIBother`), false, 'Not a DKIM key record'],
    [found('hello world'), false, 'Not a DKIM key record'],
    [found(`v=DKIM1; p=${KEY}; p=${KEY}`), false, 'Not a DKIM key record'],
    [NONE, false, NO_RECORD],
    [{ kind: 'failed', code: 'ETIMEOUT' } as const, false, 'lookup failed (ETIMEOUT)'],
  ] as const)('%j → %s', (lookup, ok, detail) => {
    const result = checkDkim(lookup, DKIM);
    expect(result.ok).toBe(ok);
    if (detail) expect(result.detail).toContain(detail);
  });
});

describe('checkDmarc (RFC 7489 §6.6.3)', () => {
  it.each([
    [found('v=DMARC1; p=none;'), true, 'Policy: p=none'],
    [found('v=DMARC1;p=reject; rua=mailto:d@example.com'), true, 'Policy: p=reject'],
    [found('something else', 'v=DMARC1; p=quarantine'), true, 'Policy: p=quarantine'],
    [found('v=DMARC1; p=none', 'v=DMARC1; p=reject'), false, 'RFC 7489 §6.6.3'],
    [found('v=dmarc1; p=none'), false, NO_RECORD],
    [found('p=none; v=DMARC1'), false, NO_RECORD],
    [found('v=DMARC1; rua=mailto:d@example.com'), false, 'no valid policy'],
    [found('v=DMARC1; p=block'), false, 'no valid policy'],
    [NONE, false, NO_RECORD],
    [SERVFAIL, false, 'lookup failed'],
  ] as const)('%j → %s', (lookup, ok, detail) => {
    const result = checkDmarc(lookup, 'v=DMARC1; p=none;');
    expect(result.ok).toBe(ok);
    expect(result.detail).toContain(detail);
  });
});

describe('checkReturnPath', () => {
  it.each([
    [found('mail.test'), true],
    [found('MAIL.test.'), true],
    [found('bounces.other.test'), false],
    [NONE, false],
    [SERVFAIL, false],
  ] as const)('%j → %s', (lookup, ok) => {
    expect(checkReturnPath(lookup, 'mail.test').ok).toBe(ok);
  });

  it('says where the alias points instead', () => {
    expect(checkReturnPath(found('bounces.other.test'), 'mail.test')).toEqual({
      ok: false,
      found: 'bounces.other.test',
      expected: 'mail.test',
      detail: 'The CNAME points to bounces.other.test, not mail.test',
    });
  });
});
