// The bounce receiver end to end: mail sent through POST /v1/mail and delivered by the worker to a
// local sink, then a DSN for it sent over SMTP to its VERP address, as a remote MTA would. And the
// one verdict on a remote answer: the sink refusing a recipient during delivery and a DSN quoting
// the same reply later record the same bounce. Property tests (fast-check) send the receiver
// generated, truncated and oversized DSNs in wrong charsets about unknown messages: every one is
// answered, and no row changes.
import { figuresOf } from '../helpers/figures.ts';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_SECRET, type TestApp, type TestAccount } from '../helpers/app.ts';
import { dsnFixture, dsnOfReply } from '../helpers/dsn-fixture.ts';
import { openDialog } from '../helpers/smtp-dialog.ts';
import { mangled } from '../helpers/mangle.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { verpAddress } from '../../src/server/delivery/verp.ts';
import {
  type BounceReceiver,
  MAX_BOUNCE_BYTES,
  receiveMessage,
  startBounceReceiver,
} from '../../src/server/bounces/receiver.ts';

const RETURN_PATH = 'rp.transact.test';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let receiver: BounceReceiver;
let account: TestAccount;
let apiKey: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, RETURN_PATH_DOMAIN: RETURN_PATH, HOST: '127.0.0.1' });
  account = await app.createAccount();
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
  worker = new DeliveryWorker(app.ctx);
  worker.start();
  receiver = await startBounceReceiver(app.ctx, { port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await receiver?.close();
  await worker?.stop();
  await sink?.close();
  await app?.close();
});

interface Sent {
  uuid: string;
  id: number;
  groupId: number;
  to: string;
  messageId: string;
  verp: string;
}

const transaction = (uuid: string) =>
  app.ctx.db
    .selectFrom('transactions')
    .select([
      'id',
      'group_id',
      'to_email',
      'message_id_header',
      'status',
      'delivered_status',
      'bounce_type',
      'bounce_reason',
    ])
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Sends one message through the API (in its own group, so its stats stand alone) and waits for the worker's attempt.
 */
async function send(to: string, until: 'delivered' | 'deferred' | 'failed' = 'delivered'): Promise<Sent> {
  const res = await app.api.request('http://localhost:4321/v1/mail', {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: 'Shop <orders@shop.example>',
      to,
      subject: 'Your order',
      text: 'Thanks for your order.',
      group: `bounce-${randomUUID()}`,
    }),
  });
  expect(res.status).toBe(202);
  const [{ trans_uuid: uuid }] = (await res.json()).data as { trans_uuid: string }[];
  if (until === 'delivered' || until === 'failed') {
    await waitFor(until, async () => ((await transaction(uuid)).delivered_status !== 'pending' ? true : undefined));
  } else {
    await waitFor('a deferred attempt', async () => {
      const deferred = await app.ctx.db
        .selectFrom('events')
        .innerJoin('transactions', 'transactions.id', 'events.transaction_id')
        .select('events.id')
        .where('transactions.uuid', '=', uuid)
        .where('events.type', '=', 'deferred')
        .executeTakeFirst();
      return deferred ? true : undefined;
    });
  }
  const row = await transaction(uuid);
  return {
    uuid,
    id: row.id,
    groupId: row.group_id,
    to: row.to_email,
    messageId: row.message_id_header,
    verp: verpAddress(TEST_SECRET, uuid, RETURN_PATH),
  };
}

const client = () =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port: receiver.port,
    secure: false,
    tls: { rejectUnauthorized: false },
  });

/** Sends a DSN to `to` with a null reverse path, as RFC 5321 §4.5.5 requires of notifications. */
async function deliverDsn(to: string, raw: string) {
  return client().sendMail({ envelope: { from: '', to: [to] }, raw });
}

const fixtureFor = (file: string, sent: Sent) =>
  dsnFixture(file, { verp: sent.verp, recipient: sent.to, messageId: sent.messageId });

async function statsOf(sent: Sent) {
  const f = await figuresOf(app.ctx.db, account.customerId, sent.groupId);
  return {
    sent: f.sent,
    delivered: f.delivered,
    failed: f.failed,
    bounced: f.bounced,
    hard: f.bouncesHard,
    soft: f.bouncesSoft,
  };
}

const bouncedEvents = (sent: Sent) =>
  app.ctx.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('transaction_id', '=', sent.id)
    .where('type', '=', 'bounced')
    .execute();
const suppression = (email: string) =>
  app.ctx.db
    .selectFrom('suppressions')
    .select(['origin'])
    .where('customer_id', '=', account.customerId)
    .where('email', '=', email)
    .executeTakeFirst();
const count = async (table: 'events' | 'suppressions' | 'daily_stats') =>
  Number(
    (
      await app.ctx.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('bounce receiver: asynchronous DSNs', () => {
  it.each([
    ['postfix-user-unknown.eml', '5.1.1', /^550 5\.1\.1 <[^>]+>: Recipient address rejected: User unknown/],
    ['exchange-recipient-not-found.eml', '5.1.10', /^550 5\.1\.10 RESOLVER\.ADR\.RecipientNotFound/],
    ['gmail-no-such-user.eml', '5.1.1', /^550 5\.1\.1 The email account that you tried to reach does not exist/],
    ['qmail-plain-text.eml', '5.1.1', /^Sorry, no mailbox here by that name/],
  ])('%s: a delivered message becomes a hard bounce, counted and suppressed', async (file, status, reason) => {
    const sent = await send(`gone-${randomUUID().slice(0, 8)}@customer.example`);
    expect(await statsOf(sent)).toMatchObject({ sent: 1, delivered: 1, bounced: 0 });

    const info = await deliverDsn(sent.verp, fixtureFor(file, sent));
    expect(info.response).toMatch(/^250 /);

    expect(await transaction(sent.uuid)).toMatchObject({
      status: 'sent',
      delivered_status: 'bounced',
      bounce_type: 'hard',
      bounce_reason: expect.stringMatching(reason),
    });
    const events = await bouncedEvents(sent);
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual({
      type: 'hard',
      status,
      reason: expect.stringMatching(reason),
      category: 'invalid_recipient',
    });
    // one transaction, one state: no longer delivered, bounced (and still sent: it was handed over)
    expect(await statsOf(sent)).toEqual({ sent: 1, delivered: 0, failed: 0, bounced: 1, hard: 1, soft: 0 });
    expect(await suppression(sent.to)).toEqual({ origin: 'bounce' });
  });

  it('counts the same DSN received twice once', async () => {
    const sent = await send(`twice-${randomUUID().slice(0, 8)}@customer.example`);
    const raw = fixtureFor('postfix-user-unknown.eml', sent);
    await deliverDsn(sent.verp, raw);
    const eventsBefore = await count('events');
    const second = await deliverDsn(sent.verp, raw);
    expect(second.response).toMatch(/^250 /);
    expect(await bouncedEvents(sent)).toHaveLength(1);
    expect(await count('events')).toBe(eventsBefore);
    expect(await statsOf(sent)).toMatchObject({ bounced: 1, hard: 1 });
  });

  it('records a mailbox-full DSN the remote gave up on as a soft bounce, without suppressing', async () => {
    const sent = await send(`full-${randomUUID().slice(0, 8)}@customer.example`);
    await deliverDsn(sent.verp, fixtureFor('sendmail-mailbox-full.eml', sent));
    expect(await transaction(sent.uuid)).toMatchObject({
      status: 'sent',
      delivered_status: 'bounced',
      bounce_type: 'soft',
      bounce_reason: expect.stringContaining('4.2.2'),
    });
    expect((await bouncedEvents(sent))[0].data).toMatchObject({ type: 'soft', status: '4.2.2', category: 'transient' });
    expect(await statsOf(sent)).toEqual({ sent: 1, delivered: 0, failed: 0, bounced: 1, hard: 0, soft: 1 });
    expect(await suppression(sent.to)).toBeUndefined();
  });

  it.each(['postfix-delayed.eml', 'auto-reply.eml'])(
    'accepts %s and changes nothing: it is not a bounce',
    async (file) => {
      const sent = await send(`later-${randomUUID().slice(0, 8)}@customer.example`);
      const before = { events: await count('events'), stats: await statsOf(sent) };
      const info = await deliverDsn(sent.verp, fixtureFor(file, sent));
      expect(info.response).toMatch(/^250 /);
      expect(await transaction(sent.uuid)).toMatchObject({
        status: 'sent',
        delivered_status: 'delivered',
        bounce_type: null,
        bounce_reason: null,
      });
      expect(await count('events')).toBe(before.events);
      expect(await statsOf(sent)).toEqual(before.stats);
      expect(await suppression(sent.to)).toBeUndefined();
    },
  );

  it('ignores a DSN about another message sent with our VERP address (backscatter)', async () => {
    const sent = await send(`spoofed-${randomUUID().slice(0, 8)}@customer.example`);
    const eventsBefore = await count('events');
    const raw = dsnFixture('postfix-user-unknown.eml', {
      verp: sent.verp,
      recipient: sent.to,
      messageId: '<spam-123@elsewhere.example>',
    });
    expect((await deliverDsn(sent.verp, raw)).response).toMatch(/^250 /);
    expect(await transaction(sent.uuid)).toMatchObject({ delivered_status: 'delivered', bounce_type: null });
    expect(await count('events')).toBe(eventsBefore);
    expect(await suppression(sent.to)).toBeUndefined();
  });

  it('ends a message still queued for retry as bounced, counting it as the worker counts a bounce', async () => {
    const to = `retry-${randomUUID().slice(0, 8)}@customer.example`;
    sink.replies.set(to, [450, '4.2.0 Greylisted, try again later']);
    const sent = await send(to, 'deferred');
    expect(await transaction(sent.uuid)).toMatchObject({ status: 'queued', delivered_status: 'pending' });
    await deliverDsn(sent.verp, fixtureFor('postfix-user-unknown.eml', sent));
    expect(await transaction(sent.uuid)).toMatchObject({
      status: 'failed',
      delivered_status: 'bounced',
      bounce_type: 'hard',
    });
    const next = await app.ctx.db
      .selectFrom('transactions')
      .select(['next_attempt_at'])
      .where('id', '=', sent.id)
      .executeTakeFirstOrThrow();
    expect(next.next_attempt_at).toBeNull();
    expect(await statsOf(sent)).toEqual({ sent: 1, delivered: 0, failed: 0, bounced: 1, hard: 1, soft: 0 });
    expect(await suppression(to)).toEqual({ origin: 'bounce' });
  });

  it('does not suppress when the customer switched suppression off', async () => {
    await app.ctx.db
      .updateTable('customers')
      .set({ disable_suppression: true })
      .where('id', '=', account.customerId)
      .execute();
    try {
      const sent = await send(`kept-${randomUUID().slice(0, 8)}@customer.example`);
      await deliverDsn(sent.verp, fixtureFor('postfix-user-unknown.eml', sent));
      expect(await transaction(sent.uuid)).toMatchObject({ delivered_status: 'bounced', bounce_type: 'hard' });
      expect(await suppression(sent.to)).toBeUndefined();
    } finally {
      await app.ctx.db
        .updateTable('customers')
        .set({ disable_suppression: false })
        .where('id', '=', account.customerId)
        .execute();
    }
  });
});

describe('bounce receiver: SMTP RCPT TO', () => {
  const before = async () => ({
    events: await count('events'),
    suppressions: await count('suppressions'),
    stats: await count('daily_stats'),
  });

  it('accepts a valid token of an unknown transaction and drops the message', async () => {
    const counts = await before();
    const verp = verpAddress(TEST_SECRET, randomUUID(), RETURN_PATH);
    const raw = dsnFixture('postfix-user-unknown.eml', {
      verp,
      recipient: 'nobody@customer.example',
      messageId: '<x@shop.example>',
    });
    expect((await deliverDsn(verp, raw)).response).toMatch(/^250 /);
    expect(await before()).toEqual(counts);
  });

  it.each([
    ['a forged token', () => verpAddress('another-secret-another-secret-another-secret', randomUUID(), RETURN_PATH)],
    [
      'a token with its MAC cut',
      () => verpAddress(TEST_SECRET, randomUUID(), RETURN_PATH).replace(/\.[0-9a-f]{12}@/, '@'),
    ],
    ['a valid token at another domain', () => verpAddress(TEST_SECRET, randomUUID(), 'elsewhere.example')],
    ['a stranger (relay attempt)', () => 'someone@gmail.com'],
    ['an unsubscribe token with its MAC cut', () => `unsubscribe+${randomUUID().replace(/-/g, '')}@${RETURN_PATH}`],
    // any other local part at the return-path domain is taken: feedback loops report to one
    // (tests/integration/complaints.test.ts)
  ])('refuses %s with 550 5.7.1', async (_name, address) => {
    const dialog = await openDialog(receiver.port);
    expect(await dialog.command('EHLO mx.remote.example')).toMatch(/^250/);
    expect(await dialog.command('MAIL FROM:<>')).toMatch(/^250/);
    expect(await dialog.command(`RCPT TO:<${address()}>`)).toMatch(/^550 5\.7\.1 /);
    dialog.end();
  });

  it('refuses the whole DSN through nodemailer when the only recipient is refused', async () => {
    const counts = await before();
    const sent = await send(`forged-${randomUUID().slice(0, 8)}@customer.example`);
    const forged = sent.verp.replace(/\.[0-9a-f]{12}@/, `.${'0'.repeat(12)}@`);
    await expect(deliverDsn(forged, fixtureFor('postfix-user-unknown.eml', sent))).rejects.toMatchObject({
      responseCode: 550,
      command: 'RCPT TO',
    });
    expect(await transaction(sent.uuid)).toMatchObject({ delivered_status: 'delivered' });
    expect((await before()).suppressions).toBe(counts.suppressions);
  });

  it('offers STARTTLS and SIZE but no AUTH', async () => {
    const dialog = await openDialog(receiver.port);
    const ehlo = await dialog.command('EHLO mx.remote.example');
    expect(ehlo).toMatch(/STARTTLS/);
    // the larger of a bounce's limit and a received message's (docs/receiving.md)
    expect(ehlo).toMatch(new RegExp(`SIZE ${Math.max(MAX_BOUNCE_BYTES, app.ctx.config.inboundMaxMessageBytes)}`));
    expect(ehlo).not.toMatch(/AUTH/);
    dialog.end();
  });

  it(`refuses a message over ${MAX_BOUNCE_BYTES} bytes with 552`, async () => {
    const sent = await send(`big-${randomUUID().slice(0, 8)}@customer.example`);
    const raw =
      fixtureFor('postfix-user-unknown.eml', sent) +
      `${'y'.repeat(998)}\r\n`.repeat(Math.ceil(MAX_BOUNCE_BYTES / 1000) + 10);
    await expect(deliverDsn(sent.verp, raw)).rejects.toMatchObject({ responseCode: 552 });
    expect(await transaction(sent.uuid)).toMatchObject({ delivered_status: 'delivered' });
  });
});

describe('one verdict for a reply during delivery and the same reply in a DSN', () => {
  const IP = '203.0.113.9';
  // [name, reply code, text after the code (as the sink answers RCPT), bounce type, category, suppressed]
  const replies: [string, number, string, 'hard' | 'soft', string, boolean][] = [
    [
      'Postfix, zen.spamhaus.org',
      554,
      `5.7.1 Service unavailable; Client host [${IP}] blocked using zen.spamhaus.org; ` +
        `https://www.spamhaus.org/query/ip/${IP}`,
      'soft',
      'policy_block',
      false,
    ],
    ['content filter, spam', 554, '5.7.1 Message rejected as spam', 'soft', 'spam_block', false],
    [
      'Gmail, DMARC',
      550,
      "5.7.26 Unauthenticated email from shop.example is not accepted due to domain's DMARC policy.",
      'soft',
      'authentication',
      false,
    ],
    ['Dovecot, quota', 552, '5.2.2 Quota exceeded (mailbox for user is full)', 'soft', 'mailbox_full', false],
    [
      'Postfix, user unknown',
      550,
      '5.1.1 <{to}>: Recipient address rejected: User unknown in virtual mailbox table',
      'hard',
      'invalid_recipient',
      true,
    ],
    ['Exim (cPanel), no such user', 550, 'No such user here', 'hard', 'invalid_recipient', true],
  ];

  /** The transaction's bounce as recorded, and whether its recipient ended on the suppression list. */
  async function recorded(sent: Sent) {
    const events = await bouncedEvents(sent);
    expect(events).toHaveLength(1);
    const data = events[0].data as Record<string, unknown>;
    return {
      row: await transaction(sent.uuid),
      type: data.bounce_type ?? data.type,
      category: data.category,
      suppressed: (await suppression(sent.to)) !== undefined,
    };
  }

  it.each(replies)('%s: %i', async (_name, code, words, type, category, suppressed) => {
    // during delivery: the sink refuses the recipient at RCPT, the worker records the outcome
    const live = `live-${randomUUID().slice(0, 8)}@customer.example`;
    sink.replies.set(live, [code, words.replace('{to}', live)]);
    const refused = await send(live, 'failed');
    const atDelivery = await recorded(refused);
    expect(atDelivery.row).toMatchObject({
      status: 'failed',
      delivered_status: 'bounced',
      bounce_type: type,
      bounce_reason: `${code} ${words.replace('{to}', live)}`,
    });
    expect(atDelivery).toMatchObject({ type, category, suppressed });
    // refused at RCPT: handed over and answered, so sent, and bounced (not failed: that is never handed over)
    expect(await statsOf(refused)).toEqual({
      sent: 1,
      delivered: 0,
      failed: 0,
      bounced: 1,
      hard: type === 'hard' ? 1 : 0,
      soft: type === 'soft' ? 1 : 0,
    });

    // later: the same reply quoted in a DSN for a message the relay took
    const accepted = await send(`dsn-${randomUUID().slice(0, 8)}@customer.example`);
    const reply = `${code} ${words.replace('{to}', accepted.to)}`;
    const dsn = dsnOfReply(reply, { verp: accepted.verp, recipient: accepted.to, messageId: accepted.messageId });
    expect((await deliverDsn(accepted.verp, dsn)).response).toMatch(/^250 /);
    const byDsn = await recorded(accepted);
    expect(byDsn.row).toMatchObject({ status: 'sent', delivered_status: 'bounced', bounce_type: type });
    expect(byDsn).toMatchObject({ type, category, suppressed });
  });
});

// ---- property tests: nothing escapes as a crash, and a DSN about nothing of ours changes no row ----

describe('receiveMessage properties for DSNs (fast-check)', () => {
  const KEYS = { secret: TEST_SECRET, returnPathDomain: RETURN_PATH };
  const FIXTURES = [
    'postfix-user-unknown.eml',
    'exchange-recipient-not-found.eml',
    'gmail-no-such-user.eml',
    'qmail-plain-text.eml',
    'sendmail-mailbox-full.eml',
    'postfix-delayed.eml',
    'auto-reply.eml',
  ];
  /** A DSN about a transaction that does not exist: a real MTA's fixture, or one quoting a generated reply. */
  const unknownDsn = fc
    .tuple(
      fc.option(fc.constantFrom(...FIXTURES), { nil: null }),
      fc.tuple(fc.constantFrom('421', '450', '550', '552', '554', '999', ''), fc.string({ maxLength: 300 })),
      fc.constantFrom('utf-8', 'iso-8859-1', 'x-unknown-charset', 'utf-16', ''),
    )
    .map(([file, [code, text], charset]) => {
      const uuid = randomUUID();
      const values = {
        verp: verpAddress(TEST_SECRET, uuid, RETURN_PATH),
        recipient: 'nobody@customer.example',
        messageId: `<${uuid}@shop.example>`,
      };
      const raw = (file ? dsnFixture(file, values) : dsnOfReply(`${code} ${text}`, values)).replace(
        /charset=[\w-]+/gi,
        `charset=${charset}`,
      );
      return { to: values.verp, raw };
    });
  const rows = async () => ({
    events: await count('events'),
    suppressions: await count('suppressions'),
    stats: await count('daily_stats'),
    statuses: await app.ctx.db
      .selectFrom('transactions')
      .select(['uuid', 'status', 'delivered_status', 'bounce_type'])
      .orderBy('id')
      .execute(),
  });

  it('answers every mangled DSN about an unknown message with 250 or 554 and changes no row', async () => {
    await send(`kept-${randomUUID().slice(0, 8)}@customer.example`); // a real transaction the DSNs must leave alone
    const before = await rows();
    await fc.assert(
      fc.asyncProperty(mangled(unknownDsn, 'utf8'), async ({ to, raw }) => {
        const answer = await receiveMessage(app.ctx, KEYS, [to], raw);
        expect([250, 554]).toContain(answer.code);
      }),
      { numRuns: 150 },
    );
    expect(await rows()).toEqual(before);
    // a bound for a hang, as for the feedback reports' fuzz (complaints.test.ts)
  }, 300_000);
});
