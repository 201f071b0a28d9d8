// `npm run demo` (src/server/demo): the demo account's history is recorded through the same code
// as real traffic, so its figures (src/server/stats/figures.ts) must equal the counts of the rows they
// summarize, the summary it prints must be those figures, and the report calls must answer for it.
// A small history keeps the file quick.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { countsDrift } from '../helpers/transaction-counts.ts';
import { figuresOf } from '../helpers/figures.ts';
import { figuresOfSlice } from '../../src/server/stats/figures.ts';

const ALL_TIME = { groupId: null, firstDay: null, lastDay: null };
import { DEMO_CUSTOMER, DEMO_USER_EMAIL, type DemoSummary, fillDemo } from '../../src/server/demo/demo.ts';
import { DomainError } from '../../src/server/core/errors.ts';
import { addDays } from '../../src/lib/dates.ts';

const TRANSACTIONS = 1500;

let app: TestApp;
let demo: DemoSummary;
let cookie: string;

beforeAll(async () => {
  app = await createTestApp();
  demo = await fillDemo(app.ctx, { transactions: TRANSACTIONS });
  cookie = await app.signIn(demo.email, demo.password);
  // a bound for a hang: filling the demo took over 120 s on PostgreSQL with CI's lanes on two loaded cores
}, 600_000);

afterAll(async () => {
  await app?.close();
});

/** One number from a query. */
async function one(query: ReturnType<typeof sql<{ n: number | string | null }>>): Promise<number> {
  const { rows } = await query.execute(app.ctx.db);
  return Number(rows[0]?.n ?? 0);
}

/** The figures every page shows, all time. */
async function rollup(customerId: number): Promise<Record<string, number>> {
  const f = await figuresOf(app.ctx.db, customerId);
  return {
    requests: f.transactions,
    sent: f.sent,
    failed: f.failed,
    delivered: f.delivered,
    bounced: f.bounced,
    bounces_hard: f.bouncesHard,
    bounces_soft: f.bouncesSoft,
    pending: f.pending,
    opens: f.opens,
    unique_opens: f.uniqueOpens,
    clicks: f.clicks,
    unique_clicks: f.uniqueClicks,
  };
}

/** The machines' opens and clicks of the rollup (counted apart from the rows' people's). */
async function machineSums(customerId: number) {
  const f = await figuresOf(app.ctx.db, customerId);
  return { machine_opens: f.machineOpens, machine_clicks: f.machineClicks };
}

/** The same figures counted from the transactions themselves, each in one state. */
async function rowCounts(customerId: number) {
  const { rows } = await sql<Record<string, string | number>>`
    select count(*) requests,
           count(*) filter (where delivered_status in ('delivered', 'bounced')) sent,
           count(*) filter (where delivered_status = 'failed') failed,
           count(*) filter (where delivered_status = 'delivered') delivered,
           count(*) filter (where delivered_status = 'bounced') bounced,
           count(*) filter (where delivered_status = 'bounced' and bounce_type = 'hard') bounces_hard,
           count(*) filter (where delivered_status = 'bounced' and bounce_type = 'soft') bounces_soft,
           count(*) filter (where delivered_status = 'pending') pending,
           coalesce(sum(open_count), 0) opens,
           count(*) filter (where delivered_status = 'delivered' and open_count > 0) unique_opens,
           coalesce(sum(click_count), 0) clicks,
           count(*) filter (where delivered_status = 'delivered' and click_count > 0) unique_clicks,
           count(*) filter (where status = 'queued') queued
      from transactions where customer_id = ${customerId}`.execute(app.ctx.db);
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
}

describe('npm run demo', () => {
  it('records the planned history: deliveries, bounces of both kinds, failures, opens, clicks, unsubscribes', () => {
    const c = demo.counts;
    expect(c.transactions).toBe(TRANSACTIONS);
    expect(c.delivered / TRANSACTIONS).toBeGreaterThan(0.9);
    expect(c.hardBounces).toBeGreaterThan(0);
    expect(c.softBounces).toBeGreaterThan(0);
    expect(c.failed).toBeGreaterThan(0);
    expect(c.opens / c.delivered).toBeGreaterThan(0.3);
    // Apple Mail Privacy Protection's fetches: a few, machines' (tracking/machine-rules.ts)
    expect(c.machineOpens).toBeGreaterThan(0);
    expect(c.machineOpens / c.delivered).toBeLessThan(0.15);
    expect(c.clicks).toBeGreaterThan(0);
    expect(c.unsubscribes).toBeGreaterThan(0);
    // a few recipients report spam, under the 0.3 % of delivered mail providers hold senders to
    expect(c.complaints).toBeGreaterThan(0);
    expect(c.complaints / c.delivered).toBeLessThan(0.003);
  });

  it('records complaints and delays through the lifecycle: events, counters and suppressions agree', async () => {
    const events = (type: string) =>
      one(sql`select count(*) n from events where customer_id = ${demo.customerId} and type = ${type}`);
    expect(await events('complaint')).toBe(demo.counts.complaints);
    expect((await figuresOf(app.ctx.db, demo.customerId)).complaints).toBe(demo.counts.complaints);
    expect(
      await one(
        sql`select count(*) n from suppressions where customer_id = ${demo.customerId} and origin = 'complaint'`,
      ),
    ).toBe(demo.counts.complaints);
    // greylisted messages were deferred before they were taken: each deferral an event with its reply
    const deferred = await events('deferred');
    expect(deferred).toBeGreaterThan(0);
    expect(
      await one(sql`select count(*) n from events where customer_id = ${demo.customerId} and type = 'deferred'
        and data->>'reply' like '4%' and data->>'category' is not null`),
    ).toBe(deferred);
  });

  it('keeps the figures equal to the rows they count, in total and per day, and prints them', async () => {
    const counts = await rowCounts(demo.customerId);
    const sums = await rollup(demo.customerId);
    for (const column of Object.keys(sums))
      expect({ column, value: sums[column] }).toEqual({ column, value: counts[column] });
    expect(counts.requests).toBe(TRANSACTIONS);
    expect(counts.delivered + counts.bounced + counts.failed + counts.pending).toBe(TRANSACTIONS);
    expect(counts.queued).toBe(0); // nothing is left for a worker to deliver
    // the summary `npm run demo` prints is these figures
    expect(demo.figures).toEqual(await figuresOfSlice(app.ctx.db, demo.customerId, ALL_TIME));
    expect(sums.opens).toBe(demo.counts.opens);
    expect(sums.clicks).toBe(demo.counts.clicks);
    expect(await machineSums(demo.customerId)).toEqual({ machine_opens: demo.counts.machineOpens, machine_clicks: 0 });

    // per UTC day: requests by acceptance day, people's and machines' opens and clicks by the day of their events
    const { rows: days } = await sql<{
      day: string;
      requests: number;
      opens: number;
      clicks: number;
      machine_opens: number;
      rows: number;
      open_events: number;
      click_events: number;
      machine_open_events: number;
    }>`
      with r as (select to_char(day, 'YYYY-MM-DD') d, sum(n)::int requests from transaction_counts
                   where customer_id = ${demo.customerId} group by day),
           h as (select to_char(day, 'YYYY-MM-DD') d, sum(opens)::int opens, sum(clicks)::int clicks,
                   sum(machine_opens)::int machine_opens
                   from daily_stats where customer_id = ${demo.customerId} group by day),
           s as (select coalesce(r.d, h.d) d, coalesce(r.requests, 0) requests, coalesce(h.opens, 0) opens,
                   coalesce(h.clicks, 0) clicks, coalesce(h.machine_opens, 0) machine_opens
                   from r full join h on h.d = r.d),
           t as (select to_char(queued_at at time zone 'UTC', 'YYYY-MM-DD') d, count(*)::int n from transactions
             where customer_id = ${demo.customerId} group by 1),
           e as (select to_char(at at time zone 'UTC', 'YYYY-MM-DD') d,
             count(*) filter (where type = 'open' and data->>'machine' is null)::int opens,
             count(*) filter (where type = 'click' and data->>'machine' is null)::int clicks,
             count(*) filter (where type = 'open' and data->>'machine' = 'true')::int machine_opens
                   from events where customer_id = ${demo.customerId} group by 1)
      select s.d as day, s.requests, s.opens, s.clicks, s.machine_opens, coalesce(t.n, 0) as rows,
        coalesce(e.opens, 0) as open_events, coalesce(e.clicks, 0) as click_events,
        coalesce(e.machine_opens, 0) as machine_open_events
        from s left join t on t.d = s.d left join e on e.d = s.d order by s.d`.execute(app.ctx.db);
    // 30 days, today's only as far as now (just after midnight UTC it may have no rows yet)
    expect(days.length).toBeGreaterThanOrEqual(29);
    for (const d of days)
      expect({
        day: d.day,
        requests: d.requests,
        opens: d.opens,
        clicks: d.clicks,
        machine_opens: d.machine_opens,
      }).toEqual({
        day: d.day,
        requests: d.rows,
        opens: d.open_events,
        clicks: d.click_events,
        machine_opens: d.machine_open_events,
      });

    // suppressed: every hard bounce and unsubscribe put its recipient on the list
    const suppressed = await one(sql`select count(*) n from suppressions where customer_id = ${demo.customerId}`);
    expect(suppressed).toBeGreaterThan(0);
    expect(
      await one(sql`select count(*) n from events where customer_id = ${demo.customerId} and type = 'unsubscribe'`),
    ).toBe(demo.counts.unsubscribes);
  });

  it(
    'keeps transaction_counts (migration 007) equal to the rows by ' +
      'day, group and state, through delivery, bounces, opens and clicks',
    async () => {
      expect(await countsDrift(app.ctx.db, demo.customerId)).toEqual([]);
      const states = await one(
        sql`select count(distinct (status, delivered_status, opened, clicked)) n from transaction_counts where
        customer_id = ${demo.customerId} and n > 0`,
      );
      expect(states).toBeGreaterThanOrEqual(5); // delivered, opened, clicked, bounced, failed at least
    },
  );

  it('answers the report calls for the demo user', async () => {
    const dashboard = await app.call('GET', '/v1/dashboard', { cookie });
    expect(dashboard.status).toBe(200);
    const { data } = await dashboard.json();
    expect(data.overviewStats.total).toBe(TRANSACTIONS);
    expect(data.transactionStats.data).toHaveLength(10);
    expect(data.transactionStats.meta.total).toBe(TRANSACTIONS);

    const overview = await app.call('POST', '/v1/dashboard/overview', { cookie, body: {} });
    expect(overview.status).toBe(200);
    const { dailyStats } = await overview.json();
    expect(dailyStats).toHaveLength(30);
    // every transaction, whatever day it is now: the demo's 30 days end on the day it was filled, and
    // midnight may have passed since (a range of 32 days back holds them all)
    const today = new Date().toISOString().slice(0, 10);
    const all = await app.call('POST', '/v1/dashboard/overview', {
      cookie,
      body: { startDate: addDays(today, -31), endDate: today },
    });
    expect(((await all.json()).dailyStats as { requests: number }[]).reduce((sum, d) => sum + d.requests, 0)).toBe(
      TRANSACTIONS,
    );
    // a daily rhythm: no empty day in the month before today
    expect(dailyStats.slice(0, -1).every((d: { requests: number }) => d.requests > 0)).toBe(true);

    const quota = await app.call('GET', '/v1/dashboard/get-quota', { cookie });
    expect(quota.status).toBe(200);
    expect((await quota.json()).quota.sent).toBeGreaterThan(0);

    const failed = await app.call('POST', '/v1/transaction/search', { cookie, body: { message_status: 'failed' } });
    expect(failed.status).toBe(200);
    const failedPage = await failed.json();
    // the Failed filter lists what the Failed figure counts: never handed over
    expect(failedPage.meta.total).toBe((await figuresOf(app.ctx.db, demo.customerId)).failed);
    expect(
      failedPage.data.every((t: { trans_delivered_status: string }) => t.trans_delivered_status === 'failed'),
    ).toBe(true);

    const groups = await app.call('POST', '/v1/transaction-groups/search', { cookie, body: {} });
    expect(groups.status).toBe(200);
    const groupPage = await groups.json();
    expect(groupPage.data.map((g: { group_name: string }) => g.group_name).sort()).toEqual([
      'Invoices',
      'Newsletter receipts',
      'Orders',
      'Password resets',
      'Shipping updates',
      'Welcome',
    ]);
    expect(
      groupPage.data.reduce(
        (sum: number, g: { groupStats: { tgs_total_requests: number } }) => sum + g.groupStats.tgs_total_requests,
        0,
      ),
    ).toBe(TRANSACTIONS);
  });

  it('pages the tracking sorts as one ordered list, the last pages (walked from the end) included', async () => {
    const orders = {
      opens: 'open_count',
      clicks: 'click_count',
      firstOpenDate: 'first_open_at',
      firstClickDate: 'first_click_at',
    } as const;
    const lastPage = Math.ceil(TRANSACTIONS / 10);
    for (const [key, column] of Object.entries(orders)) {
      for (const order of ['asc', 'desc'] as const) {
        // never opened or clicked rows last in both directions; ties in acceptance order
        const { rows } = await sql<{ uuid: string }>`
          select uuid from transactions where customer_id = ${demo.customerId}
           order by ${sql.ref(column)} ${sql.raw(order)}
             nulls last, queued_at ${sql.raw(order)}, id ${sql.raw(order)}`.execute(app.ctx.db);
        for (const page of [1, 2, lastPage / 2, lastPage / 2 + 1, lastPage - 1, lastPage].map(Math.floor)) {
          const res = await app.call('POST', '/v1/transaction/search', {
            cookie,
            body: { order_by: key, order, page },
          });
          const { data } = await res.json();
          const expected = rows.slice((page - 1) * 10, page * 10).map((r) => r.uuid);
          expect({ key, order, page, uuids: data.map((t: { trans_uuid: string }) => t.trans_uuid) }).toEqual({
            key,
            order,
            page,
            uuids: expected,
          });
        }
      }
    }
  });

  it('refuses a second run, and --replace deletes the old account with all its history', async () => {
    await expect(fillDemo(app.ctx, { transactions: 50 })).rejects.toSatisfy(
      (err) => err instanceof DomainError && err.code === 'conflict',
    );
    const again = await fillDemo(app.ctx, { transactions: 200, replace: true, days: 7 });
    expect(again.replaced).toBe(true);
    expect(again.customerId).not.toBe(demo.customerId);
    for (const table of [
      'transactions',
      'events',
      'daily_stats',
      'transaction_counts',
      'quota_usage',
      'suppressions',
      'transaction_groups',
    ] as const) {
      expect({
        table,
        left: await one(sql`select count(*) n from ${sql.table(table)} where customer_id = ${demo.customerId}`),
      }).toEqual({ table, left: 0 });
    }
    const customers = await app.ctx.db.selectFrom('customers').select('id').where('name', '=', DEMO_CUSTOMER).execute();
    expect(customers.map((c) => Number(c.id))).toEqual([again.customerId]);
    const sums = await rollup(again.customerId);
    const counts = await rowCounts(again.customerId);
    for (const column of Object.keys(sums))
      expect({ column, value: sums[column] }).toEqual({ column, value: counts[column] });
    expect(await countsDrift(app.ctx.db, again.customerId)).toEqual([]);
    // the old password is gone with the old user; the new one signs in
    await expect(app.signIn(DEMO_USER_EMAIL, demo.password)).rejects.toThrow();
    await app.signIn(DEMO_USER_EMAIL, again.password);
  }, 60_000);
});
