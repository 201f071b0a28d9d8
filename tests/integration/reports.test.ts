// The calls of the Dashboard and Transactions pages (docs/console.md §2, §7): GET /v1/dashboard,
// GET /v1/dashboard/get-quota, POST /v1/dashboard/overview, POST /v1/transaction/search and
// POST /v1/transaction-groups/search. Mail is accepted through the real POST /v1/mail on chosen
// days (only Date is faked, so rows and rollups carry those days); delivery outcomes are then
// written onto the rows as the worker, bounce receiver and tracker would.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { bumpDailyStats } from '../../src/server/stats/stats.repository.ts';
import { sql, type Updateable } from 'kysely';
import { addDays } from '../../src/lib/dates.ts';
import { COUNT_CAP } from '../../src/server/reports/report-input.ts';
import type { TransactionsTable } from '../../src/server/db/schema.ts';

let app: TestApp;

interface Customer {
  customerId: number;
  cookie: string;
  send(
    at: string,
    group: string,
    to: (string | { email: string; name: string })[],
    extra?: Record<string, unknown>,
  ): Promise<string[]>;
}

/** A customer with a verified domain and quota, signed in; `send` accepts mail as if at `at`. */
async function customer(domain: string, quota: number): Promise<Customer> {
  const account = await app.createAccount();
  await app.ctx.db
    .updateTable('customers')
    .set({ monthly_quota: quota })
    .where('id', '=', account.customerId)
    .execute();
  await addDomain(app.ctx, account.customerId, domain, { verified: true });
  const { apiKey } = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials;
  const cookie = await app.signIn(account.email, account.password);
  const send: Customer['send'] = async (at, group, to, extra = {}) => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(at));
    try {
      const res = await app.api.request('http://localhost:4321/v1/mail', {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          from: { email: `news@${domain}`, name: 'News Desk' },
          to,
          subject: `${group} mail`,
          text: 'Hello',
          group,
          ...extra,
        }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()).data as { trans_uuid: string }[]).map((d) => d.trans_uuid);
    } finally {
      vi.useRealTimers();
    }
  };
  return { customerId: account.customerId, cookie, send };
}

const unix = (iso: string) => Date.parse(iso) / 1000;

async function setRow(uuid: string, patch: Updateable<TransactionsTable>): Promise<void> {
  await app.ctx.db.updateTable('transactions').set(patch).where('uuid', '=', uuid).execute();
}

let a: Customer;
let b: Customer;
/** Customer A's transaction uuids by recipient local part. */
const id: Record<string, string> = {};
const groupUuid: Record<string, string> = {};
let otherCustomerGroupUuid: string;
let otherCustomerUuid: string;

beforeAll(async () => {
  app = await createTestApp();
  a = await customer('reports-a.example', 18);
  b = await customer('reports-b.example', 100);

  // the suppressed recipient of S6
  const suppressed = await app.call('POST', '/v1/suppression', {
    cookie: a.cookie,
    body: { emails: ['ivan@alpha.example'] },
  });
  expect(suppressed.status).toBe(200);

  const bulk = Array.from({ length: 12 }, (_, i) => `bulk${i + 1}@delta.example`);
  const s0 = await a.send('2025-03-01T10:00:00Z', 'Bulk', bulk);
  for (const [i, uuid] of s0.entries()) id[`bulk${i + 1}`] = uuid;
  [id.alice, id.bob] = await a.send('2025-03-10T12:00:00Z', 'Welcome', ['alice@alpha.example', 'bob@beta.example'], {
    headers: { 'X-Campaign': 'spring' },
  });
  [id.carol, id.dave] = await a.send('2025-03-12T08:00:00Z', 'Receipts', ['carol@alpha.example', 'dave@gamma.example']);
  [id.erin] = await a.send('2025-03-12T23:59:59Z', 'Receipts', [{ email: 'erin@beta.example', name: 'Erin B' }]);
  [id.frank] = await a.send('2025-03-13T00:00:00Z', 'Welcome', ['frank@alpha.example']);
  // quota 18 is used up by now: both become no_quota
  [id.grace, id.heidi] = await a.send('2025-03-14T09:00:00Z', 'Receipts', [
    'grace@gamma.example',
    'heidi@gamma.example',
  ]);
  [id.ivan] = await a.send('2025-03-14T10:00:00Z', 'Welcome', ['ivan@alpha.example']);

  [otherCustomerUuid] = await b.send('2025-03-12T09:00:00Z', 'Welcome', ['alice@alpha.example']);

  // what delivery, bounces and tracking would have written
  await setRow(id.alice, {
    status: 'sent',
    delivered_status: 'delivered',
    sent_at: '2025-03-12T10:00:00Z',
    open_count: 3,
    first_open_at: '2025-03-12T11:00:00Z',
    click_count: 2,
    first_click_at: '2025-03-12T11:05:00Z',
    next_attempt_at: null,
  });
  await setRow(id.bob, {
    status: 'sent',
    delivered_status: 'bounced',
    sent_at: '2025-03-10T12:06:00Z',
    bounce_type: 'hard',
    next_attempt_at: null,
  });
  await setRow(id.carol, {
    status: 'sent',
    delivered_status: 'delivered',
    sent_at: '2025-03-12T09:00:00Z',
    open_count: 1,
    first_open_at: '2025-03-12T09:30:00Z',
    click_count: 1,
    first_click_at: '2025-03-12T09:31:00Z',
    next_attempt_at: null,
  });
  await setRow(id.erin, { status: 'failed', delivered_status: 'bounced', bounce_type: 'hard', next_attempt_at: null });
  await setRow(id.frank, {
    status: 'sent',
    delivered_status: 'delivered',
    sent_at: '2025-03-13T01:00:00Z',
    open_count: 1,
    first_open_at: '2025-03-13T02:00:00Z',
    next_attempt_at: null,
  });

  const groups = await app.ctx.db
    .selectFrom('transaction_groups')
    .select(['id', 'uuid', 'name', 'customer_id'])
    .execute();
  for (const g of groups.filter((g) => g.customer_id === a.customerId)) groupUuid[g.name] = g.uuid;
  otherCustomerGroupUuid = groups.find((g) => g.customer_id === b.customerId)!.uuid;
  const groupId = (name: string) => groups.find((g) => g.customer_id === a.customerId && g.name === name)!.id;
  // what tracking would have counted on the days of the opens and clicks (the states are the rows')
  await bumpDailyStats(app.ctx.db, [
    {
      customer_id: a.customerId,
      group_id: groupId('Welcome'),
      day: '2025-03-12',
      counts: { opens: 3, clicks: 2 },
    },
    { customer_id: a.customerId, group_id: groupId('Welcome'), day: '2025-03-13', counts: { opens: 1 } },
    { customer_id: a.customerId, group_id: groupId('Receipts'), day: '2025-03-12', counts: { opens: 1, clicks: 1 } },
  ]);
});
afterAll(async () => {
  await app?.close();
});

interface Wire {
  data: Record<string, unknown>[];
  meta: { current_page: number; per_page: number; total: number; last_page: number; total_capped: boolean };
}

async function search(body: Record<string, unknown>, cookie = a.cookie): Promise<Wire> {
  const res = await app.call('POST', '/v1/transaction/search', { cookie, body });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

/** Names (local parts of customer A's recipients) of a search's rows, in order. */
async function names(body: Record<string, unknown>): Promise<string[]> {
  const { data } = await search(body);
  const byUuid = new Map(Object.entries(id).map(([name, uuid]) => [uuid, name]));
  return data.map((row) => byUuid.get(row.trans_uuid as string) ?? `other:${row.trans_uuid}`);
}

const LATEST_FIRST = ['ivan', 'heidi', 'grace', 'frank', 'erin', 'dave', 'carol', 'bob', 'alice'];
const BULK_LATEST_FIRST = Array.from({ length: 12 }, (_, i) => `bulk${12 - i}`);
const MARCH_10_ON = { startDate: '2025-03-10' };

describe('POST /v1/transaction/search', () => {
  it('answers the customer’s transactions newest first with the spec’s fields', async () => {
    const page = await search({});
    expect(page.meta).toEqual({ current_page: 1, per_page: 10, total: 21, last_page: 3, total_capped: false });
    expect(await names({})).toEqual([...LATEST_FIRST, 'bulk12']);

    const alice = (await search({ transaction_search_string: id.alice })).data[0];
    expect(alice).toEqual({
      trans_uuid: id.alice,
      trans_date_sent: unix('2025-03-12T10:00:00Z'),
      trans_date_queued: unix('2025-03-10T12:00:00Z'),
      trans_to_email: 'alice@alpha.example',
      trans_to_name: '',
      tm_subject: 'Welcome mail',
      tm_from_name: 'News Desk',
      tm_from_email: 'news@reports-a.example',
      tm_additional_headers: expect.any(String),
      trans_delivered_status: 'delivered',
      trans_status: 'sent',
      trans_group_uuid: groupUuid.Welcome,
      trans_group_name: 'Welcome',
      trans_read_count: 3,
      trans_click_count: 2,
      trans_attempts: 0,
    });
    expect(JSON.parse(alice.tm_additional_headers as string)).toEqual({ 'X-Campaign': 'spring' });

    const [dave] = (await search({ transaction_search_string: id.dave })).data;
    expect(dave).toMatchObject({
      trans_date_sent: 0,
      trans_date_queued: unix('2025-03-12T08:00:00Z'),
      trans_status: 'queued',
      tm_additional_headers: '{}',
    });
    const [erin] = (await search({ transaction_search_string: id.erin })).data;
    expect(erin).toMatchObject({ trans_to_name: 'Erin B', trans_status: 'failed', trans_delivered_status: 'bounced' });
  });

  it('pages with meta in both directions, the last pages included', async () => {
    const all = [...LATEST_FIRST, ...BULK_LATEST_FIRST];
    const pages = await Promise.all([1, 2, 3].map((page) => names({ page })));
    expect(pages.flat()).toEqual(all);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 1]);
    const ascending = await Promise.all([1, 2, 3].map((page) => names({ page: String(page), order: 'asc' })));
    expect(ascending.flat()).toEqual([...all].reverse());
    const third = await search({ page: 3 });
    expect(third.meta).toMatchObject({ current_page: 3, total: 21, last_page: 3 });
    const beyond = await search({ page: 5 });
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toMatchObject({ current_page: 5, total: 21 });

    // a filtered total is counted; its late pages walk the same order
    const bulk = await Promise.all([1, 2].map((page) => names({ page, transaction_search_string: 'bulk' })));
    expect(bulk.flat()).toEqual(BULK_LATEST_FIRST);
  });

  it('takes the range in either spelling, as UTC days or unix seconds, and excludes rows outside it', async () => {
    const march12 = ['erin', 'dave', 'carol'];
    expect(await names({ startDate: '2025-03-12', endDate: '2025-03-12' })).toEqual(march12);
    expect(await names({ start_date: '2025-03-12', end_date: '2025-03-12' })).toEqual(march12);
    expect(
      await names({ startDate: '2025-03-12', endDate: '2025-03-12', start_date: '2025-03-12', end_date: '2025-03-12' }),
    ).toEqual(march12);
    expect(
      await names({ start_date: unix('2025-03-12T00:00:00Z'), end_date: String(unix('2025-03-12T23:59:59Z')) }),
    ).toEqual(march12);
    expect((await search({ startDate: '2025-03-12', endDate: '2025-03-12' })).meta.total).toBe(3);
    expect(
      (await search({ start_date: unix('2025-03-12T00:00:00Z'), end_date: unix('2025-03-12T23:59:59Z') })).meta.total,
    ).toBe(3);
    expect(await names({ startDate: '2025-03-13' })).toEqual(['ivan', 'heidi', 'grace', 'frank']);
    expect(await names({ endDate: '2025-03-09' })).toEqual(BULK_LATEST_FIRST.slice(0, 10));
    expect(await names({ startDate: '2025-03-02', endDate: '2025-03-09' })).toEqual([]);
    expect(await names({ startDate: '', endDate: null, message_status: '' })).toEqual([...LATEST_FIRST, 'bulk12']);
  });

  it('filters by message status as the figures count: failed never handed over, sent answered', async () => {
    // suppressed and over the quota; erin, refused by the remote server, is bounced
    expect(await names({ message_status: 'failed' })).toEqual(['ivan', 'heidi', 'grace']);
    const failed = await search({ message_status: 'failed' });
    expect(failed.data.map((r) => r.trans_status)).toEqual(['failed', 'no_quota', 'no_quota']);
    expect(failed.meta).toMatchObject({ total: 3, last_page: 1, total_capped: false });
    expect(await names({ message_status: 'sent' })).toEqual(['frank', 'erin', 'carol', 'bob', 'alice']);
    expect(await names({ message_status: 'delivered' })).toEqual(['frank', 'carol', 'alice']);
    expect((await search({ message_status: 'all' })).meta.total).toBe(21);
  });

  it('narrows to a group report and to a group', async () => {
    expect(await names({ reportType: 'bounced' })).toEqual(['erin', 'bob']);
    expect(await names({ report_type: 'opens' })).toEqual(['frank', 'carol', 'alice']);
    expect(await names({ reportType: 'clicks', ...MARCH_10_ON })).toEqual(['carol', 'alice']);
    expect(await names({ reportType: 'sent', message_status: 'failed' })).toEqual([]);
    expect(await names({ group_uuid: groupUuid.Receipts })).toEqual(['heidi', 'grace', 'erin', 'dave', 'carol']);
    expect(
      (await search({ group_uuid: groupUuid.Receipts, startDate: '2025-03-12', endDate: '2025-03-12' })).meta.total,
    ).toBe(3);
    expect(await names({ group_uuid: otherCustomerGroupUuid })).toEqual([]);
  });

  it('searches by whole uuid, by the start of an address or of its domain, and by whole recipient', async () => {
    expect(await names({ transaction_search_string: id.carol })).toEqual(['carol']);
    expect(await names({ transaction_search_string: id.carol.toUpperCase() })).toEqual(['carol']);
    expect(await names({ transaction_search_string: otherCustomerUuid })).toEqual([]);
    expect(await names({ transaction_search_string: 'ali' })).toEqual(['alice']);
    expect(await names({ transaction_search_string: 'CAROL@ALPHA' })).toEqual(['carol']);
    expect(await names({ transaction_search_string: 'beta.example' })).toEqual(['erin', 'bob']);
    expect(await names({ transaction_search_string: '@alpha' })).toEqual(['ivan', 'frank', 'carol', 'alice']);
    expect(await names({ search_query: 'gamma' })).toEqual(['heidi', 'grace', 'dave']);
    expect(await names({ transaction_search_string: 'lice' })).toEqual([]); // a prefix search, by design
    expect(await names({ transaction_search_string: 'b_b' })).toEqual([]); // LIKE wildcards match literally
    expect(await names({ transaction_search_string: 'gamma', message_status: 'failed' })).toEqual(['heidi', 'grace']);
    expect(await names({ recipient_email: 'Bob@Beta.Example' })).toEqual(['bob']);
    expect(await names({ recipient_email: 'bob@beta' })).toEqual([]);
    const counted = await search({ transaction_search_string: 'gamma' });
    expect(counted.meta).toMatchObject({ total: 3, total_capped: false });
  });

  it('sorts by every key both ways, never-opened rows last', async () => {
    expect(await names({ ...MARCH_10_ON, order_by: 'trans_id', order: 'asc' })).toEqual([...LATEST_FIRST].reverse());
    // docs/console-reports.md §9 writes the fields swapped: "order trans_id, order_by desc"
    expect(await names({ ...MARCH_10_ON, order: 'trans_id', order_by: 'ASC' })).toEqual([...LATEST_FIRST].reverse());
    expect(await names({ ...MARCH_10_ON, order_by: 'dateSent', order: 'desc' })).toEqual([
      'ivan',
      'heidi',
      'grace',
      'frank',
      'erin',
      'alice',
      'carol',
      'dave',
      'bob',
    ]);
    expect(await names({ ...MARCH_10_ON, order_by: 'dateSent', order: 'asc' })).toEqual([
      'bob',
      'dave',
      'carol',
      'alice',
      'erin',
      'frank',
      'grace',
      'heidi',
      'ivan',
    ]);
    expect(await names({ ...MARCH_10_ON, order_by: 'firstOpenDate' })).toEqual([
      'frank',
      'alice',
      'carol',
      'ivan',
      'heidi',
      'grace',
      'erin',
      'dave',
      'bob',
    ]);
    expect(await names({ ...MARCH_10_ON, order_by: 'firstOpenDate', order: 'asc' })).toEqual([
      'carol',
      'alice',
      'frank',
      'bob',
      'dave',
      'erin',
      'grace',
      'heidi',
      'ivan',
    ]);
    expect(await names({ ...MARCH_10_ON, order_by: 'firstClickDate' })).toEqual([
      'alice',
      'carol',
      'ivan',
      'heidi',
      'grace',
      'frank',
      'erin',
      'dave',
      'bob',
    ]);
    expect(await names({ ...MARCH_10_ON, order_by: 'clicks' })).toEqual([
      'alice',
      'carol',
      'ivan',
      'heidi',
      'grace',
      'frank',
      'erin',
      'dave',
      'bob',
    ]);
    expect(await names({ ...MARCH_10_ON, order_by: 'opens', order: 'asc' })).toEqual([
      'bob',
      'dave',
      'erin',
      'grace',
      'heidi',
      'ivan',
      'carol',
      'frank',
      'alice',
    ]);
  });

  it('never shows another customer’s transactions', async () => {
    const other = await search({}, b.cookie);
    expect(other.data.map((r) => r.trans_uuid)).toEqual([otherCustomerUuid]);
    expect(other.meta.total).toBe(1);
    expect((await search({ transaction_search_string: 'alice' })).data.map((r) => r.trans_uuid)).toEqual([id.alice]);
    expect((await search({ recipient_email: 'alice@alpha.example' }, b.cookie)).data.map((r) => r.trans_uuid)).toEqual([
      otherCustomerUuid,
    ]);
  });

  it(
    'totals status filters and report types exactly from ' + 'the transaction_counts rollup, beyond the count cap too',
    async () => {
      // a third customer with 2 × COUNT_CAP transactions in the default range (copies of one real
      // send, inserted with SQL: the triggers of migration 007 count them as any insert, though the
      // requests rollup of the unfiltered total does not see them), then some of them changed the
      // way delivery, bounces and tracking change rows
      const c = await customer('reports-many.example', 100);
      const today = new Date().toISOString().slice(0, 10);
      const [seed] = await c.send(`${today}T00:00:00Z`, 'Many', ['seed@many.example']);
      await sql`
      insert into transactions (uuid, customer_id, message_id, group_id, to_email, status, delivered_status,
        message_id_header, queued_at)
      select gen_random_uuid(), customer_id, message_id, group_id, 'bulk' || i || '@many.example', 'failed',
        'failed', '<' || i || '@many.example>',
             now() - (i % 20) * interval '1 day'
        from transactions, generate_series(1, ${2 * COUNT_CAP}) as i
       where uuid = ${seed}`.execute(app.ctx.db);
      const changed = (status: string, delivered: string, opens: number, where: ReturnType<typeof sql>) =>
        sql`update transactions set status = ${status}, delivered_status = ${delivered}, open_count = ${opens}
           where customer_id = ${c.customerId} and ${where}`.execute(app.ctx.db);
      await changed('sent', 'delivered', 0, sql`id % 10 = 1`);
      await changed('sent', 'delivered', 2, sql`id % 10 = 2`);
      await changed('sent', 'bounced', 0, sql`id % 10 = 3`);
      const rowsWhere = async (where: ReturnType<typeof sql>) => {
        const { rows } = await sql<{
          n: string | number;
        }>`select count(*) n from transactions where customer_id = ${c.customerId} and ${where}`.execute(app.ctx.db);
        return Number(rows[0].n);
      };
      const cases: [Record<string, unknown>, ReturnType<typeof sql>][] = [
        [{ message_status: 'failed' }, sql`status in ('failed', 'no_quota')`],
        [{ message_status: 'sent' }, sql`status = 'sent'`],
        [{ message_status: 'delivered' }, sql`delivered_status = 'delivered'`],
        [{ reportType: 'bounced' }, sql`delivered_status = 'bounced'`],
        [{ reportType: 'opens' }, sql`open_count > 0`],
        [{ reportType: 'opens', message_status: 'delivered' }, sql`open_count > 0 and delivered_status = 'delivered'`],
        [
          { reportType: 'failed', startDate: addDays(today, -5), endDate: addDays(today, -1) },
          sql`status in ('failed', 'no_quota') and queued_at >= ${`${addDays(today, -5)}T00:00:00Z`} and queued_at <
          ${`${today}T00:00:00Z`}`,
        ],
      ];
      for (const [body, where] of cases) {
        const expected = await rowsWhere(where);
        expect({ body, meta: (await search(body, c.cookie)).meta }).toMatchObject({
          body,
          meta: { total: expected, total_capped: false },
        });
      }
      expect(await rowsWhere(sql`status = 'failed'`)).toBeGreaterThan(COUNT_CAP);
      // a range that is not whole UTC days has no rollup to read: counted, and capped
      const seconds = await search(
        {
          message_status: 'failed',
          start_date: Math.floor(Date.now() / 1000) - 25 * 86400,
          end_date: Math.floor(Date.now() / 1000),
        },
        c.cookie,
      );
      expect(seconds.meta).toMatchObject({ total: COUNT_CAP + 1, total_capped: true });
    },
  );

  it.each([
    [{ startDate: '2025-02-30' }],
    [{ startDate: '12/03/2025' }],
    [{ end_date: 'yesterday' }],
    [{ startDate: '2025-03-12', endDate: '2025-03-11' }],
    [{ startDate: '2025-03-12', start_date: '2025-03-13' }],
    [{ page: 0 }],
    [{ page: -1 }],
    [{ page: 1.5 }],
    [{ page: 'two' }],
    [{ order_by: 'subject' }],
    [{ order_by: 'bounceReceivedDated' }],
    [{ order: 'sideways' }],
    [{ message_status: 'bounced' }],
    [{ reportType: 'everything' }],
    [{ group_uuid: 'not-a-uuid' }],
    [{ transaction_search_string: 'a', search_query: 'b' }],
    [{ messageStatus: 'failed' }],
  ])('answers 400 validation_failed for %j', async (body) => {
    const res = await app.call('POST', '/v1/transaction/search', { cookie: a.cookie, body });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('validation_failed');
  });

  it('needs a session and the console header', async () => {
    expect((await app.call('POST', '/v1/transaction/search', { body: {} })).status).toBe(401);
    expect(
      (
        await app.call('POST', '/v1/transaction/search', {
          cookie: a.cookie,
          body: {},
          headers: { 'Request-Type': 'api' },
        })
      ).status,
    ).toBe(403);
  });
});

describe('POST /v1/transaction-groups/search', () => {
  async function groups(body: Record<string, unknown>, cookie = a.cookie): Promise<Wire> {
    const res = await app.call('POST', '/v1/transaction-groups/search', { cookie, body });
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json();
  }
  const groupNames = async (body: Record<string, unknown>) => (await groups(body)).data.map((g) => g.group_name);

  it('lists the customer’s groups by last send date with totals from the rollup', async () => {
    const page = await groups({});
    expect(page.meta).toEqual({ current_page: 1, per_page: 10, total: 3, last_page: 1, total_capped: false });
    expect(page.data.map((g) => g.group_name)).toEqual(['Welcome', 'Receipts', 'Bulk']);
    const [welcome, receipts, bulk] = page.data;
    expect(welcome).toEqual({
      group_id: expect.any(Number),
      group_uuid: groupUuid.Welcome,
      group_name: 'Welcome',
      group_create_date: expect.any(Number),
      group_last_send_date: unix('2025-03-14T10:00:00Z'),
      groupStats: {
        tgs_total_requests: 4,
        tgs_total_sent: 3,
        tgs_total_failed: 1,
        tgs_total_delivered: 2,
        tgs_total_bounces: 1,
        tgs_total_opens: 4,
        tgs_total_link_clicks: 2,
      },
    });
    expect(receipts.groupStats).toEqual({
      tgs_total_requests: 5,
      tgs_total_sent: 2,
      tgs_total_failed: 2,
      tgs_total_delivered: 1,
      tgs_total_bounces: 1,
      tgs_total_opens: 1,
      tgs_total_link_clicks: 1,
    });
    expect(bulk.groupStats).toMatchObject({ tgs_total_requests: 12, tgs_total_sent: 0, tgs_total_failed: 0 });
    expect(bulk.group_create_date as number).toBeGreaterThan(0);
  });

  it('sorts both ways, searches names, pages', async () => {
    expect(await groupNames({ order: 'asc' })).toEqual(['Bulk', 'Receipts', 'Welcome']);
    expect(await groupNames({ orderBy: 'failed' })).toEqual(['Receipts', 'Welcome', 'Bulk']);
    expect(await groupNames({ orderBy: 'failed', order: 'asc' })).toEqual(['Bulk', 'Welcome', 'Receipts']);
    expect(await groupNames({ orderBy: 'requests' })).toEqual(['Bulk', 'Receipts', 'Welcome']);
    expect(await groupNames({ orderBy: 'group_name', order: 'asc' })).toEqual(['Bulk', 'Receipts', 'Welcome']);
    expect(await groupNames({ orderBy: 'group_name', order: 'desc' })).toEqual(['Welcome', 'Receipts', 'Bulk']);
    expect(await groupNames({ searchQuery: 'ELCO' })).toEqual(['Welcome']);
    expect(await groupNames({ search_query: 'rec' })).toEqual(['Receipts']);
    expect(await groupNames({ searchQuery: '%' })).toEqual([]);
    const second = await groups({ page: 2 });
    expect(second.data).toEqual([]);
    expect(second.meta).toMatchObject({ current_page: 2, total: 3, last_page: 1 });
  });

  it('never shows another customer’s groups', async () => {
    const other = await groups({}, b.cookie);
    expect(other.data.map((g) => g.group_uuid)).toEqual([otherCustomerGroupUuid]);
    expect((await groups({ searchQuery: 'Welcome' })).data.map((g) => g.group_uuid)).toEqual([groupUuid.Welcome]);
  });

  it.each([
    [{ page: 0 }],
    [{ orderBy: 'bogus' }],
    [{ order: 'up' }],
    [{ searchQuery: 'a', search_query: 'b' }],
    [{ group_uuid: '00000000-0000-4000-8000-000000000000' }],
  ])('answers 400 validation_failed for %j', async (body) => {
    const res = await app.call('POST', '/v1/transaction-groups/search', { cookie: a.cookie, body });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('validation_failed');
  });
});

describe('GET /v1/dashboard', () => {
  it('answers the range’s total and its latest transactions, first page', async () => {
    const res = await app.call('GET', '/v1/dashboard?startDate=2025-03-12&endDate=2025-03-13', { cookie: a.cookie });
    expect(res.status).toBe(200);
    const { data } = await res.json();
    expect(data.overviewStats).toEqual({ total: 4 });
    expect(data.transactionStats.meta).toEqual({
      current_page: 1,
      per_page: 10,
      total: 4,
      last_page: 1,
      total_capped: false,
    });
    expect(data.transactionStats.data.map((r: { trans_uuid: string }) => r.trans_uuid)).toEqual([
      id.frank,
      id.erin,
      id.dave,
      id.carol,
    ]);

    const all = await (await app.call('GET', '/v1/dashboard', { cookie: a.cookie })).json();
    expect(all.data.overviewStats.total).toBe(21);
    expect(all.data.transactionStats.data).toHaveLength(10);
    const other = await (await app.call('GET', '/v1/dashboard?start_date=2025-03-01', { cookie: b.cookie })).json();
    expect(other.data.transactionStats.data.map((r: { trans_uuid: string }) => r.trans_uuid)).toEqual([
      otherCustomerUuid,
    ]);
  });

  it('answers 400 for a bad date and 401 without a session', async () => {
    expect((await app.call('GET', '/v1/dashboard?startDate=2025-13-01', { cookie: a.cookie })).status).toBe(400);
    expect(
      (await app.call('GET', '/v1/dashboard?startDate=2025-03-02&endDate=2025-03-01', { cookie: a.cookie })).status,
    ).toBe(400);
    expect((await app.call('GET', '/v1/dashboard')).status).toBe(401);
  });
});

describe('GET /v1/dashboard/get-quota', () => {
  it('answers this month’s use of the monthly quota', async () => {
    const quota = async (cookie: string) =>
      (
        await (
          await app.call('GET', '/v1/dashboard/get-quota?startDate=2025-03-01&endDate=2025-03-31', { cookie })
        ).json()
      ).quota;
    // customer A sent in March 2025, not this month
    expect(await quota(a.cookie)).toEqual({ sent: 0, maximum: 18 });
    const c = await customer('reports-c.example', 5);
    expect(await quota(c.cookie)).toEqual({ sent: 0, maximum: 5 });
    await c.send(new Date().toISOString(), 'Now', ['x@now.example', 'y@now.example', 'z@now.example']);
    expect(await quota(c.cookie)).toEqual({ sent: 3, maximum: 5 });
    expect((await app.call('GET', '/v1/dashboard/get-quota')).status).toBe(401);
  });
});

describe('POST /v1/dashboard/overview', () => {
  const overview = async (body: unknown, cookie = a.cookie) => {
    const res = await app.call('POST', '/v1/dashboard/overview', { cookie, body });
    expect(res.status, await res.clone().text()).toBe(200);
    return res.json();
  };
  const zero = {
    requests: 0,
    sent: 0,
    failed: 0,
    delivered: 0,
    bounced: 0,
    bounces_hard: 0,
    bounces_soft: 0,
    opens: 0,
    unique_opens: 0,
    link_clicks: 0,
    unique_clicks: 0,
    machine_opens: 0,
    machine_clicks: 0,
    complaints: 0,
    pending: 0,
  };

  it('answers the range’s total and every day of it, zeros filled', async () => {
    const answer = await overview({ startDate: '2025-03-09', endDate: '2025-03-15' });
    expect(answer.overviewStats).toEqual({ total: 9 });
    // the states of each day's transactions as they are now; opens and clicks on the days they happened
    expect(answer.dailyStats).toEqual([
      { tstat_day: '2025-03-09', ...zero },
      {
        tstat_day: '2025-03-10',
        ...zero,
        requests: 2,
        sent: 2,
        delivered: 1,
        bounced: 1,
        bounces_hard: 1,
        unique_opens: 1,
        unique_clicks: 1,
      },
      { tstat_day: '2025-03-11', ...zero },
      {
        tstat_day: '2025-03-12',
        ...zero,
        requests: 3,
        sent: 2,
        delivered: 1,
        bounced: 1,
        bounces_hard: 1,
        pending: 1,
        opens: 4,
        unique_opens: 1,
        link_clicks: 3,
        unique_clicks: 1,
      },
      { tstat_day: '2025-03-13', ...zero, requests: 1, sent: 1, delivered: 1, opens: 1, unique_opens: 1 },
      { tstat_day: '2025-03-14', ...zero, requests: 3, failed: 3 },
      { tstat_day: '2025-03-15', ...zero },
    ]);
    for (const d of answer.dailyStats)
      expect(d.delivered + d.bounced + d.failed + d.pending, d.tstat_day).toBe(d.requests);
    expect((await overview({ start_date: '2025-03-14', end_date: '2025-03-14' })).dailyStats).toHaveLength(1);
  });

  it('keeps the all-time total for an empty body, with the default 30-day series', async () => {
    const answer = await overview(undefined);
    expect(answer.overviewStats).toEqual({ total: 21 });
    expect(answer.dailyStats).toHaveLength(30);
    expect(answer.dailyStats.at(-1).tstat_day).toBe(new Date().toISOString().slice(0, 10));
    expect((await overview({}, b.cookie)).overviewStats).toEqual({ total: 1 });
    const other = await overview({ startDate: '2025-03-12', endDate: '2025-03-12' }, b.cookie);
    expect(other.dailyStats).toEqual([{ tstat_day: '2025-03-12', ...zero, requests: 1, pending: 1 }]);
  });

  it.each([
    [{ startDate: '2025-3-1' }],
    [{ startDate: '2020-01-01', endDate: '2025-01-01' }],
    [{ endDate: '2025-01-01', startDate: '2025-01-02' }],
    [{ range: 'month' }],
  ])('answers 400 validation_failed for %j', async (body) => {
    const res = await app.call('POST', '/v1/dashboard/overview', { cookie: a.cookie, body });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('validation_failed');
  });
});
