// The pure rules of direct MX delivery, table by table: MX ordering and sites, what each
// host's answer means for the attempt, slow-down replies, shaping overrides, MTA-STS records,
// policies and mx patterns, and when a site holds its messages back.
import { describe, expect, it } from 'vitest';
import { isSlowDown, verdictOf, type HostVerdict, type SmtpFailure } from '../../src/server/delivery/attempt-rules.ts';
import { orderMx, siteOf } from '../../src/server/delivery/mx.ts';
import { matchesPattern, shapingFrom } from '../../src/server/delivery/shaping.ts';
import { mxMatches, parseStsPolicy, parseStsTxt } from '../../src/server/delivery/mta-sts.ts';
import { blockedUntil } from '../../src/server/delivery/sites.ts';
import { eventView, wireText } from '../../src/lib/transaction-info-view.ts';
import { eventToWire } from '../../src/server/reports/transaction-events.service.ts';
import { legacyPayload, standardPayload } from '../../src/server/webhooks/payload.ts';

describe('orderMx', () => {
  it('orders by preference, equal preferences by the random draw, and knows the null MX', () => {
    const draws = [0.9, 0.1, 0.5];
    let i = 0;
    const random = () => draws[i++ % draws.length];
    expect(
      orderMx(
        [
          { exchange: 'b.example', priority: 10 },
          { exchange: 'a.example', priority: 5 },
        ],
        random,
      ),
    ).toMatchObject({ kind: 'hosts', hosts: ['a.example', 'b.example'] });
    i = 0;
    // draws 0.9 and 0.1: the second record of the tie goes first
    expect(
      orderMx(
        [
          { exchange: 'x.example', priority: 10 },
          { exchange: 'y.example', priority: 10 },
          { exchange: 'z.example', priority: 20 },
        ],
        random,
      ),
    ).toMatchObject({ hosts: ['y.example', 'x.example', 'z.example'] });
    expect(orderMx([{ exchange: '', priority: 0 }])).toEqual({ kind: 'null' });
    expect(orderMx([{ exchange: '.', priority: 0 }])).toEqual({ kind: 'null' });
    expect(
      orderMx([
        { exchange: 'MX.Example.', priority: 1 },
        { exchange: 'mx.example', priority: 2 },
      ]),
    ).toMatchObject({ hosts: ['mx.example'] });
  });

  it('makes one site of one MX host set, whatever its order and case', () => {
    expect(siteOf(['b.example', 'A.example.'])).toBe('a.example,b.example');
    expect(siteOf(['a.example', 'b.example'])).toBe(siteOf(['b.example', 'a.example']));
  });
});

describe('verdictOf', () => {
  const table: [SmtpFailure, HostVerdict][] = [
    [{ code: 'ECONNECTION', command: 'CONN' }, 'next-host'], // refused
    [{ code: 'ETIMEDOUT', command: 'CONN' }, 'next-host'],
    [{ code: 'EPROTOCOL', command: 'CONN', responseCode: 554, response: '554 go away' }, 'next-host'], // greeting
    [{ code: 'EPROTOCOL', command: 'EHLO', responseCode: 550, response: '550 no' }, 'next-host'],
    [{ code: 'ETLS', command: 'STARTTLS', responseCode: 454, response: '454 TLS not available' }, 'next-host'],
    [{ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 421, response: '421 4.7.0 closing' }, 'next-host'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 421, response: '421 try later' }, 'next-host'],
    // an answer to MAIL, RCPT or DATA ends the attempt; what it means is remote-answer.ts's question
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 550, response: '550 5.1.1 no such user' }, 'ends-attempt'],
    [{ code: 'EENVELOPE', command: 'MAIL FROM', responseCode: 553, response: '553 sender rejected' }, 'ends-attempt'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 554, response: '554 spam' }, 'ends-attempt'],
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 450, response: '450 mailbox busy' }, 'ends-attempt'],
    [{ code: 'EMESSAGE', command: 'DATA', responseCode: 451, response: '451 local error' }, 'ends-attempt'],
    [{ code: 'EENVELOPE', command: 'RCPT TO', responseCode: 503, response: '503 bad sequence' }, 'ends-attempt'],
    // a session command that failed although answered 2xx ends the attempt (then tried later)
    [{ code: 'EPROTOCOL', command: 'EHLO', responseCode: 250, response: '250 mx.example' }, 'ends-attempt'],
    [{ code: 'ESOCKET', command: 'DATA' }, 'next-host'], // reset mid-session: no reply
  ];
  it.each(table)('%j → %s', (failure, verdict) => expect(verdictOf(failure)).toBe(verdict));
});

describe('isSlowDown', () => {
  const table: [number | undefined, string, boolean][] = [
    [421, '421 4.7.0 Try again later, closing connection', true],
    [451, '451 4.7.28 Our system has detected an unusual rate of unsolicited mail', true],
    [450, '450 4.7.1 Rate limit exceeded, slow down', true],
    [450, '450 4.2.1 The user you are trying to contact is receiving mail too quickly', false],
    [451, '451 4.7.1 Greylisted, please come back', false],
    [550, '550 5.7.1 Too many messages', false],
    [undefined, 'ECONNREFUSED', false],
  ];
  it.each(table)('%s %s → %s', (code, text, slow) => expect(isSlowDown(code, text)).toBe(slow));
});

describe('shaping', () => {
  const shaping = shapingFrom({
    default: { max_connections: 20 },
    sites: {
      '*.google.com': { max_connections: 5, max_messages_per_second: 50 },
      'example.org': { max_messages_per_connection: 10 },
      'a.example,b.example': { max_connections: 2 },
    },
  });
  const table: [{ hosts: string[]; domain?: string; name: string }, object][] = [
    [
      { hosts: ['aspmx.l.google.com', 'alt1.aspmx.l.google.com'], domain: 'shop.example', name: 'x' },
      { maxConnections: 5, maxMessagesPerConnection: 100, maxMessagesPerSecond: 50 },
    ],
    [
      { hosts: ['mx.example.org'], domain: 'example.org', name: 'mx.example.org' },
      { maxConnections: 20, maxMessagesPerConnection: 10 },
    ],
    [
      { hosts: ['a.example', 'b.example'], name: 'a.example,b.example' },
      { maxConnections: 2, maxMessagesPerConnection: 100 },
    ],
    [
      { hosts: ['mx.other.example'], domain: 'other.example', name: 'mx.other.example' },
      { maxConnections: 20, maxMessagesPerConnection: 100, maxMessagesPerSecond: undefined },
    ],
  ];
  it.each(table)('%j → %j', (site, limits) => expect(shaping.limitsFor(site)).toMatchObject(limits));
  it('defaults to 10 connections and 100 messages per connection, and refuses unknown keys', () => {
    expect(shapingFrom({}).limitsFor({ hosts: ['mx.example'], name: 'mx.example' })).toEqual({
      maxConnections: 10,
      maxMessagesPerConnection: 100,
    });
    expect(() => shapingFrom({ default: { max_conections: 3 } })).toThrow();
    expect(matchesPattern('*.google.com', 'google.com')).toBe(false);
    expect(matchesPattern('*.google.com', 'a.b.google.com.')).toBe(true);
  });
});

describe('MTA-STS', () => {
  const txt: [string[], string | null][] = [
    [['v=STSv1; id=20160831085700Z;'], '20160831085700Z'],
    [['v=STSv1; id=abc'], 'abc'],
    [['v=spf1 -all', 'v=STSv1; id=abc123'], 'abc123'],
    [['v=STSv1; id=a', 'v=STSv1; id=b'], null], // two records: none (RFC 8461 §3.1)
    [['v=STSv1;'], null],
    [['v=STSv1; id=has-dash'], null],
    [[], null],
  ];
  it.each(txt)('TXT %j → id %s', (records, id) => expect(parseStsTxt(records)).toBe(id));

  it('parses policies and refuses broken ones', () => {
    expect(
      parseStsPolicy(
        'version: STSv1\r\nmode: enforce\r\nmx: mail.example.com\r\nmx: *.example.net\r\nmax_age: 604800\r\n',
      ),
    ).toEqual({ mode: 'enforce', mx: ['mail.example.com', '*.example.net'], maxAge: 604800 });
    expect(parseStsPolicy('version: STSv1\nmode: testing\nmx: mx.example\nmax_age: 86400')).toMatchObject({
      mode: 'testing',
    });
    expect(parseStsPolicy('version: STSv1\nmode: none\nmax_age: 86400')).toMatchObject({ mode: 'none', mx: [] });
    expect(parseStsPolicy('version: STSv2\nmode: enforce\nmx: a\nmax_age: 1')).toBeNull();
    expect(parseStsPolicy('version: STSv1\nmode: enforce\nmax_age: 1')).toBeNull(); // no mx
    expect(parseStsPolicy('version: STSv1\nmode: strict\nmx: a\nmax_age: 1')).toBeNull();
    expect(parseStsPolicy('version: STSv1\nmode: enforce\nmx: a\nmax_age: 99999999999')).toBeNull();
  });

  const patterns: [string, string, boolean][] = [
    ['mail.example.com', 'mail.example.com', true],
    ['mail.example.com', 'MAIL.example.com.', true],
    ['*.example.net', 'mx1.example.net', true],
    ['*.example.net', 'a.b.example.net', false], // one label only (RFC 8461 §4.1)
    ['*.example.net', 'example.net', false],
    ['mail.example.com', 'mail2.example.com', false],
  ];
  it.each(patterns)('mx %s matches %s: %s', (pattern, host, ok) => expect(mxMatches(pattern, host)).toBe(ok));
});

describe('blockedUntil', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const later = new Date('2026-01-01T00:05:00Z');
  const base = { connLimit: null, pausedUntil: null, suspendedUntil: null, holders: 1 };
  it('holds a paused site until its pause ends, a suspended one a minute at a time', () => {
    expect(blockedUntil(base, now)).toBeNull();
    expect(blockedUntil({ ...base, pausedUntil: later }, now)?.until).toEqual(later);
    expect(blockedUntil({ ...base, pausedUntil: new Date('2025-12-31T23:59:00Z') }, now)).toBeNull();
    expect(blockedUntil({ ...base, suspendedUntil: new Date('9999-12-31T00:00:00Z') }, now)?.until).toEqual(
      new Date(now.getTime() + 60_000),
    );
    expect(blockedUntil({ ...base, suspendedUntil: new Date('2026-01-01T00:00:30Z') }, now)?.reason).toMatch(
      /suspended/,
    );
  });
});

describe('what happened on the wire, as shown and sent', () => {
  const wire = {
    reply: '250 2.0.0 OK',
    attempt: 1,
    mx_host: 'mx2.example.com',
    mx_address: '192.0.2.3',
    tls_version: 'TLSv1.3',
    tls_cipher: 'TLS_AES_256_GCM_SHA384',
    mta_sts: 'enforce' as const,
    tried: [
      { host: 'mx1.example.com', address: '192.0.2.2', reply: 'ECONNECTION: connect ECONNREFUSED 192.0.2.2:25' },
      { host: 'mx2.example.com', address: '192.0.2.3', reply: '250 2.0.0 OK' },
    ],
  };

  it(
    'reads "Delivered to mx2.example.com (192.0.2.3) over ' + 'TLS 1.3" in the timeline, with the hosts tried before',
    () => {
      const view = eventView({ type: 'delivered', time: 0, data: wire });
      expect(view.details).toEqual([
        'Delivered to mx2.example.com (192.0.2.3) over TLS 1.3',
        'Remote server: 250 2.0.0 OK',
        'Tried mx1.example.com (192.0.2.2): ECONNECTION: connect ECONNREFUSED 192.0.2.2:25',
        'MTA-STS policy: enforce',
      ]);
      expect(wireText({ mx_host: 'mx.example.org', mx_address: '198.51.100.7' })).toBe(
        'mx.example.org (198.51.100.7) without TLS',
      );
      expect(wireText({ reply: '250 OK' })).toBeNull(); // through a relay: nothing to say
    },
  );

  it('keeps the wire fields through the event wire mapping', () => {
    const wired = eventToWire({
      type: 'delivered',
      at: new Date(0),
      data: { ...wire, site: 'mx1.example.com,mx2.example.com', mta_sts: 'bogus' },
    });
    expect(wired.data).toMatchObject({ mx_host: 'mx2.example.com', tls_version: 'TLSv1.3', tried: wire.tried });
    expect(wired.data.mta_sts).toBeUndefined();
  });

  it('carries them in email.sent and email.failed, flat in both field sets, null through a relay', () => {
    const tx = {
      uuid: 'u',
      message_id_header: '<m>',
      group_uuid: 'g',
      group_name: 'Orders',
      from_email: 'a@shop.example',
      from_name: null,
      to_email: 'b@example.com',
      to_name: null,
      subject: 's',
      tags: null,
      metadata: null,
    };
    const sent = standardPayload({ type: 'sent', at: new Date(0), data: wire }, tx).data as Record<string, unknown>;
    expect(sent).toMatchObject({
      smtp_reply: '250 2.0.0 OK',
      mx_host: 'mx2.example.com',
      mx_address: '192.0.2.3',
      tls_version: 'TLSv1.3',
      tls_cipher: 'TLS_AES_256_GCM_SHA384',
      mta_sts: 'enforce',
    });
    expect(
      legacyPayload(
        {
          type: 'failed',
          at: new Date(0),
          data: { ...wire, reply: '451 later', bounce_type: 'soft', category: 'transient' },
        },
        tx,
      ),
    ).toMatchObject({
      smtp_reply: '451 later',
      mx_host: 'mx2.example.com',
      tls_version: 'TLSv1.3',
      category: 'transient',
    });
    expect(
      standardPayload(
        {
          type: 'bounce',
          at: new Date(0),
          data: { type: 'soft', status: '5.7.1', reason: 'x', category: 'spam_block' },
        },
        tx,
      ).data,
    ).toMatchObject({ bounce_type: 'soft', smtp_status: '5.7.1', category: 'spam_block' });
    expect(standardPayload({ type: 'sent', at: new Date(0), data: { reply: '250 OK' } }, tx).data).toMatchObject({
      mx_host: null,
      tls_version: null,
      mta_sts: null,
    });
  });
});
