// Feedback-loop reports (RFC 5965) end to end: mail sent through POST /v1/mail and delivered by the
// worker to a local sink, then a report about it sent over SMTP to the bounce receiver, as a mailbox
// provider's feedback loop does — to the message's VERP address, or to the address the loop is
// registered with (fbl@ the return-path domain). A complaint is an event, a suppression with origin
// complaint, a webhook row and a counted complaint, all in one database transaction; not-spam and
// reports about nothing of ours change nothing; an unsubscribe report unsubscribes. Property tests
// (fast-check) send the receiver generated, truncated and oversized reports about unknown messages:
// every one is answered, and no row changes.
import { figuresOf } from '../helpers/figures.ts';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_SECRET, type TestApp, type TestAccount } from '../helpers/app.ts';
import { arfAbout, arfFixture } from '../helpers/arf-fixture.ts';
import { openDialog } from '../helpers/smtp-dialog.ts';
import { mangled } from '../helpers/mangle.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { verpAddress } from '../../src/server/delivery/verp.ts';
import { type BounceReceiver, receiveMessage, startBounceReceiver } from '../../src/server/bounces/receiver.ts';
import { legacyPayload } from '../../src/server/webhooks/payload.ts';

const RETURN_PATH = 'rp.transact.test';
const FBL = `fbl@${RETURN_PATH}`;
const KEYS = { secret: TEST_SECRET, returnPathDomain: RETURN_PATH };

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let receiver: BounceReceiver;
let account: TestAccount;
let apiKey: string;
let cookie: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({
    SMTP_RELAY_URL: sink.url,
    RETURN_PATH_DOMAIN: RETURN_PATH,
    HOST: '127.0.0.1',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  });
  account = await app.createAccount();
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
  cookie = await app.signIn(account.email, account.password);
  const saved = await app.call('POST', '/v1/webhooks', {
    cookie,
    body: {
      url: 'http://127.0.0.1:9/hook',
      verb: 'post',
      status: 'enabled',
      auth_type: null,
      auth_details: null,
      event_types: ['bounce', 'unsubscribe', 'complaint'],
      field_set: 'standard',
    },
  });
  expect(saved.status).toBe(200);
  worker = new DeliveryWorker(app.ctx);
  worker.start();
  receiver = await startBounceReceiver(app.ctx, { port: 0, host: '127.0.0.1' });
}, 60_000);

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
  /** The message as the sink got it (CRLF text). */
  raw: string;
}

const transaction = (uuid: string) =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['id', 'group_id', 'to_email', 'message_id_header', 'status', 'delivered_status'])
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Sends one message through the API (in its own group, so its stats stand alone) and waits for its delivery. */
async function send(): Promise<Sent> {
  const to = `ann-${randomUUID().slice(0, 8)}@customer.example`;
  const res = await app.api.request('http://localhost:4321/v1/mail', {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: 'Shop <orders@shop.example>',
      to,
      subject: 'Your order',
      text: 'Thanks for your order.',
      group: `complaint-${randomUUID()}`,
    }),
  });
  expect(res.status).toBe(202);
  const [{ trans_uuid: uuid }] = (await res.json()).data as { trans_uuid: string }[];
  const raw = await waitFor('delivery', () => sink.messages.find((m) => m.to.includes(to))?.raw.toString('latin1'));
  // the sink has it before the worker records the outcome
  const row = await waitFor('the recorded delivery', async () => {
    const found = await transaction(uuid);
    return found.delivered_status === 'pending' ? undefined : found;
  });
  expect(row.delivered_status).toBe('delivered');
  return {
    uuid,
    id: row.id,
    groupId: row.group_id,
    to,
    messageId: row.message_id_header,
    verp: verpAddress(TEST_SECRET, uuid, RETURN_PATH),
    raw,
  };
}

const fixtureFor = (file: string, sent: Sent, reportTo: string, feedbackType?: string) =>
  arfFixture(file, {
    reportTo,
    uuid: sent.uuid,
    recipient: sent.to,
    messageId: sent.messageId,
    secret: TEST_SECRET,
    returnPath: RETURN_PATH,
    feedbackType,
  });

/** Sends a report to `to` over SMTP with a null reverse path, as a feedback loop does. */
const deliver = (to: string, raw: string | Buffer) =>
  nodemailer
    .createTransport({ host: '127.0.0.1', port: receiver.port, secure: false, tls: { rejectUnauthorized: false } })
    .sendMail({ envelope: { from: '', to: [to] }, raw });

const eventsOf = (sent: Sent, type: 'complaint' | 'unsubscribe') =>
  app.ctx.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('transaction_id', '=', sent.id)
    .where('type', '=', type)
    .execute();
const webhookRowsOf = (sent: Sent) =>
  app.ctx.db
    .selectFrom('webhook_requests')
    .select(['event_type', 'event_data'])
    .where('transaction_id', '=', sent.id)
    .execute();
const suppressionsOf = (email: string) =>
  app.ctx.db
    .selectFrom('suppressions')
    .select(['email', 'origin'])
    .where('customer_id', '=', account.customerId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .execute();
async function statsOf(sent: Sent) {
  const f = await figuresOf(app.ctx.db, account.customerId, sent.groupId);
  return { delivered: f.delivered, bounced: f.bounced, complaints: f.complaints };
}

/** Every row a report could change, counted. */
async function rowCounts() {
  const one = async (table: 'events' | 'suppressions' | 'webhook_requests') =>
    Number(
      (
        await app.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const f = await figuresOf(app.ctx.db, account.customerId);
  const statuses = await app.ctx.db
    .selectFrom('transactions')
    .select(sql<string>`string_agg(delivered_status, ',' order by id)`.as('all'))
    .executeTakeFirstOrThrow();
  return {
    events: await one('events'),
    suppressions: await one('suppressions'),
    webhooks: await one('webhook_requests'),
    stats: `${f.complaints}/${f.bounced}`,
    statuses: statuses.all,
  };
}

/** The message fields of a webhook payload, which do not matter here. */
const PAYLOAD_TX = {
  message_id_header: '<order@shop.example>',
  group_uuid: randomUUID(),
  group_name: 'Orders',
  from_email: 'orders@shop.example',
  from_name: null,
  to_name: null,
  subject: 'Your order',
  tags: null,
  metadata: null,
};

/** What a report's fields become: the complaint event's data, the keys the complaint webhook carries. */
interface ReportFields {
  user_agent: string;
  arrival_date: string | null;
}

const YAHOO: ReportFields = { user_agent: 'Yahoo!-Mail-Feedback/2.0', arrival_date: '2025-01-14T18:12:03.000Z' };

/** The complaint as recorded: one event, one suppression, one webhook row, one count; the transaction unchanged. */
async function expectComplaint(sent: Sent, fields: ReportFields) {
  const data = { feedback_type: 'abuse', ...fields };
  const events = await eventsOf(sent, 'complaint');
  expect(events).toEqual([{ type: 'complaint', data }]);
  expect(await suppressionsOf(sent.to)).toEqual([{ email: sent.to, origin: 'complaint' }]);
  const rows = await webhookRowsOf(sent);
  expect(rows).toEqual([{ event_type: 'complaint', event_data: data }]);
  // the webhook the worker builds from that row carries the report's values, not nulls
  const tx = { ...PAYLOAD_TX, uuid: sent.uuid, to_email: sent.to };
  expect(legacyPayload({ type: 'complaint', at: new Date(), data: rows[0].event_data }, tx)).toMatchObject({
    event: 'complaint',
    trans_uuid: sent.uuid,
    ...data,
  });
  expect(await statsOf(sent)).toEqual({ delivered: 1, bounced: 0, complaints: 1 });
  expect(await transaction(sent.uuid)).toMatchObject({ status: 'sent', delivered_status: 'delivered' });
}

describe('bounce receiver: feedback-loop complaints', () => {
  // the fixtures' User-Agent and Arrival-Date (Received-Date in the older two), the latter in UTC
  const reported: Record<string, ReportFields> = {
    'yahoo-abuse.eml': YAHOO,
    'microsoft-jmrp.eml': { user_agent: 'Hotmail FBL', arrival_date: '2025-01-14T18:40:22.000Z' },
    'headers-only.eml': { user_agent: 'MailboxFBL/1.4', arrival_date: '2025-01-14T20:25:44.000Z' },
  };
  it.each([
    ['yahoo-abuse.eml', 'the VERP address'],
    ['yahoo-abuse.eml', 'fbl@'],
    ['microsoft-jmrp.eml', 'the VERP address'],
    ['microsoft-jmrp.eml', 'fbl@'],
    ['headers-only.eml', 'the VERP address'],
    ['headers-only.eml', 'fbl@'],
  ])('%s to %s: event, suppression (complaint), webhook row, counted', async (file, where) => {
    const sent = await send();
    const to = where === 'fbl@' ? FBL : sent.verp;
    const info = await deliver(to, fixtureFor(file, sent, to));
    expect(info.response).toMatch(/^250 2\.0\.0 Report received/);
    await expectComplaint(sent, reported[file]);
  });

  it.each([
    ['whole, as the mailbox got it (Return-Path added)', false],
    ['its headers only', true],
  ])('takes a report about the delivered message, %s', async (_name, headersOnly) => {
    const sent = await send();
    const report = arfAbout(sent.raw, { reportTo: FBL, headersOnly, returnPath: headersOnly ? undefined : sent.verp });
    expect((await deliver(FBL, report)).response).toMatch(/^250 /);
    await expectComplaint(sent, { user_agent: 'MailboxFBL/1.4', arrival_date: null });
  });

  it('counts the same report received twice once', async () => {
    const sent = await send();
    const report = fixtureFor('yahoo-abuse.eml', sent, FBL);
    await deliver(FBL, report);
    const before = await rowCounts();
    expect((await deliver(sent.verp, report)).response).toMatch(/^250 /);
    expect(await rowCounts()).toEqual(before);
    await expectComplaint(sent, YAHOO);
  });

  it('counts the complaint in the dashboard’s days and the group’s overview (its rate of the delivered)', async () => {
    const sent = await send();
    const day = new Date().toISOString().slice(0, 10);
    const dashboardDay = async () => {
      const res = await app.call('POST', '/v1/dashboard/overview', { cookie, body: { startDate: day, endDate: day } });
      expect(res.status).toBe(200);
      const [only] = (await res.json()).dailyStats as { tstat_day: string; complaints: number }[];
      expect(only.tstat_day).toBe(day);
      return only.complaints;
    };
    const before = await dashboardDay();
    await deliver(FBL, fixtureFor('headers-only.eml', sent, FBL));
    expect(await dashboardDay()).toBe(before + 1);
    const { uuid: group } = await app.ctx.db
      .selectFrom('transaction_groups')
      .select('uuid')
      .where('id', '=', sent.groupId)
      .executeTakeFirstOrThrow();
    const overview = await app.call('POST', '/v1/transaction-groups/overview', {
      cookie,
      body: { group_uuid: group, start_date: day, end_date: day },
    });
    expect(overview.status).toBe(200);
    expect((await overview.json()).overviewStats).toMatchObject({
      delivered: { value: 1 },
      bounced: { value: 0, percentage: 0 },
      complaints: { value: 1, percentage: 100 },
    });
  });

  it('keeps an entry the recipient already had, and records the complaint', async () => {
    const sent = await send();
    await app.ctx.db
      .insertInto('suppressions')
      .values({ customer_id: account.customerId, email: sent.to.toUpperCase(), origin: 'user' })
      .execute();
    await deliver(FBL, fixtureFor('microsoft-jmrp.eml', sent, FBL));
    expect(await suppressionsOf(sent.to)).toEqual([{ email: sent.to.toUpperCase(), origin: 'user' }]);
    expect(await eventsOf(sent, 'complaint')).toHaveLength(1);
    expect(await statsOf(sent)).toMatchObject({ complaints: 1 });
  });

  it('suppresses even when the customer switched suppression off: the recipient’s own word', async () => {
    await setSuppressionDisabled(true);
    try {
      const sent = await send();
      await deliver(sent.verp, fixtureFor('yahoo-abuse.eml', sent, sent.verp));
      expect(await suppressionsOf(sent.to)).toEqual([{ email: sent.to, origin: 'complaint' }]);
    } finally {
      await setSuppressionDisabled(false);
    }
  });

  it('writes nothing when one of the complaint’s writes fails, and all of it when the report comes again', async () => {
    const sent = await send();
    // a real failure inside the database transaction: the suppression's insert refused by a trigger
    await sql`create function refuse_complaint() returns trigger language plpgsql as $$
      begin raise exception 'refused for the test'; end $$`.execute(app.ctx.db);
    await sql`create trigger refuse_complaint before insert on suppressions for each row
      when (new.origin = 'complaint') execute function refuse_complaint()`.execute(app.ctx.db);
    const before = await rowCounts();
    try {
      await expect(deliver(FBL, fixtureFor('yahoo-abuse.eml', sent, FBL))).rejects.toMatchObject({
        responseCode: 451,
      });
      expect(await rowCounts()).toEqual(before);
    } finally {
      await sql`drop trigger refuse_complaint on suppressions`.execute(app.ctx.db);
      await sql`drop function refuse_complaint()`.execute(app.ctx.db);
    }
    expect((await deliver(FBL, fixtureFor('yahoo-abuse.eml', sent, FBL))).response).toMatch(/^250 /);
    await expectComplaint(sent, YAHOO);
  });

  it('records a report whose fields carry control characters and bytes of no charset', async () => {
    const sent = await send();
    const [before, after] = fixtureFor('yahoo-abuse.eml', sent, FBL)
      .replace('Feedback-Type: abuse', 'Feedback-Type: ABUSE\u0007')
      .split('Yahoo!-Mail-Feedback/2.0');
    // NUL, and bytes that are no UTF-8, as the report's User-Agent
    const report = Buffer.concat([
      Buffer.from(before, 'latin1'),
      Buffer.from([0, 0xff, 0xfe, 0x80]),
      Buffer.from(after),
    ]);
    expect((await deliver(FBL, report)).response).toMatch(/^250 /);
    const [event] = await eventsOf(sent, 'complaint');
    expect(event.data).toMatchObject({ feedback_type: 'abuse' });
    expect(await suppressionsOf(sent.to)).toEqual([{ email: sent.to, origin: 'complaint' }]);
  });
});

async function setSuppressionDisabled(disabled: boolean) {
  await app.ctx.db
    .updateTable('customers')
    .set({ disable_suppression: disabled })
    .where('id', '=', account.customerId)
    .execute();
}

describe('bounce receiver: feedback reports that change nothing, and unsubscribe reports', () => {
  it.each([
    ['yahoo-abuse.eml', 'the VERP address'],
    ['microsoft-jmrp.eml', 'fbl@'],
  ])('not-spam (%s to %s) changes nothing', async (file, where) => {
    const sent = await send();
    const to = where === 'fbl@' ? FBL : sent.verp;
    const before = await rowCounts();
    expect((await deliver(to, fixtureFor(file, sent, to, 'not-spam'))).response).toMatch(/^250 /);
    expect(await rowCounts()).toEqual(before);
  });

  it('unsubscribe acts as the List-Unsubscribe mailto: would', async () => {
    const sent = await send();
    await deliver(FBL, fixtureFor('yahoo-abuse.eml', sent, FBL, 'unsubscribe'));
    expect(await eventsOf(sent, 'unsubscribe')).toEqual([
      { type: 'unsubscribe', data: { email: sent.to, via: 'feedback_report' } },
    ]);
    expect(await suppressionsOf(sent.to)).toEqual([{ email: sent.to, origin: 'unsubscribe' }]);
    expect(await webhookRowsOf(sent)).toEqual([
      { event_type: 'unsubscribe', event_data: { email: sent.to, via: 'feedback_report' } },
    ]);
    expect(await eventsOf(sent, 'complaint')).toEqual([]);
    expect(await statsOf(sent)).toMatchObject({ complaints: 0 });
  });

  it.each([
    [
      'about a message of nobody’s (fbl@)',
      (_s: Sent) => FBL,
      (s: Sent) => fixtureFor('headers-only.eml', other(s), FBL),
    ],
    [
      'about an unknown transaction (its VERP address)',
      (_s: Sent) => verpAddress(TEST_SECRET, randomUUID(), RETURN_PATH),
      (s: Sent) => fixtureFor('yahoo-abuse.eml', other(s), FBL),
    ],
    [
      'about another message, sent to a real VERP address (backscatter)',
      (s: Sent) => s.verp,
      (s: Sent) => fixtureFor('headers-only.eml', { ...s, messageId: '<spam-1@elsewhere.example>' }, s.verp),
    ],
    [
      'naming a real transaction by its tokens but quoting another Message-ID',
      (_s: Sent) => FBL,
      (s: Sent) => fixtureFor('yahoo-abuse.eml', { ...s, messageId: '<spam-2@elsewhere.example>' }, FBL),
    ],
  ])('a report %s is taken (250) and changes nothing', async (_name, to, report) => {
    const sent = await send();
    const before = await rowCounts();
    expect((await deliver(to(sent), report(sent))).response).toMatch(/^250 2\.0\.0 Report received/);
    expect(await rowCounts()).toEqual(before);
  });
});

/** The same message as if sent as another, unknown transaction. */
const other = (sent: Sent): Sent => {
  const uuid = randomUUID();
  return { ...sent, uuid, messageId: `<${uuid}@shop.example>`, verp: verpAddress(TEST_SECRET, uuid, RETURN_PATH) };
};

describe('bounce receiver: RCPT TO and DATA at the return-path domain', () => {
  it.each(['fbl', 'abuse', 'postmaster', 'FBL+yahoo'])('accepts %s@ the return-path domain', async (local) => {
    const dialog = await openDialog(receiver.port);
    expect(await dialog.command('EHLO mx.remote.example')).toMatch(/^250/);
    expect(await dialog.command('MAIL FROM:<>')).toMatch(/^250/);
    expect(await dialog.command(`RCPT TO:<${local}@${RETURN_PATH}>`)).toMatch(/^250/);
    dialog.end();
  });

  it('refuses mail that is no feedback report at such an address with 550 5.7.1, changing nothing', async () => {
    const before = await rowCounts();
    await expect(
      deliver(FBL, 'From: someone@elsewhere.example\r\nSubject: hello\r\n\r\nAre you there?\r\n'),
    ).rejects.toMatchObject({ responseCode: 550, command: 'DATA', response: expect.stringMatching(/5\.7\.1/) });
    expect(await rowCounts()).toEqual(before);
  });
});

// ---- property tests: nothing escapes as a crash, and a report about nothing of ours changes no row ----

describe('receiveMessage properties (fast-check)', () => {
  /** The report fixtures about transactions that do not exist, and where each was sent. */
  const unknownReport = fc
    .tuple(
      fc.constantFrom('yahoo-abuse.eml', 'microsoft-jmrp.eml', 'headers-only.eml'),
      fc.constantFrom('abuse', 'not-spam', 'unsubscribe', 'fraud', '', 'x'.repeat(300)),
      fc.boolean(),
    )
    .map(([file, feedbackType, toVerp]) => {
      const uuid = randomUUID();
      const to = toVerp ? verpAddress(TEST_SECRET, uuid, RETURN_PATH) : FBL;
      const raw = arfFixture(file, {
        reportTo: to,
        uuid,
        recipient: 'nobody@customer.example',
        messageId: `<${uuid}@shop.example>`,
        secret: TEST_SECRET,
        returnPath: RETURN_PATH,
        feedbackType,
      });
      return { to, raw };
    });

  it('answers every mangled report about an unknown message with 250, 550 or 554 and changes no row', async () => {
    await send(); // a real transaction the reports must leave alone
    const before = await rowCounts();
    await fc.assert(
      fc.asyncProperty(mangled(unknownReport, 'latin1'), async ({ to, raw }) => {
        const answer = await receiveMessage(app.ctx, KEYS, [to], raw);
        expect([250, 550, 554]).toContain(answer.code);
      }),
      { numRuns: 150 },
    );
    expect(await rowCounts()).toEqual(before);
    // a bound for a hang: the 150 reports took over 30 s on PostgreSQL with CI's lanes on two loaded cores
  }, 300_000);
});
