import { describe, expect, it } from 'vitest';
import {
  type DsnRecipient,
  MAX_REASON_LENGTH,
  classifyBounce,
  classifyRecipient,
  cleanDiagnostic,
  pickRecipient,
} from '../../src/server/bounces/dsn.ts';
import { saysNoSuchAddress } from '../../src/server/delivery/remote-answer.ts';
import { fieldGroups, parseBounce, parseDeliveryStatus } from '../../src/server/bounces/parse-dsn.ts';
import { dsnFixture } from '../helpers/dsn-fixture.ts';

const block = (action: string | null, status: string | null, diagnosticCode: string | null = null): DsnRecipient => ({
  finalRecipient: 'ann@customer.example',
  originalRecipient: null,
  action,
  status,
  diagnosticCode,
});

// What a DSN adds to the verdict on the answer it quotes (src/server/delivery/remote-answer.ts, the
// one a reply during delivery gets; its table of real replies is tests/unit/remote-answer.test.ts):
// which Action is a bounce at all, where the status comes from, what a block without one means.
describe('classifyRecipient (RFC 3463 / RFC 3464 §2.3.3)', () => {
  it.each([
    // addressing status: the address is gone
    ['failed', '5.1.1', 'smtp; 550 5.1.1 User unknown', 'hard', '5.1.1', 'invalid_recipient'],
    ['failed', '5.1.2', 'smtp; 550 5.1.2 Domain not found', 'hard', '5.1.2', 'invalid_recipient'],
    ['failed', '5.1.10', 'smtp;550 5.1.10 RESOLVER.ADR.RecipientNotFound', 'hard', '5.1.10', 'invalid_recipient'],
    ['failed', '5.1.1 (bad destination mailbox address)', null, 'hard', '5.1.1', 'invalid_recipient'],
    // X.0.0 is undefined detail: the words decide
    ['failed', '5.0.0', 'smtp; 550 No such user here', 'hard', '5.0.0', 'invalid_recipient'],
    ['failed', '5.0.0', 'smtp; 550 5.1.1 <ann@customer.example> User unknown', 'hard', '5.1.1', 'invalid_recipient'],
    ['failed', '5.0.0', 'smtp; 552 Mailbox is over quota', 'soft', '5.0.0', 'mailbox_full'],
    // Only a no-such-recipient answer is hard: these were hard before and say nothing certain against the
    // address. A disabled mailbox may be enabled again (RFC 3463 §3.3); Postfix's 5.4.4 is its own DNS
    // failing on the way; a bare 550 says nothing at all.
    [
      'failed',
      '5.2.1',
      'smtp; 550 5.2.1 The email account that you tried to reach is disabled',
      'soft',
      '5.2.1',
      'mailbox_disabled',
    ],
    ['failed', '5.4.4', 'X-Postfix; Host or domain name not found', 'soft', '5.4.4', 'routing'],
    ['failed', '5.0.0', 'smtp; 550 Requested action not taken', 'soft', '5.0.0', 'unknown'],
    // a specific code is believed over the words (these were hard by their text before)
    ['failed', '5.7.1', 'smtp; 550 5.7.1 Unknown recipient', 'soft', '5.7.1', 'policy_block'],
    ['failed', '5.4.1', 'smtp; 550 5.4.1 Recipient address rejected: no such user', 'soft', '5.4.1', 'routing'],
    // permanent codes that say nothing against the address
    ['failed', '5.2.2', 'smtp; 552 5.2.2 Mailbox full', 'soft', '5.2.2', 'mailbox_full'],
    ['failed', '5.2.3', 'smtp; 552 5.2.3 Message too long for this mailbox', 'soft', '5.2.3', 'message_too_large'],
    ['failed', '5.3.4', 'smtp; 552 5.3.4 Message size exceeds fixed limit', 'soft', '5.3.4', 'message_too_large'],
    ['failed', '5.4.1', 'smtp; 550 5.4.1 No answer from host', 'soft', '5.4.1', 'routing'],
    ['failed', '5.4.7', 'X-Postfix; delivery time expired', 'soft', '5.4.7', 'routing'],
    ['failed', '5.5.0', 'smtp; 500 5.5.0 Syntax error', 'soft', '5.5.0', 'protocol'],
    ['failed', '5.6.1', 'smtp; 554 5.6.1 Media not supported', 'soft', '5.6.1', 'protocol'],
    ['failed', '5.7.1', 'smtp; 554 5.7.1 Message rejected as spam', 'soft', '5.7.1', 'spam_block'],
    [
      'failed',
      '5.7.26',
      'smtp; 550 5.7.26 Unauthenticated email is not accepted (DMARC)',
      'soft',
      '5.7.26',
      'authentication',
    ],
    // class 4 the remote gave up on: soft, whatever the words
    ['failed', '4.2.2', 'SMTP; 452 4.2.2 Mailbox full', 'soft', '4.2.2', 'transient'],
    ['failed', '4.4.7', 'X-Postfix; delivery time expired', 'soft', '4.4.7', 'transient'],
    ['failed', '4.1.1', 'smtp; 450 4.1.1 User unknown (try again later)', 'soft', '4.1.1', 'transient'],
    // the Status field is the reporting MTA's last word: a quoted reply of another class is left out
    ['failed', '5.4.7', 'smtp; 451 4.4.0 Connection timed out', 'soft', '5.4.7', 'routing'],
    // not a failure report
    ['delayed', '4.4.1', 'X-Postfix; connect to mx: Connection timed out', 'not_a_bounce', '4.4.1', null],
    ['delayed', '5.1.1', null, 'not_a_bounce', '5.1.1', null],
    ['delivered', '2.0.0', 'smtp; 250 2.0.0 OK', 'not_a_bounce', '2.0.0', null],
    ['relayed', '2.0.0', null, 'not_a_bounce', '2.0.0', null],
    ['expanded', '2.0.0', null, 'not_a_bounce', '2.0.0', null],
    ['failed', '2.0.0', null, 'not_a_bounce', '2.0.0', null],
    // missing fields
    [null, '5.1.1', null, 'hard', '5.1.1', 'invalid_recipient'],
    ['failed', null, 'smtp; 550 5.1.1 User unknown', 'hard', '5.1.1', 'invalid_recipient'],
    ['failed', null, 'smtp; 550 Mailbox unavailable', 'soft', '5.0.0', 'unknown'],
    ['failed', null, 'smtp; 451 Try later', 'soft', '4.0.0', 'transient'],
    ['failed', null, 'Recipient address does not exist', 'hard', null, 'invalid_recipient'],
    ['failed', null, 'something went wrong', 'not_a_bounce', null, null],
    ['failed', null, null, 'not_a_bounce', null, null],
  ] as const)('%s %s %s → %s', (action, status, diagnostic, kind, code, category) => {
    const result = classifyRecipient(block(action, status, diagnostic));
    expect(result.kind).toBe(kind);
    expect(result.status).toBe(code);
    expect('verdict' in result ? result.verdict.category : null).toBe(category);
  });

  it('gives the diagnostic as the reason, or says what decided', () => {
    expect(classifyRecipient(block('failed', '5.1.1', 'smtp; 550 5.1.1 User unknown')).reason).toBe(
      '550 5.1.1 User unknown',
    );
    expect(classifyRecipient(block('failed', '5.1.1')).reason).toBe('Status 5.1.1');
    expect(classifyRecipient(block('delayed', '4.4.1', 'X-Postfix; timed out')).reason).toBe('Action: delayed');
  });
});

describe('saysNoSuchAddress', () => {
  it.each([
    ['550 5.1.1 <a@b.example>: Recipient address rejected: User unknown in virtual mailbox table', true],
    ['The email account that you tried to reach does not exist.', true],
    ['RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup', true],
    ['Sorry, no mailbox here by that name. (#5.1.1)', true],
    ['No such user here', true],
    ['unknown recipient', true],
    ['This mailbox no longer exists', true],
    ['Unrouteable address', true],
    ["This user doesn't have a yahoo.com account", true],
    ['Verification failed for <orders@shop.example> Unrouteable address Sender verify failed', false],
    ['Mailbox unavailable', false],
    ['I am out of the office until Monday', false],
    ['The file you asked for does not exist', false],
    ['Mailbox full', false],
  ] as const)('%s → %s', (text, expected) => {
    expect(saysNoSuchAddress(text)).toBe(expected);
  });
});

describe('cleanDiagnostic', () => {
  it.each([
    ['smtp; 550 5.1.1 User unknown', '550 5.1.1 User unknown'],
    ['SMTP;  452 4.2.2   Mailbox\r\n    full', '452 4.2.2 Mailbox full'],
    ['X-Postfix; Host or domain name not found', 'Host or domain name not found'],
    [
      'smtp; 550-5.1.1 The account does not exist. Please try\r\n 550-5.1.1 double-checking.\r\n 550 5.1.1  ' +
        'https://support.example/p - gsmtp',
      '550 5.1.1 The account does not exist. Please try double-checking. https://support.example/p - gsmtp',
    ],
    ['smtp; 554-Rejected\r\n 554-for policy\r\n 554 reasons', '554 Rejected for policy reasons'],
    ['no type at all', 'no type at all'],
  ])('%j → %j', (input, output) => {
    expect(cleanDiagnostic(input)).toBe(output);
  });

  it(`stops at ${MAX_REASON_LENGTH} characters`, () => {
    const long = cleanDiagnostic(`smtp; 550 5.1.1 ${'x'.repeat(2000)}`);
    expect(long.length).toBe(MAX_REASON_LENGTH);
    expect(long.endsWith('…')).toBe(true);
  });
});

describe('pickRecipient', () => {
  const others = { originalRecipient: null, status: '5.1.1', diagnosticCode: null };
  const blocks: DsnRecipient[] = [
    { ...others, finalRecipient: 'list@customer.example', action: 'expanded' },
    { ...others, finalRecipient: 'bob@customer.example', action: 'failed' },
    {
      ...others,
      finalRecipient: 'forwarded@elsewhere.example',
      originalRecipient: 'Ann@Customer.example',
      action: 'delivered',
    },
  ];

  it('takes the block about the recipient (Final- or Original-Recipient, any case)', () => {
    expect(pickRecipient(blocks, 'ann@customer.example')).toBe(blocks[2]);
    expect(pickRecipient(blocks, 'BOB@customer.example')).toBe(blocks[1]);
  });

  it('else the first failed block, else the first', () => {
    expect(pickRecipient(blocks, 'nobody@customer.example')).toBe(blocks[1]);
    expect(pickRecipient([blocks[0], blocks[2]])).toBe(blocks[0]);
    expect(pickRecipient([])).toBeUndefined();
  });
});

describe('classifyBounce without a delivery-status part', () => {
  it.each([
    [
      'qmail',
      'Hi. This is the qmail-send program.\n<ann@customer.example>:\nSorry, no mailbox here by that name. (#5.1.1)\n',
      'hard',
      '5.1.1',
    ],
    [
      'plain text, SMTP reply',
      'Delivery failed.\n  550 5.1.1 <ann@customer.example>... User unknown\n',
      'hard',
      '5.1.1',
    ],
    ['plain text, no code', 'Your message could not be delivered: the address does not exist.', 'hard', null],
    ['wrapped across lines', 'The recipient\nis unknown here.', 'hard', null],
    ['out of office', 'I am out of the office until 20 January.', 'not_a_bounce', null],
    ['mailbox full, no DSN', 'Delivery failed: mailbox full (#4.2.2)', 'not_a_bounce', null],
    ['empty', '', 'not_a_bounce', null],
  ] as const)('%s → %s', (_name, text, kind, status) => {
    const result = classifyBounce({ isReport: false, recipients: [], text });
    expect(result.kind).toBe(kind);
    expect(result.status).toBe(status);
  });

  it('quotes the line that says so', () => {
    expect(
      classifyBounce({
        isReport: false,
        recipients: [],
        text: 'Hi.\n<a@b.example>:\nSorry, no mailbox here by that name. (#5.1.1)\n\nBye',
      }).reason,
    ).toBe('Sorry, no mailbox here by that name. (#5.1.1)');
  });

  it('follows the delivery report over the human text', () => {
    const fields = { isReport: true, recipients: [block('delayed', '4.4.1')], text: 'User unknown' };
    expect(classifyBounce(fields).kind).toBe('not_a_bounce');
  });
});

describe('parseDeliveryStatus (RFC 3464 §2.1)', () => {
  it('reads per-message fields, then one block per recipient, unfolding continuation lines', () => {
    const body = [
      'Reporting-MTA: dns; mx.customer.example',
      'Arrival-Date: Tue, 14 Jan 2025',
      '   10:12:02 +0000',
      '',
      'Final-Recipient: rfc822; ann@customer.example',
      'Action: failed',
      'Status: 5.1.1',
      'Diagnostic-Code: smtp; 550 5.1.1 <ann@customer.example>: Recipient',
      '\taddress rejected: User unknown',
      '',
      '',
      'final-recipient: RFC822;<Bob@Customer.example>',
      'original-recipient: rfc822;bob@customer.example',
      'ACTION: Delayed (still trying)',
      'status: 4.4.1',
      '',
    ].join('\r\n');
    const { perMessage, recipients } = parseDeliveryStatus(body);
    expect(perMessage).toEqual({
      'reporting-mta': 'dns; mx.customer.example',
      'arrival-date': 'Tue, 14 Jan 2025   10:12:02 +0000',
    });
    expect(recipients).toEqual([
      {
        finalRecipient: 'ann@customer.example',
        originalRecipient: null,
        action: 'failed',
        status: '5.1.1',
        diagnosticCode: 'smtp; 550 5.1.1 <ann@customer.example>: Recipient\taddress rejected: User unknown',
      },
      {
        finalRecipient: 'Bob@Customer.example',
        originalRecipient: 'bob@customer.example',
        action: 'delayed',
        status: '4.4.1',
        diagnosticCode: null,
      },
    ]);
  });

  it('copes with leading blank lines and a report that has no per-message group', () => {
    const { perMessage, recipients } = parseDeliveryStatus(
      '\n\nFinal-Recipient: rfc822; a@b.example\nAction: failed\nStatus: 5.1.1\n',
    );
    expect(perMessage).toEqual({});
    expect(recipients.map((r) => r.status)).toEqual(['5.1.1']);
  });

  it('keeps the first of a repeated field and skips lines that are not fields', () => {
    expect(fieldGroups('Status: 5.1.1\nnot a field\nStatus: 4.4.1\n  folded into the ignored copy\n')).toEqual([
      { status: '5.1.1' },
    ]);
  });
});

describe('parseBounce on real-world shapes', () => {
  const values = {
    verp: 'bounces+0123456789abcdef0123456789abcdef.0123456789ab@rp.transact.test',
    recipient: 'nobody@customer.example',
    messageId: '<order-1001@shop.example>',
  };

  it.each([
    [
      'postfix-user-unknown.eml',
      true,
      'hard',
      '5.1.1',
      /^550 5\.1\.1 <nobody@customer\.example>: Recipient address rejected: User unknown in virtual mailbox table$/,
    ],
    [
      'exchange-recipient-not-found.eml',
      true,
      'hard',
      '5.1.10',
      /^550 5\.1\.10 RESOLVER\.ADR\.RecipientNotFound; Recipient not found by SMTP address lookup$/,
    ],
    [
      'gmail-no-such-user.eml',
      true,
      'hard',
      '5.1.1',
      /^550 5\.1\.1 The email account that you tried to reach does not exist\. Please try double-checking .* - gsmtp$/,
    ],
    ['sendmail-mailbox-full.eml', true, 'soft', '4.2.2', /^452 4\.2\.2 <nobody@customer\.example>\.\.\. Mailbox full$/],
    ['postfix-delayed.eml', true, 'not_a_bounce', '4.4.1', /^Action: delayed$/],
    ['qmail-plain-text.eml', false, 'hard', '5.1.1', /^Sorry, no mailbox here by that name\. \(#5\.1\.1\)$/],
    ['auto-reply.eml', false, 'not_a_bounce', null, /no delivery status/],
  ] as const)('%s → %s %s %s', async (file, isReport, kind, status, reason) => {
    const parsed = await parseBounce(dsnFixture(file, values));
    expect(parsed.isReport).toBe(isReport);
    const result = classifyBounce(parsed, values.recipient);
    const verdict =
      kind === 'hard'
        ? { verdict: { retry: false, address: 'bad', category: 'invalid_recipient' } }
        : kind === 'soft'
          ? { verdict: { retry: true, address: 'ok', category: 'transient' } }
          : {};
    expect(result).toEqual({ kind, status, reason: expect.stringMatching(reason), ...verdict });
  });

  it.each([
    ['postfix-user-unknown.eml', '<order-1001@shop.example>'], // message/rfc822
    ['exchange-recipient-not-found.eml', '<order-1001@shop.example>'], // text/rfc822-headers
    ['gmail-no-such-user.eml', '<order-1001@shop.example>'],
    ['sendmail-mailbox-full.eml', '<order-1001@shop.example>'],
    ['qmail-plain-text.eml', '<order-1001@shop.example>'], // quoted in the text
    ['auto-reply.eml', null],
  ])('%s names the original message %s', async (file, messageId) => {
    expect((await parseBounce(dsnFixture(file, values))).originalMessageId).toBe(messageId);
  });

  it('reads the recipient blocks of a Postfix report', async () => {
    const parsed = await parseBounce(dsnFixture('postfix-user-unknown.eml', values));
    expect(parsed.perMessage['reporting-mta']).toBe('dns; mx1.customer.example');
    expect(parsed.recipients).toEqual([
      {
        finalRecipient: 'nobody@customer.example',
        originalRecipient: 'nobody@customer.example',
        action: 'failed',
        status: '5.1.1',
        diagnosticCode:
          'smtp; 550 5.1.1 <nobody@customer.example>: Recipient address    rejected: User unknown in virtual mailbox ' +
          'table',
      },
    ]);
  });
});
