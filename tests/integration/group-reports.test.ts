// A transaction group's report calls (docs/console-reports.md §7): POST v1/transaction-groups/reports,
// POST and GET /v1/transaction-groups/overview, POST and GET v1/links — against traffic made through
// the real paths: mail accepted by POST /v1/mail, delivered by the worker into a local SMTP sink
// (one recipient refused with 550), a DSN for another sent to the bounce receiver, the refused
// recipient sent again (suppressed), opens and clicks on two links fetched from the tracking URLs of
// the delivered copies. Every expected figure is counted by hand below.
import { sql } from 'kysely';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, TEST_SECRET, type TestApp, type TestAccount, sendAsClient } from '../helpers/app.ts';
import { dsnFixture } from '../helpers/dsn-fixture.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { verpAddress } from '../../src/server/delivery/verp.ts';
import { type BounceReceiver, startBounceReceiver } from '../../src/server/bounces/receiver.ts';
import { flushTracking } from '../../src/server/tracking/tracking.service.ts';
import { migrateToLatest, migrator } from '../../src/server/db/migrate.ts';

const RETURN_PATH = 'rp.transact.test';
const DOMAIN = 'shop.example';
const LINK_A = 'https://shop.example/orders';
const LINK_B = 'https://shop.example/help';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let receiver: BounceReceiver;
let shop: TestAccount;
let cookie: string;
let otherCookie: string;
let apiKey: string;
/** Transaction uuids by recipient local part ('r6-again' for the suppressed second send). */
const uuid: Record<string, string> = {};
let orders: string;
let otherGroup: string;
let otherCustomersGroup: string;

const addressOf = (local: string) => `${local}@people.example`;

async function send(group: string, locals: string[]): Promise<string[]> {
  const res = await sendAsClient(app, '/v1/mail', apiKey, {
    from: { email: `orders@${DOMAIN}`, name: 'Shop' },
    to: locals.map(addressOf),
    subject: `${group} update`,
    html: `<p>Your order. <a href="${LINK_A}">Orders</a> or <a href="${LINK_B}">Help</a></p>`,
    group,
  });
  expect(res.status).toBe(202);
  return ((await res.json()).data as { trans_uuid: string }[]).map((d) => d.trans_uuid);
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const row = (id: string) =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['status', 'delivered_status', 'message_id_header', 'to_email'])
    .where('uuid', '=', id)
    .executeTakeFirstOrThrow();

/** The HTML of the delivered copy of a transaction (its VERP sender carries the uuid). */
async function deliveredHtml(id: string): Promise<string> {
  const copy = sink.messages.find((m) => m.from.includes(id.replace(/-/g, '')))!;
  return String((await simpleParser(copy.raw)).html);
}

beforeAll(async () => {
  sink = await startSmtpSink();
  sink.replies.set(addressOf('r6'), [550, '5.1.1 <r6@people.example>: Recipient address rejected: User unknown']);
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, RETURN_PATH_DOMAIN: RETURN_PATH, HOST: '127.0.0.1' });
  shop = await app.createAccount();
  await addDomain(app.ctx, shop.customerId, DOMAIN, { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, shop.customerId)).apiCredentials.apiKey;
  cookie = await app.signIn(shop.email, shop.password);
  const other = await app.createAccount();
  await addDomain(app.ctx, other.customerId, 'other.example', { verified: true });
  otherCookie = await app.signIn(other.email, other.password);
  worker = new DeliveryWorker(app.ctx);
  worker.start();
  receiver = await startBounceReceiver(app.ctx, { port: 0, host: '127.0.0.1' });

  const locals = ['r1', 'r2', 'r3', 'r4', 'r5', 'r6'];
  for (const [i, id] of (await send('Orders', locals)).entries()) uuid[locals[i]] = id;
  [uuid.r7] = await send('Other', ['r7']);
  await until('5 + 1 deliveries and the 550', async () => {
    const rows = await Promise.all(Object.values(uuid).map(row));
    return rows.every((r) => r.status !== 'queued');
  });
  // r4's mailbox is full: the remote gives up later and sends a DSN (soft bounce)
  const r4 = await row(uuid.r4);
  const dsn = dsnFixture('sendmail-mailbox-full.eml', {
    verp: verpAddress(TEST_SECRET, uuid.r4, RETURN_PATH),
    recipient: r4.to_email,
    messageId: r4.message_id_header,
  });
  await nodemailer
    .createTransport({ host: '127.0.0.1', port: receiver.port, secure: false, tls: { rejectUnauthorized: false } })
    .sendMail({ envelope: { from: '', to: [verpAddress(TEST_SECRET, uuid.r4, RETURN_PATH)] }, raw: dsn });
  await until('the soft bounce', async () => (await row(uuid.r4)).delivered_status === 'bounced');
  // r6 bounced hard, so it is suppressed: sent again it fails at acceptance
  [uuid['r6-again']] = await send('Orders', ['r6']);

  // opens: r1 twice, r2 once; clicks: r1 on A twice and B once, r2 on A, r3 on B
  const hit = (url: string) =>
    app.api.request(url.replace(/^https?:\/\/[^/]+/, ORIGIN), {
      headers: { 'User-Agent': 'Mozilla/5.0 (GroupReports)' },
    });
  const pixel = async (local: string) => /src="([^"]*\/t\/o\/[^"]+)"/.exec(await deliveredHtml(uuid[local]))![1];
  const links = async (local: string) =>
    [...(await deliveredHtml(uuid[local])).matchAll(/href="([^"]*\/t\/c\/[^"]+)"/g)].map((m) => m[1]);
  // the hits come a minute after delivery, as people's do (a click within 5 s of it is a scanner's:
  // src/server/tracking/machine-rules.ts)
  await app.ctx.db
    .updateTable('transactions')
    .set({ sent_at: sql<Date>`sent_at - interval '1 minute'` })
    .where('customer_id', '=', shop.customerId)
    .where('sent_at', 'is not', null)
    .execute();
  for (const local of ['r1', 'r1', 'r2']) await hit(await pixel(local));
  const [r1a, r1b] = await links('r1');
  const [r2a] = await links('r2');
  const [, r3b] = await links('r3');
  // each click written in a batch of its own, so r1's second click on A meets a link already clicked
  for (const url of [r1a, r1a, r1b, r2a, r3b]) {
    expect((await hit(url)).status).toBe(302);
    await flushTracking(app.ctx);
  }

  const groups = await app.ctx.db.selectFrom('transaction_groups').select(['uuid', 'name', 'customer_id']).execute();
  orders = groups.find((g) => g.customer_id === shop.customerId && g.name === 'Orders')!.uuid;
  otherGroup = groups.find((g) => g.customer_id === shop.customerId && g.name === 'Other')!.uuid;
  const res = await app.api.request(`${ORIGIN}/v1/mail`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${(await credentialsForConsole(app.ctx, other.customerId)).apiCredentials.apiKey}`,
      'Content-Type': 'application/json',
    },
    body: JSON.stringify({
      from: 'news@other.example',
      to: 'x@people.example',
      subject: 'Hi',
      text: 'Hi',
      group: 'Orders',
    }),
  });
  expect(res.status).toBe(202);
  otherCustomersGroup = (
    await app.ctx.db
      .selectFrom('transaction_groups')
      .select('uuid')
      .where('customer_id', '=', other.customerId)
      .executeTakeFirstOrThrow()
  ).uuid;
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await worker?.stop();
  await sink?.close();
  await app?.close();
});

interface ReportWire {
  transactions: {
    data: Record<string, unknown>[];
    meta: { total: number; current_page: number; last_page: number; per_page: number; total_capped: boolean };
  };
  dailyStats: Record<string, number | string>[];
}

async function report(body: Record<string, unknown>, as = cookie): Promise<ReportWire> {
  const res = await app.call('POST', '/v1/transaction-groups/reports', {
    cookie: as,
    body: { group_uuid: orders, ...body },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

const byUuid = () => new Map(Object.entries(uuid).map(([local, id]) => [id, local]));
const locals = (data: Record<string, unknown>[]) => data.map((r) => byUuid().get(r.trans_uuid as string));
const today = () => new Date().toISOString().slice(0, 10);
const startOfToday = () => Date.parse(`${today()}T00:00:00Z`) / 1000;
/** What the console sends (docs/console-reports.md §7): start of the first day to the end of today, unix seconds. */
const consoleRange = () => ({ start_date: startOfToday() - 29 * 86_400, end_date: startOfToday() + 86_399 });

describe('POST /v1/transaction-groups/reports', () => {
  it('answers each report’s rows, newest first, with exact totals', async () => {
    const expected: Record<string, string[]> = {
      overview: ['r6-again', 'r6', 'r5', 'r4', 'r3', 'r2', 'r1'],
      // the Sent and Failed reports list what their figures count (src/lib/figures.ts): handed over and
      // answered (r4 bounced later by a DSN, r6 refused at delivery); never handed over (r6 again, suppressed)
      sent: ['r6', 'r5', 'r4', 'r3', 'r2', 'r1'],
      failed: ['r6-again'],
      bounced: ['r6', 'r4'],
      opens: ['r2', 'r1'],
      clicks: ['r3', 'r2', 'r1'],
    };
    for (const [type, rows] of Object.entries(expected)) {
      const { transactions } = await report({ report_type: type, ...consoleRange() });
      // uuids are random, so acceptance ties within one request are broken by id: compare as sets where the order is a
      // tie
      expect(new Set(locals(transactions.data)), type).toEqual(new Set(rows));
      expect(transactions.meta, type).toEqual({
        current_page: 1,
        per_page: 10,
        total: rows.length,
        last_page: 1,
        total_capped: false,
      });
    }
  });

  it('answers the spec’s row fields: dates, bounce type and reason, opens and clicks', async () => {
    const clicks = (await report({ report_type: 'clicks', order: 'clicks', order_by: 'desc' })).transactions.data;
    expect(locals(clicks)[0]).toBe('r1');
    const r1 = clicks[0];
    expect(r1).toMatchObject({
      trans_uuid: uuid.r1,
      trans_to_email: addressOf('r1'),
      tm_from_email: `orders@${DOMAIN}`,
      tm_from_name: 'Shop',
      tm_subject: 'Orders update',
      trans_delivered_status: 'delivered',
      trans_read_count: 2,
      trans_click_count: 3,
      ts_total_opens: 2,
      ts_total_clicks: 3,
      ts_unique_clicks: 2,
      trans_bounce_type: '',
    });
    expect(typeof r1.trans_id).toBe('number');
    const firstClick = await app.ctx.db
      .selectFrom('transactions')
      .select('first_click_at')
      .where('uuid', '=', uuid.r1)
      .executeTakeFirstOrThrow();
    expect(r1.log_date).toBe(Math.floor(firstClick.first_click_at!.getTime() / 1000));
    expect(clicks.find((r) => r.trans_uuid === uuid.r3)).toMatchObject({
      ts_total_clicks: 1,
      ts_unique_clicks: 1,
      ts_total_opens: 0,
    });

    const bounced = (await report({ report_type: 'bounced' })).transactions.data;
    expect(bounced.find((r) => r.trans_uuid === uuid.r6)).toMatchObject({
      trans_bounce_type: 'hard',
      trans_bounce_reason: expect.stringMatching(/^550 .*User unknown/),
      trans_delivered_status: 'bounced',
    });
    const r4 = bounced.find((r) => r.trans_uuid === uuid.r4)!;
    expect(r4).toMatchObject({ trans_bounce_type: 'soft', trans_delivered_status: 'bounced' });
    const bounceEvent = await app.ctx.db
      .selectFrom('events')
      .innerJoin('transactions as t', 't.id', 'events.transaction_id')
      .select('events.at')
      .where('t.uuid', '=', uuid.r4)
      .where('events.type', '=', 'bounced')
      .executeTakeFirstOrThrow();
    expect(r4.log_date).toBe(Math.floor(bounceEvent.at.getTime() / 1000));

    const failed = (await report({ report_type: 'failed' })).transactions.data;
    expect(failed.find((r) => r.trans_uuid === uuid['r6-again'])!.trans_bounce_reason).toMatch(/suppress/i);
  });

  it('sorts by the spec’s keys, either way round, and pages', async () => {
    const opens = await report({ report_type: 'opens', order: 'opens', order_by: 'desc' });
    expect(locals(opens.transactions.data)).toEqual(['r1', 'r2']);
    expect(locals((await report({ report_type: 'opens', order: 'asc', order_by: 'opens' })).transactions.data)).toEqual(
      ['r2', 'r1'],
    );
    const firstOpen = await report({ report_type: 'opens', order: 'firstOpenDate', order_by: 'asc' });
    expect(firstOpen.transactions.data.map((r) => r.log_date)).toEqual(
      [...firstOpen.transactions.data.map((r) => r.log_date as number)].sort((x, y) => x - y),
    );
    const page2 = await report({ report_type: 'overview', page: 2 });
    expect(page2.transactions.data).toEqual([]);
    expect(page2.transactions.meta).toMatchObject({ current_page: 2, total: 7, last_page: 1 });
    const search = await report({ report_type: 'sent', search_query: 'r3@' });
    expect(locals(search.transactions.data)).toEqual(['r3']);
  });

  it('answers the group’s day series from the rollup, hand-counted', async () => {
    const { dailyStats } = await report({ report_type: 'overview', ...consoleRange() });
    expect(dailyStats).toHaveLength(30);
    expect(dailyStats[29].tstat_day).toBe(today());
    expect(dailyStats.slice(0, 29).every((d) => d.requests === 0 && d.sent === 0)).toBe(true);
    // one state per transaction: r1, r2, r3, r5 delivered; r4 (a DSN after delivery) and r6 (550 at
    // delivery) bounced; r6 again failed (suppressed at acceptance)
    expect(dailyStats[29]).toEqual({
      tstat_day: today(),
      requests: 7,
      sent: 6,
      delivered: 4,
      failed: 1,
      bounced: 2,
      bounces_hard: 1,
      bounces_soft: 1,
      pending: 0,
      opens: 3,
      unique_opens: 2,
      link_clicks: 5,
      unique_clicks: 3,
      machine_opens: 0,
      machine_clicks: 0,
      complaints: 0,
    });
    // another group of the same customer is not counted in
    const other = await report({ report_type: 'overview', group_uuid: otherGroup });
    expect(other.dailyStats.at(-1)).toMatchObject({ requests: 1, sent: 1, delivered: 1, opens: 0 });
  });
});

describe('/v1/transaction-groups/overview', () => {
  // shares of the 7 transactions, and of the 4 delivered for opens, clicks and complaints
  const expected = {
    overviewStats: {
      sent: { value: 6, percentage: 85.71 },
      delivered: { value: 4, percentage: 57.14 },
      failed: { value: 1, percentage: 14.29 },
      bounced: { value: 2, percentage: 28.57 },
      bouncesHard: { value: 1, percentage: 14.29 },
      bouncesSoft: { value: 1, percentage: 14.29 },
      pending: { value: 0, percentage: 0 },
      complaints: { value: 0, percentage: 0 },
      uniqueOpens: { value: 2, percentage: 50 },
      notOpened: { value: 2, percentage: 50 },
      uniqueClicks: { value: 3, percentage: 75 },
      notClicked: { value: 1, percentage: 25 },
      totalOpens: { value: 3 },
      totalClicks: { value: 5 },
      machineOpens: { value: 0 },
      machineClicks: { value: 0 },
      total: 7,
    },
  };

  it('POST answers each figure with its share (of the total; opens and clicks of the delivered)', async () => {
    const res = await app.call('POST', '/v1/transaction-groups/overview', {
      cookie,
      body: { group_uuid: orders, report_type: 'overview', ...consoleRange() },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expected);
  });

  it('GET answers the same from the query string', async () => {
    const { start_date, end_date } = consoleRange();
    const res = await app.call(
      'GET',
      `/v1/transaction-groups/overview?group_uuid=${orders}&start_date=${start_date}&end_date=${end_date}`,
      { cookie },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(expected);
  });

  it('answers zeros (no division by zero) for a range without traffic', async () => {
    const res = await app.call('POST', '/v1/transaction-groups/overview', {
      cookie,
      body: { group_uuid: orders, start_date: '2020-01-01', end_date: '2020-01-31' },
    });
    const { overviewStats } = await res.json();
    expect(overviewStats.total).toBe(0);
    expect(overviewStats.delivered).toEqual({ value: 0, percentage: 0 });
    expect(overviewStats.notOpened).toEqual({ value: 0, percentage: 0 });
  });
});

describe('v1/links', () => {
  it('POST answers one row per URL and subject with total and unique clicks', async () => {
    const res = await app.call('POST', '/v1/links', {
      cookie,
      body: { report_type: 'clicks', group_uuid: orders, ...consoleRange() },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    // A: r1 twice and r2 once (2 transactions); B: r1 and r3 once each (2 transactions)
    expect(body.data).toEqual([
      { tll_url: LINK_A, tm_subject: 'Orders update', click_count: 3, unique_click_count: 2 },
      { tll_url: LINK_B, tm_subject: 'Orders update', click_count: 2, unique_click_count: 2 },
    ]);
    expect(body.meta).toEqual({ current_page: 1, per_page: 10, total: 2, last_page: 1, total_capped: false });
  });

  it('GET pages, sorts and searches with the query string', async () => {
    const res = await app.call('GET', `/v1/links?group_uuid=${orders}&page=1&order=link&order_by=asc`, { cookie });
    expect(res.status).toBe(200);
    expect((await res.json()).data.map((l: { tll_url: string }) => l.tll_url)).toEqual([LINK_B, LINK_A]);
    const page2 = await (await app.call('GET', `/v1/links?group_uuid=${orders}&page=2`, { cookie })).json();
    expect(page2.data).toEqual([]);
    const found = await (await app.call('GET', `/v1/links?group_uuid=${orders}&search_query=HELP`, { cookie })).json();
    expect(found.data.map((l: { tll_url: string }) => l.tll_url)).toEqual([LINK_B]);
  });

  it('agrees with the links table it rolls up', async () => {
    const rows = await app.ctx.db
      .selectFrom('links')
      .innerJoin('transactions as t', 't.id', 'links.transaction_id')
      .select(['links.url', 'links.clicks'])
      .where('t.customer_id', '=', shop.customerId)
      .where('links.clicks', '>', 0)
      .execute();
    const sum = (url: string) => rows.filter((r) => r.url === url).reduce((n, r) => n + r.clicks, 0);
    expect([
      sum(LINK_A),
      rows.filter((r) => r.url === LINK_A).length,
      sum(LINK_B),
      rows.filter((r) => r.url === LINK_B).length,
    ]).toEqual([3, 2, 2, 2]);
  });
});

describe('bad input', () => {
  const calls: [string, string][] = [
    ['POST', '/v1/transaction-groups/reports'],
    ['POST', '/v1/links'],
    ['POST', '/v1/transaction-groups/reports/export'],
  ];

  it.each(calls)(
    '%s %s: 400 for an unknown report type, start after end, over 400 days, a bad page or sort key',
    async (method, path) => {
      const bad: Record<string, unknown>[] = [
        { report_type: 'everything' },
        { report_type: 'sent', start_date: startOfToday(), end_date: startOfToday() - 86_400 },
        { report_type: 'sent', start_date: '2024-01-01', end_date: '2025-02-05' },
        { report_type: 'sent', page: 'two' },
        { report_type: 'sent', page: 0 },
        { report_type: 'sent', order: 'recipient_password', order_by: 'desc' },
        { report_type: 'sent', order: 'trans_id', order_by: 'sideways' },
        { report_type: 'sent', colour: 'red' },
      ];
      for (const body of bad) {
        const res = await app.call(method, path, { cookie, body: { group_uuid: orders, ...body } });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((await res.json()).error.code).toBe('validation_failed');
      }
      // 400 days is allowed, 401 is not
      const edge = await app.call('POST', '/v1/transaction-groups/reports', {
        cookie,
        body: { group_uuid: orders, report_type: 'sent', start_date: '2024-01-01', end_date: '2025-02-03' },
      });
      expect(edge.status).toBe(200);
    },
  );

  it.each(calls)(
    '%s %s: 404 for a malformed, unknown or another customer’s group, nothing of theirs',
    async (method, path) => {
      for (const group of ['not-a-uuid', '00000000-0000-4000-8000-000000000000', otherCustomersGroup, undefined]) {
        const res = await app.call(method, path, { cookie, body: { report_type: 'sent', group_uuid: group } });
        expect(res.status, String(group)).toBe(404);
        expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'No such transaction group' } });
      }
      // and the other customer sees its own group
      const own = await app.call('POST', '/v1/transaction-groups/reports', {
        cookie: otherCookie,
        body: { report_type: 'sent', group_uuid: otherCustomersGroup },
      });
      expect(own.status).toBe(200);
    },
  );

  it('the overview: 404 for another customer’s group, 400 for a bad range; GET links: 400 for a bad page', async () => {
    expect(
      (await app.call('POST', '/v1/transaction-groups/overview', { cookie, body: { group_uuid: otherCustomersGroup } }))
        .status,
    ).toBe(404);
    expect(
      (
        await app.call(
          'GET',
          `/v1/transaction-groups/overview?group_uuid=${orders}&start_date=2024-01-01&end_date=2025-06-01`,
          { cookie },
        )
      ).status,
    ).toBe(400);
    expect((await app.call('GET', `/v1/links?group_uuid=${orders}&page=abc`, { cookie })).status).toBe(400);
  });

  it('needs a session', async () => {
    expect(
      (await app.call('POST', '/v1/transaction-groups/reports', { body: { report_type: 'sent', group_uuid: orders } }))
        .status,
    ).toBe(401);
    expect((await app.call('GET', `/v1/links?group_uuid=${orders}`)).status).toBe(401);
  });
});

describe('migration 009', () => {
  it('builds link_stats from the clicks already recorded', async () => {
    const snapshot = () =>
      app.ctx.db
        .selectFrom('link_stats')
        .select(['customer_id', 'group_id', 'day', 'url', 'subject', 'clicks', 'unique_clicks'])
        .orderBy('url')
        .execute();
    const before = await snapshot();
    expect(before.map((r) => [r.url, Number(r.clicks), Number(r.unique_clicks)])).toEqual([
      [LINK_B, 2, 2],
      [LINK_A, 3, 2],
    ]);
    const down = await migrator(app.ctx.db).migrateTo('007-transaction-counts');
    expect(down.error).toBeUndefined();
    await migrateToLatest(app.ctx.db);
    expect(await snapshot()).toEqual(before);
  });
});
