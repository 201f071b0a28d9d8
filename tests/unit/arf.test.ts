// Reading feedback-loop reports (RFC 5965): what each kind of feedback asks, the report's fields,
// which transaction a report names (the tokens we put in every message, or a Message-ID we made),
// realistic reports with the original whole and headers only, and garbage. Property tests
// (fast-check) feed the parser generated, truncated and oversized MIME in the wrong charsets: it
// answers or refuses with an Error, never anything else, and what it answers names no transaction.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  feedbackActionOf,
  feedbackReportOf,
  type ReturnPathKeys,
  reportedTransactions,
} from '../../src/server/bounces/arf.ts';
import { type ParsedBounce, parseBounce } from '../../src/server/bounces/parse-dsn.ts';
import { verpAddress } from '../../src/server/delivery/verp.ts';
import { unsubscribeAddress } from '../../src/server/message/list-unsubscribe.ts';
import { arfAbout, arfFixture } from '../helpers/arf-fixture.ts';
import { dsnFixture } from '../helpers/dsn-fixture.ts';

const SECRET = 'unit-secret-unit-secret-unit-secret-0123';
const RETURN_PATH = 'rp.transact.test';
const KEYS: ReturnPathKeys = { secret: SECRET, returnPathDomain: RETURN_PATH };
const FBL = `fbl@${RETURN_PATH}`;

/** A transaction sent through the API: its Message-ID is made from its uuid (sending.service.ts). */
function apiMessage() {
  const uuid = randomUUID();
  return { uuid, recipient: `ann-${uuid.slice(0, 8)}@customer.example`, messageId: `<${uuid}@shop.example>` };
}

const values = (sent: ReturnType<typeof apiMessage>, extra: { reportTo?: string; feedbackType?: string } = {}) => ({
  ...sent,
  reportTo: extra.reportTo ?? FBL,
  feedbackType: extra.feedbackType,
  secret: SECRET,
  returnPath: RETURN_PATH,
});

const named = (parsed: ParsedBounce) =>
  parsed.feedback ? reportedTransactions(KEYS, parsed.feedback, parsed.original, parsed.originalMessageId) : [];

describe('feedbackActionOf (RFC 5965 §7.3, RFC 6430, RFC 6591)', () => {
  it.each([
    ['abuse', 'complaint'],
    ['fraud', 'complaint'],
    ['virus', 'complaint'],
    ['other', 'complaint'],
    ['not-spam', 'none'],
    ['auth-failure', 'none'],
    ['unsubscribe', 'unsubscribe'],
    ['opt-out', 'unsubscribe'],
    ['opt-out-list', 'unsubscribe'],
    ['miscategorized', 'none'],
    ['', 'none'],
    [null, 'none'],
  ])('%s asks for %s', (type, action) => {
    expect(feedbackActionOf(type)).toBe(action);
  });
});

describe('feedbackReportOf', () => {
  it('reads the fields lower-casing the type, without comments or control characters', () => {
    expect(
      feedbackReportOf({
        'feedback-type': ' ABUSE (user pressed the button)',
        'user-agent': 'Yahoo!-Mail-Feedback/2.0\u0000\u0007',
        'original-mail-from': '<bounces+x@rp.example>',
      }),
    ).toEqual({
      feedbackType: 'abuse',
      userAgent: 'Yahoo!-Mail-Feedback/2.0',
      originalMailFrom: '<bounces+x@rp.example>',
      originalRcptTo: null,
      arrivalDate: null,
    });
  });

  it.each([
    ['arrival-date', 'Tue, 14 Jan 2025 20:25:44 +0000', '2025-01-14T20:25:44.000Z'],
    ['arrival-date', 'Tue, 14 Jan 2025 02:12:05 -0800 (PST)', '2025-01-14T10:12:05.000Z'],
    ['arrival-date', '14 Jan 2025 10:12 GMT', '2025-01-14T10:12:00.000Z'],
    // the older drafts' name, which Yahoo's and Microsoft's loops still send
    ['received-date', 'Tue, 14 Jan 2025 10:12:03 -0800', '2025-01-14T18:12:03.000Z'],
    ['arrival-date', 'Tue, 14 Jan 2025', null],
    ['arrival-date', 'yesterday', null],
    ['arrival-date', '1', null],
    ['arrival-date', 'Tue, 14 Jan 2025 25:61:00 +0000', null],
  ])('reads %s %j as %s', (name, value, arrivalDate) => {
    expect(feedbackReportOf({ [name]: value }).arrivalDate).toBe(arrivalDate);
  });

  it('prefers Arrival-Date to Received-Date', () => {
    expect(
      feedbackReportOf({
        'arrival-date': 'Tue, 14 Jan 2025 20:25:44 +0000',
        'received-date': 'Tue, 14 Jan 2025 10:12:03 -0800',
      }).arrivalDate,
    ).toBe('2025-01-14T20:25:44.000Z');
  });

  it('keeps at most 200 characters of a field', () => {
    expect(feedbackReportOf({ 'user-agent': 'x'.repeat(70_000) }).userAgent).toHaveLength(200);
  });

  it('answers nulls for a part without fields', () => {
    expect(feedbackReportOf({})).toEqual({
      feedbackType: null,
      userAgent: null,
      originalMailFrom: null,
      originalRcptTo: null,
      arrivalDate: null,
    });
  });
});

describe('reportedTransactions', () => {
  const report = feedbackReportOf({ 'feedback-type': 'abuse' });
  const sent = apiMessage();

  it('names the transaction of Original-Mail-From, Return-Path, List-Unsubscribe and our Message-ID once', () => {
    const verp = verpAddress(SECRET, sent.uuid, RETURN_PATH);
    const withFrom = feedbackReportOf({ 'feedback-type': 'abuse', 'original-mail-from': `<${verp}>` });
    const original = {
      'return-path': `<${verp}>`,
      'list-unsubscribe': `<https://t.example/header-unsubscribe/${sent.uuid}>, <mailto:${unsubscribeAddress(
        SECRET,
        sent.uuid,
        RETURN_PATH,
      )}>`,
    };
    expect(reportedTransactions(KEYS, withFrom, original, sent.messageId)).toEqual([sent.uuid]);
  });

  it('takes each token alone, most certain first', () => {
    const other = apiMessage();
    const original = { 'list-unsubscribe': `<mailto:${unsubscribeAddress(SECRET, other.uuid, RETURN_PATH)}>` };
    expect(reportedTransactions(KEYS, report, original, sent.messageId)).toEqual([other.uuid, sent.uuid]);
    expect(
      reportedTransactions(KEYS, report, { 'return-path': verpAddress(SECRET, sent.uuid, RETURN_PATH) }, null),
    ).toEqual([sent.uuid]);
  });

  it.each([
    [
      'a VERP token of another secret',
      { 'return-path': `<${verpAddress('x'.repeat(40), randomUUID(), RETURN_PATH)}>` },
    ],
    ['a VERP token at another domain', { 'return-path': `<${verpAddress(SECRET, randomUUID(), 'elsewhere.test')}>` }],
    [
      'an unsubscribe token with its MAC cut',
      {
        'list-unsubscribe': `<mailto:${unsubscribeAddress(SECRET, randomUUID(), RETURN_PATH).replace(/\.\w+@/, '@')}>`,
      },
    ],
    ['the https URL alone', { 'list-unsubscribe': `<https://t.example/header-unsubscribe/${randomUUID()}>` }],
  ])('names nothing for %s', (_name, original) => {
    expect(reportedTransactions(KEYS, report, original, '<4f1c@mail.client.example>')).toEqual([]);
  });
});

describe('parseBounce on feedback reports', () => {
  it('yahoo-abuse.eml (the original attached whole): the report, the original and its transaction', async () => {
    const sent = apiMessage();
    const parsed = await parseBounce(arfFixture('yahoo-abuse.eml', values(sent)));
    expect(parsed.feedback).toEqual({
      feedbackType: 'abuse',
      userAgent: 'Yahoo!-Mail-Feedback/2.0',
      originalMailFrom: `<${verpAddress(SECRET, sent.uuid, RETURN_PATH)}>`,
      originalRcptTo: `<${sent.recipient}>`,
      arrivalDate: '2025-01-14T18:12:03.000Z',
    });
    expect(parsed.originalMessageId).toBe(sent.messageId);
    expect(parsed.original?.subject).toBe('Your order');
    expect(parsed.isReport).toBe(false);
    expect(named(parsed)).toEqual([sent.uuid]);
  });

  it('microsoft-jmrp.eml (inline original, no Return-Path): named by List-Unsubscribe and Message-ID', async () => {
    const sent = apiMessage();
    const parsed = await parseBounce(arfFixture('microsoft-jmrp.eml', values(sent)));
    expect(parsed.feedback).toMatchObject({
      feedbackType: 'abuse',
      userAgent: 'Hotmail FBL',
      originalMailFrom: null,
      arrivalDate: '2025-01-14T18:40:22.000Z',
    });
    expect(parsed.original?.['return-path']).toBeUndefined();
    expect(parsed.originalMessageId).toBe(sent.messageId);
    expect(named(parsed)).toEqual([sent.uuid]);
    // the original's text stays in its part, not in the report's text
    expect(parsed.text).not.toContain('Thanks for your order');
  });

  it('headers-only.eml (text/rfc822-headers): named by the Message-ID we made', async () => {
    const sent = apiMessage();
    const parsed = await parseBounce(arfFixture('headers-only.eml', values(sent)));
    expect(parsed.feedback).toMatchObject({
      feedbackType: 'abuse',
      userAgent: 'MailboxFBL/1.4',
      arrivalDate: '2025-01-14T20:25:44.000Z',
    });
    expect(parsed.originalMessageId).toBe(sent.messageId);
    expect(named(parsed)).toEqual([sent.uuid]);
  });

  it('a headers-only report about a message with its client’s own Message-ID names nothing', async () => {
    const sent = { ...apiMessage(), messageId: '<CAF=x7Y@mail.client.example>' };
    expect(named(await parseBounce(arfFixture('headers-only.eml', values(sent))))).toEqual([]);
  });

  it.each([
    ['not-spam', 'none'],
    ['unsubscribe', 'unsubscribe'],
  ])('reads Feedback-Type: %s (asks for %s)', async (feedbackType, action) => {
    const sent = apiMessage();
    const parsed = await parseBounce(arfFixture('yahoo-abuse.eml', values(sent, { feedbackType })));
    expect(parsed.feedback?.feedbackType).toBe(feedbackType);
    expect(feedbackActionOf(parsed.feedback!.feedbackType)).toBe(action);
    expect(named(parsed)).toEqual([sent.uuid]);
  });

  it('reads a report wrapped around a delivered message, whole or headers only', async () => {
    const sent = apiMessage();
    const delivered = [
      `List-Unsubscribe: <https://t.example/header-unsubscribe/${sent.uuid}>,`,
      ` <mailto:${unsubscribeAddress(SECRET, sent.uuid, RETURN_PATH)}>`,
      `Message-ID: ${sent.messageId}`,
      'Subject: Your order',
      '',
      'Thanks.',
      '',
    ].join('\r\n');
    for (const headersOnly of [false, true]) {
      const parsed = await parseBounce(arfAbout(delivered, { reportTo: FBL, headersOnly }));
      expect(parsed.originalMessageId).toBe(sent.messageId);
      expect(named(parsed)).toEqual([sent.uuid]);
    }
  });

  it('takes a report whose feedback-report part is missing as one with no type', async () => {
    const sent = apiMessage();
    const raw = arfFixture('yahoo-abuse.eml', values(sent)).replace(
      'Content-Type: message/feedback-report',
      'Content-Type: text/plain',
    );
    const parsed = await parseBounce(raw);
    expect(parsed.feedback?.feedbackType).toBeNull();
    expect(feedbackActionOf(parsed.feedback!.feedbackType)).toBe('none');
  });

  it('a DSN is no feedback report', async () => {
    const raw = dsnFixture('postfix-user-unknown.eml', {
      verp: verpAddress(SECRET, randomUUID(), RETURN_PATH),
      recipient: 'gone@customer.example',
      messageId: '<x@shop.example>',
    });
    expect((await parseBounce(raw)).feedback).toBeNull();
  });

  it.each([
    ['empty', ''],
    ['plain text', 'hello\r\n'],
    ['headers only', 'Subject: x\r\nContent-Type: multipart/report; report-type=feedback-report\r\n'],
    [
      'a boundary never closed',
      'Content-Type: multipart/report; report-type=feedback-report; boundary=b\r\n\r\n--b\r\n',
    ],
    ['binary', Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919) % 256)).toString('latin1')],
  ])('reads garbage (%s) without naming a transaction', async (_name, raw) => {
    expect(named(await parseBounce(raw))).toEqual([]);
  });
});

// ---- property tests ------------------------------------------------------------------------------

/** parseBounce's answer, or the Error it refused with; anything else thrown fails the property. */
async function outcomeOf(raw: string | Buffer): Promise<ParsedBounce | Error> {
  try {
    return await parseBounce(raw);
  } catch (err) {
    expect(err).toBeInstanceOf(Error);
    return err as Error;
  }
}

const line = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.constantFrom(
    'Content-Type: message/feedback-report',
    'Content-Type: message/rfc822',
    'Content-Type: text/rfc822-headers',
    'Content-Type: text/plain; charset="utf-16"',
    'Content-Type: text/plain; charset="x-unknown-charset"',
    'Content-Transfer-Encoding: base64',
    'Content-Transfer-Encoding: quoted-printable',
    'Feedback-Type: abuse',
    'Feedback-Type: =?utf-8?B?YWJ1c2U=?=',
    'User-Agent: \u00ff\u00fe\ufffd',
    `Original-Mail-From: <${verpAddress(SECRET, '00000000-0000-4000-8000-000000000000', RETURN_PATH)}>`,
    'Message-ID: <00000000-0000-4000-8000-000000000000@shop.example>',
    '--b',
    '--b--',
    '',
    ' folded',
  ),
);
/** MIME made of report-shaped lines under a multipart/report header, CRLF or bare LF. */
const generatedMime = fc
  .tuple(fc.array(line, { maxLength: 60 }), fc.constantFrom('\r\n', '\n'))
  .map(([lines, eol]) =>
    ['Content-Type: multipart/report; report-type=feedback-report; boundary="b"', '', ...lines].join(eol),
  );

describe('parseBounce properties (fast-check)', () => {
  const secrets: ReturnPathKeys = { secret: 'another-secret-another-secret-0123456789', returnPathDomain: RETURN_PATH };

  it('generated MIME: answers or refuses with an Error, and names nothing under another secret', async () => {
    await fc.assert(
      fc.asyncProperty(generatedMime, async (raw) => {
        const parsed = await outcomeOf(raw);
        if (parsed instanceof Error || !parsed.feedback) return;
        expect(['complaint', 'unsubscribe', 'none']).toContain(feedbackActionOf(parsed.feedback.feedbackType));
        expect(reportedTransactions(secrets, parsed.feedback, parsed.original, null)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('every report cut short: answers or refuses with an Error', async () => {
    const sent = apiMessage();
    const reports = ['yahoo-abuse.eml', 'microsoft-jmrp.eml', 'headers-only.eml'].map((file) =>
      arfFixture(file, values(sent)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...reports), fc.double({ min: 0, max: 1, noNaN: true }), async (raw, cut) => {
        const parsed = await outcomeOf(raw.slice(0, Math.floor(raw.length * cut)));
        if (parsed instanceof Error) return;
        // what a cut report still names is the transaction it was about, or nothing
        expect(named(parsed).every((uuid) => uuid === sent.uuid)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('huge headers and bytes in the wrong charset: answers or refuses with an Error', async () => {
    const sent = apiMessage();
    const report = arfFixture('yahoo-abuse.eml', values(sent));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(1_000, 100_000, 2_000_000),
        fc.uint8Array({ minLength: 1, maxLength: 400 }),
        async (size, bytes) => {
          // a header line of `size` bytes, and random bytes (no charset at all) as the report's User-Agent
          const [before, after] = report.split('Yahoo!-Mail-Feedback/2.0');
          const raw = Buffer.concat([
            Buffer.from(`X-Huge: ${'a'.repeat(size)}\r\n${before}`, 'latin1'),
            Buffer.from(bytes),
            Buffer.from(after, 'latin1'),
          ]);
          await outcomeOf(raw);
        },
      ),
      { numRuns: 30 },
    );
  });
});
