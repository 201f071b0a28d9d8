// One verdict per remote answer (src/server/delivery/remote-answer.ts), table by table, on replies as
// the big providers and the common MTAs really phrase them. Each reply is asked twice: as the
// worker hears it during delivery (classifyReply, code and text as nodemailer reports them, lines
// joined by "\n"), and quoted in a DSN a relay sends back later (a whole multipart/report through
// parseBounce and classifyBounce). Both must come to the same verdict.
import { describe, expect, it } from 'vitest';
import type { AnswerCategory } from '../../src/contract/values.ts';
import { classifyBounce } from '../../src/server/bounces/dsn.ts';
import { parseBounce } from '../../src/server/bounces/parse-dsn.ts';
import {
  type AnswerVerdict,
  answerText,
  classifyAnswer,
  enhancedCodeIn,
  replyCodeIn,
} from '../../src/server/delivery/remote-answer.ts';
import { classifyReply } from '../../src/server/delivery/smtp-reply.ts';
import { dsnOfReply } from '../helpers/dsn-fixture.ts';

const gone: AnswerVerdict = { retry: false, address: 'bad', category: 'invalid_recipient' };
const later: AnswerVerdict = { retry: true, address: 'ok', category: 'transient' };
const failed = (category: AnswerCategory): AnswerVerdict => ({ retry: false, address: 'ok', category });

type Row = [source: string, code: number, reply: string, verdict: AnswerVerdict];

const IP = '203.0.113.9';

const GMAIL: Row[] = [
  [
    'Gmail, no such user',
    550,
    '550-5.1.1 The email account that you tried to reach does not exist. Please try\n' +
      "550-5.1.1 double-checking the recipient's email address for typos or\n" +
      '550-5.1.1 unnecessary spaces. Learn more at\n' +
      '550 5.1.1  https://support.google.com/mail/?p=NoSuchUser 41be03b00d2f7-7c5c3f3b0a5si1234567a12.33 - gsmtp',
    gone,
  ],
  [
    'Gmail, disabled account',
    550,
    '550-5.2.1 The email account that you tried to reach is disabled. Learn more at\n' +
      '550 5.2.1  https://support.google.com/mail/?p=DisabledUser d2e1a72fcca58-73bc8b4d1e7si1234567b3a.102 - gsmtp',
    failed('mailbox_disabled'),
  ],
  [
    'Gmail, over quota for good',
    552,
    '552-5.2.2 The email account that you tried to reach is over quota. Please direct\n' +
      '552-5.2.2 the recipient to\n' +
      '552 5.2.2  https://support.google.com/mail/?p=OverQuotaPerm a640c23a62f3a-ab7d2a6b9c3si1234567766b.411 - gsmtp',
    failed('mailbox_full'),
  ],
  [
    'Gmail, over quota for now',
    452,
    '452-4.2.2 The email account that you tried to reach is over quota. Please direct\n' +
      '452-4.2.2 the recipient to\n' +
      '452 4.2.2  https://support.google.com/mail/?p=OverQuotaTemp 5b1f17b1804b1-436e2a7c3b1si1234567f9.120 - gsmtp',
    later,
  ],
  [
    'Gmail, message too large',
    552,
    "552-5.2.3 Your message exceeded Google's message size limits. Please visit\n" +
      '552-5.2.3  https://support.google.com/mail/?p=MaxSizeError to view our size\n' +
      '552 5.2.3 guidelines. 98e67ed59e1d1-2f2d6e4a1c3si1234567a91.55 - gsmtp',
    failed('message_too_large'),
  ],
  [
    'Gmail, unsolicited mail',
    550,
    `550-5.7.1 [${IP}] Our system has detected that this message is likely\n` +
      '550-5.7.1 unsolicited mail. To reduce the amount of spam sent to Gmail, this\n' +
      '550-5.7.1 message has been blocked. For more information, go to\n' +
      '550 5.7.1  https://support.google.com/mail/?p=UnsolicitedMessageError d75a77b69052e-46f1e2si1.301 - gsmtp',
    failed('spam_block'),
  ],
  [
    'Gmail, low reputation',
    550,
    `550-5.7.1 [${IP}] Gmail has detected that this message is likely\n` +
      '550-5.7.1 suspicious due to the very low reputation of the sending domain. To\n' +
      '550-5.7.1 best protect our users from spam, the message has been blocked.\n' +
      '550 5.7.1  https://support.google.com/mail/?p=UnsolicitedMessageError 6a1803df08f44-6e1f2si6.88 - gsmtp',
    failed('policy_block'),
  ],
  [
    'Gmail, IP not authorised to send directly',
    550,
    `550-5.7.1 [${IP}] The IP you're using to send mail is not authorized to\n` +
      '550-5.7.1 send email directly to our servers. Please use the SMTP relay at your\n' +
      '550-5.7.1 service provider instead. For more information, go to\n' +
      '550 5.7.1  https://support.google.com/mail/?p=NotAuthorizedError 5b1f17b1804b1-4362a1b2c3dsi12f9.3 - gsmtp',
    failed('policy_block'),
  ],
  [
    'Gmail, sender unauthenticated',
    550,
    '550-5.7.26 This mail has been blocked because the sender is unauthenticated.\n' +
      '550-5.7.26 Gmail requires all senders to authenticate with either SPF or DKIM.\n' +
      '550-5.7.26 \n' +
      '550-5.7.26  Authentication results:\n' +
      '550-5.7.26  DKIM = did not pass\n' +
      `550-5.7.26  SPF [shop.example] with ip: [${IP}] = did not pass\n` +
      '550-5.7.26 \n' +
      '550-5.7.26  For instructions on setting up authentication, go to\n' +
      '550 5.7.26  https://support.google.com/mail/answer/81126#authentication 41be03b00d2f7-7e1asi2.19 - gsmtp',
    failed('authentication'),
  ],
  [
    'Gmail, DMARC policy',
    550,
    "550-5.7.26 Unauthenticated email from shop.example is not accepted due to domain's\n" +
      '550-5.7.26 DMARC policy. Please contact the administrator of shop.example domain\n' +
      '550-5.7.26 if this was a legitimate mail. To learn about the DMARC initiative, go\n' +
      '550 5.7.26  https://support.google.com/mail/?p=DmarcRejection 2adb3069b0e04-5401a2b3c4dsi1234567e87.21 - gsmtp',
    failed('authentication'),
  ],
  [
    'Gmail, no PTR record',
    550,
    `550-5.7.25 [${IP}] The IP address sending this message does not have a\n` +
      '550-5.7.25 PTR record setup, or the corresponding forward DNS entry does not\n' +
      '550-5.7.25 point to the sending IP. As a policy, Gmail does not accept messages\n' +
      '550-5.7.25 from IPs with missing PTR records. For more information, go to\n' +
      '550 5.7.25  https://support.google.com/mail/answer/81126#ip-practices 38308e7fff4ca-30bd1a2b3c4si1fa.9 - gsmtp',
    failed('authentication'),
  ],
  [
    'Gmail, malformed message',
    554,
    '554 5.6.0 Mail message is malformed. Not accepted. 8a1b2c3d4e5f - gsmtp',
    failed('protocol'),
  ],
  [
    'Gmail, unusual rate',
    421,
    `421-4.7.28 [${IP}      15] Gmail has detected an unusual rate of unsolicited mail\n` +
      '421-4.7.28 originating from your DKIM domain [shop.example      15]. To protect our\n' +
      '421-4.7.28 users from spam, mail sent from your domain has been temporarily rate\n' +
      '421 4.7.28 limited. https://support.google.com/mail/?p=UnsolicitedRateLimitError 5b1f17b1 - gsmtp',
    later,
  ],
  [
    'Gmail, closing the connection',
    421,
    '421-4.7.0 Try again later, closing connection. (EHLO)\n' +
      '421 4.7.0  For more information, go to https://support.google.com/mail/?p=... 41be03b00d2f7 - gsmtp',
    later,
  ],
];

const OUTLOOK: Row[] = [
  [
    'Exchange Online, recipient not found',
    550,
    '550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient nobody@contoso.com not found by SMTP address lookup',
    gone,
  ],
  [
    'Exchange Online, directory-based edge blocking',
    550,
    '550 5.4.1 Recipient address rejected: Access denied. AS(201806281) ' +
      '[DM6NAM12FT012.eop-nam12.prod.protection.outlook.com 2025-01-14T10:12:06.123Z 08DD33A1B2C3D4E5]',
    failed('routing'),
  ],
  [
    'Outlook, Spamhaus listing',
    550,
    `550 5.7.1 Service unavailable, Client host [${IP}] blocked using Spamhaus. To request removal from this list ` +
      `see https://www.spamhaus.org/query/ip/${IP} (AS3130). ` +
      '[BN8NAM11FT066.eop-nam11.prod.protection.outlook.com 2025-01-14T10:12:06.123Z 08DD33A1B2C3D4E5]',
    failed('policy_block'),
  ],
  [
    'Outlook.com, own block list',
    550,
    `550 5.7.1 Unfortunately, messages from [${IP}] weren't sent. Please contact your Internet service provider ` +
      'since part of their network is on our block list (S3150). You can also refer your provider to ' +
      'http://mail.live.com/mail/troubleshooting.aspx#errors. ' +
      '[AM4PEPF00027A5F.eurprd04.prod.outlook.com 2025-01-14T10:12:06.123Z 08DD33A1B2C3D4E5]',
    failed('policy_block'),
  ],
  [
    'Outlook, DMARC reject',
    550,
    '550 5.7.509 Access denied, sending domain shop.example does not pass DMARC verification and has a DMARC ' +
      'policy of reject. [BL6PEPF0001AB4F.namprd04.prod.outlook.com 2025-01-14T10:12:06.123Z 08DD33A1B2C3D4E5]',
    failed('authentication'),
  ],
  [
    'Outlook.com, sender requirements',
    550,
    "550 5.7.515 Access denied, sending domain shop.example doesn't meet the required authentication level. " +
      "The sender's domain in the 5322.From address doesn't meet the authentication requirements defined for the " +
      'sender. To learn more, visit https://aka.ms/SenderRequirements',
    failed('authentication'),
  ],
  [
    'Exchange Online, IP not accepted',
    550,
    '550 5.7.708 Service unavailable. Access denied, traffic not accepted from this IP. For more information ' +
      'please go to http://go.microsoft.com/fwlink/?LinkId=526653 AS(7230) ' +
      '[DB5EUR03FT012.eop-EUR03.prod.protection.outlook.com 2025-01-14T10:12:06.123Z 08DD33A1B2C3D4E5]',
    failed('policy_block'),
  ],
  [
    'Exchange Online, banned sending IP',
    550,
    `550 5.7.606 Access denied, banned sending IP [${IP}]. To request removal from this list please visit ` +
      'https://sender.office.com/ and follow the directions. For more information please go to ' +
      'http://go.microsoft.com/fwlink/?LinkID=526655 AS(1430)',
    failed('policy_block'),
  ],
  [
    'Exchange Online, external forwarding',
    550,
    '550 5.7.520 Access denied, Your organization does not allow external forwarding. Please contact your ' +
      'administrator for further assistance. AS(7555)',
    failed('policy_block'),
  ],
  // Outlook.com's answer for an address it does not have: X.5.0 and vague words, so it is not
  // taken as proof that the address is gone
  [
    'Outlook.com, mailbox unavailable',
    550,
    '550 5.5.0 Requested action not taken: mailbox unavailable (S2017062302). ' +
      '[VI1EUR04FT034.eop-eur04.prod.protection.outlook.com 2025-01-14T10:12:06.123Z 08DD33A1B2C3D4E5]',
    failed('protocol'),
  ],
  [
    'Exchange Online, message too large',
    552,
    '552 5.3.4 Message size exceeds fixed maximum message size',
    failed('message_too_large'),
  ],
  [
    'Exchange Online, server busy',
    451,
    `451 4.7.500 Server busy. Please try again later from [${IP}]. (S77719) ` +
      '[AM3PEPF0000A78E.eurprd04.prod.outlook.com 2025-01-14T10:12:06.123Z 08DD33A1B2C3D4E5]',
    later,
  ],
];

const YAHOO: Row[] = [
  [
    'Yahoo, no such account',
    554,
    "554 delivery error: dd This user doesn't have a yahoo.com account (nobody@yahoo.com) [0] - " +
      'mta4012.mail.gq1.yahoo.com',
    gone,
  ],
  ['AOL, mailbox not found', 552, '552 1 Requested mail action aborted, mailbox not found', gone],
  [
    'Yahoo, disabled mailbox',
    554,
    '554 delivery error: dd Sorry your message to nobody@yahoo.com cannot be delivered. This mailbox is disabled ' +
      '(554.30). - mta1234.mail.bf1.yahoo.com',
    failed('mailbox_disabled'),
  ],
  [
    'Yahoo, Spamhaus listing',
    553,
    `553 5.7.1 [BL21] Connections will not be accepted from ${IP}, because the ip is in Spamhaus's list; ` +
      'see https://postmaster.yahooinc.com/error-codes',
    failed('policy_block'),
  ],
  [
    'Yahoo, policy reasons',
    554,
    '554 5.7.9 Message not accepted for policy reasons.  See https://senders.yahooinc.com/error-codes',
    failed('policy_block'),
  ],
  [
    'Yahoo, sender unauthenticated',
    550,
    '550 5.7.9 This mail has been blocked because the sender is unauthenticated. Yahoo requires all senders to ' +
      'authenticate with either SPF or DKIM.',
    failed('authentication'),
  ],
  [
    'Yahoo, permanently deferred',
    550,
    `550 5.7.1 [TSS09] All messages from ${IP} will be permanently deferred; Retrying will NOT succeed. ` +
      'See https://postmaster.yahooinc.com/error-codes',
    failed('policy_block'),
  ],
  [
    'Yahoo, volume or complaints',
    421,
    `421 4.7.0 [TSS04] Messages from ${IP} temporarily deferred due to unexpected volume or user complaints - ` +
      '4.16.55.1; see https://postmaster.yahooinc.com/error-codes',
    later,
  ],
  [
    'Yahoo, unresolvable sender domain',
    451,
    '451 Message temporarily deferred due to unresolvable RFC.5321 from domain; ' +
      'see https://postmaster.yahooinc.com/error-codes',
    later,
  ],
];

const ICLOUD: Row[] = [
  ['iCloud, no such user', 550, '550 5.1.1 <nobody@icloud.com>: user does not exist', gone],
  ['iCloud, over quota', 552, '552 5.2.2 <full@icloud.com>: user is over quota', failed('mailbox_full')],
  [
    'iCloud, local policy',
    554,
    '554 5.7.1 [CS01] Message rejected due to local policy. Please visit https://support.apple.com/en-us/HT204137',
    failed('policy_block'),
  ],
  [
    'Proofpoint, DNSBL',
    550,
    `550 5.7.0 Blocked - see https://support.proofpoint.com/dnsbl-lookup.cgi?ip=${IP}`,
    failed('policy_block'),
  ],
];

const POSTFIX: Row[] = [
  [
    'Postfix, virtual mailbox table',
    550,
    '550 5.1.1 <nobody@customer.example>: Recipient address rejected: User unknown in virtual mailbox table',
    gone,
  ],
  [
    'Postfix, local recipient table',
    550,
    '550 5.1.1 <nobody@customer.example>: Recipient address rejected: User unknown in local recipient table',
    gone,
  ],
  [
    'Postfix, domain not found',
    550,
    '550 5.1.2 <nobody@nowhere.example>: Recipient address rejected: Domain not found',
    gone,
  ],
  [
    'Postfix, zen.spamhaus.org',
    554,
    `554 5.7.1 Service unavailable; Client host [${IP}] blocked using zen.spamhaus.org; ` +
      `https://www.spamhaus.org/query/ip/${IP}`,
    failed('policy_block'),
  ],
  [
    'Postfix, relay access denied',
    554,
    '554 5.7.1 <ann@customer.example>: Relay access denied',
    failed('policy_block'),
  ],
  [
    'Postfix, policyd-spf',
    550,
    '550 5.7.23 <ann@customer.example>: Recipient address rejected: Message rejected due to: SPF fail - not ' +
      `authorized. Please see http://www.openspf.net/Why?s=mfrom;id=orders@shop.example;ip=${IP};r=customer.example`,
    failed('authentication'),
  ],
  ['Postfix, message size', 552, '552 5.3.4 Message size exceeds fixed limit', failed('message_too_large')],
  ['Postfix, mail loop', 554, '554 5.4.6 Too many hops', failed('routing')],
  ['Postfix + amavis, spam', 554, '554 5.7.0 Reject, id=26458-01 - spam', failed('spam_block')],
  ['Content filter, spam', 550, '550 5.7.1 Message rejected as spam by Content Filtering.', failed('spam_block')],
  [
    'Dovecot LMTP, quota',
    552,
    '552 5.2.2 <full@customer.example> Quota exceeded (mailbox for user is full)',
    failed('mailbox_full'),
  ],
  [
    'Postfix, greylisting',
    450,
    '450 4.2.0 <ann@customer.example>: Recipient address rejected: Greylisted, see ' +
      'http://postgrey.schweikert.ch/help/customer.example.html',
    later,
  ],
  ['Postfix, storage', 452, '452 4.3.1 Insufficient system storage', later],
  // bad sequence of commands: our client's fault, retried
  [
    'Postfix, bad sequence',
    503,
    '503 5.5.1 Error: need RCPT command',
    { retry: true, address: 'ok', category: 'protocol' },
  ],
];

const EXIM_AND_OTHERS: Row[] = [
  ['Exim, unrouteable', 550, '550 Unrouteable address', gone],
  ['Exim (cPanel), no such user', 550, '550 No such user here', gone],
  // sender verification quotes "Unrouteable address" about our sender: the recipient is not in question
  [
    'Exim, sender verify',
    550,
    '550-Verification failed for <orders@shop.example>\n550-Unrouteable address\n550 Sender verify failed',
    failed('policy_block'),
  ],
  [
    'Exim, black list',
    550,
    `550 Rejected because ${IP} is in a black list at zen.spamhaus.org`,
    failed('policy_block'),
  ],
  ['Exim, size', 552, '552 Message size exceeds maximum permitted', failed('message_too_large')],
  ['Exim, ACL', 550, '550 Administrative prohibition', failed('policy_block')],
  ['Exim, relay', 550, '550 relay not permitted', failed('policy_block')],
  ['Exim, local problem', 451, '451 Temporary local problem - please try later', later],
  ['qmail chkuser', 511, '511 sorry, no mailbox here by that name (#5.1.1 - chkuser)', gone],
  [
    'Mimecast, invalid recipient',
    550,
    '550 Invalid Recipient - https://community.mimecast.com/docs/DOC-1369#550',
    gone,
  ],
  [
    'Mimecast, anti-spoofing',
    550,
    '550 Rejected by header based Anti-Spoofing policy: ann@customer.example - ' +
      'https://community.mimecast.com/docs/DOC-1369#550 [xYz123AbC.us123]',
    failed('policy_block'),
  ],
  [
    'Barracuda, reputation',
    554,
    `554 5.7.1 Service unavailable; Client host [${IP}] blocked using Barracuda Reputation; ` +
      `http://www.barracudanetworks.com/reputation/?r=1&ip=${IP}`,
    failed('policy_block'),
  ],
];

const TABLE: Row[] = [...GMAIL, ...OUTLOOK, ...YAHOO, ...ICLOUD, ...POSTFIX, ...EXIM_AND_OTHERS];

const values = {
  verp: 'bounces+0123456789abcdef0123456789abcdef.0123456789ab@rp.transact.test',
  recipient: 'nobody@customer.example',
  messageId: '<order-1001@shop.example>',
};

describe('one verdict for a reply during delivery and the same reply in a DSN', () => {
  it('is asked of at least 40 real replies', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(TABLE)('%s (%d)', async (_source, code, reply, verdict) => {
    // during delivery: the worker and direct.ts
    expect(classifyReply(code, reply)).toEqual(verdict);
    // later, in a DSN to the bounce receiver
    const parsed = await parseBounce(dsnOfReply(reply, values));
    expect(parsed.isReport).toBe(true);
    const bounce = classifyBounce(parsed, values.recipient);
    expect(bounce).toMatchObject({ kind: verdict.address === 'bad' ? 'hard' : 'soft', verdict });
  });
});

describe('classifyAnswer', () => {
  it.each<[string, Parameters<typeof classifyAnswer>[0], AnswerVerdict]>([
    ['no answer at all', { text: 'ECONNREFUSED: connect ECONNREFUSED 192.0.2.1:25' }, later],
    ['a 4xx, whatever it says', { code: 450, status: '4.1.1', text: '450 4.1.1 User unknown' }, later],
    ['the class of the enhanced code without a reply code', { status: '5.1.1', text: '' }, gone],
    [
      'an enhanced code of another class than the reply is left out',
      { code: 550, status: '4.1.1', text: '' },
      failed('unknown'),
    ],
    ['X.0.0: the words decide', { code: 550, status: '5.0.0', text: '550 5.0.0 <a@b.example>... User unknown' }, gone],
    ['X.0.0 and vague words', { code: 550, status: '5.0.0', text: '550 5.0.0 Mailbox unavailable' }, failed('unknown')],
    // a specific code is believed over the words
    [
      '5.7.1 saying "unknown recipient"',
      { code: 550, status: '5.7.1', text: '550 5.7.1 Unknown recipient' },
      failed('policy_block'),
    ],
    ['5.4.1 saying "no such user"', { code: 550, status: '5.4.1', text: '550 5.4.1 no such user' }, failed('routing')],
    ['X.7.27: our sender domain has a null MX', { code: 550, status: '5.7.27', text: '' }, failed('authentication')],
    ['X.1.8: our sender domain is refused', { code: 553, status: '5.1.8', text: '' }, failed('policy_block')],
    [
      'X.3.x: the remote system',
      { code: 554, status: '5.3.0', text: '554 5.3.0 Other mail system problem' },
      failed('system'),
    ],
  ])('%s', (_name, answer, verdict) => {
    expect(classifyAnswer(answer)).toEqual(verdict);
  });
});

describe('reading an answer', () => {
  it.each([
    [
      '550-5.1.1 The account\n550-5.1.1 does not\n550 5.1.1 exist',
      '550 5.1.1 The account does not exist',
      550,
      '5.1.1',
    ],
    ['smtp; 452 4.2.2   Mailbox\r\n    full', '452 4.2.2 Mailbox full', 452, '4.2.2'],
    ['550 No such user here', '550 No such user here', 550, null],
    ['511 sorry, no mailbox here by that name (#5.1.1 - chkuser)', null, 511, null],
    ['550 #5.1.0 Address rejected', null, 550, '5.1.0'],
    ['5.1.1 User unknown', null, null, '5.1.1'],
    ['X-Postfix; delivery time expired', 'delivery time expired', null, null],
  ] as const)('%j', (input, text, code, status) => {
    if (text !== null) expect(answerText(input)).toBe(text);
    expect(replyCodeIn(input)).toBe(code);
    expect(enhancedCodeIn(input)).toBe(status);
  });
});
