// One figure, one number, wherever it shows (docs/console-reports.md "Figures"): `npm run demo`'s mix
// of deliveries, bounces of both kinds, suppressions, deferrals, opens, clicks and complaints, then the
// same figures from every surface for the same range — the demo's printed summary, the dashboard's
// API and its breakdown in the page, the groups table's HTML and API, each group's overview API and
// donut widget, the status filters' totals, and a CSV export counted row by row. In each, delivered +
// bounced + failed + pending = transactions, and the states' shares add up to 100 %.
import { parse } from 'csv-parse/sync';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DayRange, addDays, rangeEndingOn, rangeToUnix, utcDay } from '../../src/lib/dates.ts';
import {
  chartsDrawn,
  hydratedInView,
  launchBrowser,
  openPage,
  screenshot,
  signInThroughForm,
} from '../helpers/browser.ts';
import { pickRange } from '../helpers/date-range.ts';
import { VIEWPORTS } from '../helpers/page-checks.ts';
import { apiSignIn } from '../helpers/report-traffic.ts';
import { prepareServer, type RunningServer } from '../helpers/server.ts';

const TRANSACTIONS = 600;
const DEMO_EMAIL = 'demo@demo-shop.example';

interface States {
  transactions: number;
  delivered: number;
  bounced: number;
  failed: number;
  pending: number;
  sent: number;
}

let server: RunningServer;
let browser: Browser;
let password: string;
let cookie: string;
let summary: States & { hard: number; soft: number };
/** The whole history: the demo's 30 days end two minutes before now, so 31 days back holds all of it. */
const today = utcDay(new Date());
const ALL: DayRange = { start: addDays(today, -31), end: today };

beforeAll(async () => {
  server = await prepareServer();
  const out = await server.admin('demo', '--transactions', String(TRANSACTIONS));
  password = /password:\s+(\S+)/.exec(out)![1];
  const n = String.raw`(\d+)`;
  const SUMMARY = new RegExp(
    `${n} transactions: ${n} delivered, ${n} bounced \\(${n} hard, ${n} soft\\), ${n} failed, ${n} pending; ${n} sent`,
  );
  const m = SUMMARY.exec(out);
  if (!m) throw new Error(`no figures in the demo's summary:\n${out}`);
  const [transactions, delivered, bounced, hard, soft, failed, pending, sent] = m.slice(1).map(Number);
  summary = { transactions, delivered, bounced, hard, soft, failed, pending, sent };
  await server.start();
  cookie = await apiSignIn(server.baseUrl, DEMO_EMAIL, password);
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { 'Request-Type': 'ui', Origin: server.baseUrl, Cookie: cookie, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

interface Day {
  requests: number;
  delivered: number;
  bounced: number;
  bounces_hard: number;
  bounces_soft: number;
  failed: number;
  pending: number;
  sent: number;
}
/** POST /v1/dashboard/overview's days for `range`, summed. */
async function dashboardStates(range: DayRange): Promise<States & { hard: number; soft: number }> {
  const { dailyStats } = await call<{ dailyStats: Day[] }>('POST', '/v1/dashboard/overview', {
    startDate: range.start,
    endDate: range.end,
  });
  const sum = (key: keyof Day) => dailyStats.reduce((n, d) => n + d[key], 0);
  for (const d of dailyStats) expect(d.delivered + d.bounced + d.failed + d.pending).toBe(d.requests);
  return {
    transactions: sum('requests'),
    delivered: sum('delivered'),
    bounced: sum('bounced'),
    hard: sum('bounces_hard'),
    soft: sum('bounces_soft'),
    failed: sum('failed'),
    pending: sum('pending'),
    sent: sum('sent'),
  };
}

interface Group {
  group_uuid: string;
  group_name: string;
  groupStats: Record<string, number>;
}
const groups = () => call<{ data: Group[] }>('POST', '/v1/transaction-groups/search', {}).then((p) => p.data);

type Share = { value: number; percentage: number };
/** A group's overview widget call for `range`. */
const groupOverview = (uuid: string, range: DayRange) =>
  call<{ overviewStats: Record<string, Share> & { total: number } }>('POST', '/v1/transaction-groups/overview', {
    group_uuid: uuid,
    report_type: 'overview',
    ...rangeToUnix(range),
  }).then((a) => a.overviewStats);

/** The total a transaction search reports. */
const searchTotal = async (body: Record<string, unknown>) =>
  (
    await call<{ meta: { total: number; total_capped: boolean } }>('POST', '/v1/transaction/search', {
      startDate: ALL.start,
      endDate: ALL.end,
      ...body,
    })
  ).meta.total;

describe('the figures of the demo account', () => {
  it('add up in the demo’s summary, which the dashboard’s API repeats for the same range', async () => {
    const { transactions, delivered, bounced, hard, soft, failed, pending, sent } = summary;
    expect(transactions).toBe(TRANSACTIONS);
    expect(delivered + bounced + failed + pending).toBe(transactions);
    expect(hard + soft).toBe(bounced);
    expect(sent).toBe(delivered + bounced);
    // the mix has every state but pending (the demo leaves nothing for a worker)
    for (const n of [delivered, bounced, hard, soft, failed]) expect(n).toBeGreaterThan(0);
    expect(await dashboardStates(ALL)).toEqual(summary);
  });

  it('are the same in the groups table, each group’s overview and the status filters', async () => {
    const all = await groups();
    const stat = (key: string) => all.reduce((n, g) => n + g.groupStats[key], 0);
    expect({
      transactions: stat('tgs_total_requests'),
      delivered: stat('tgs_total_delivered'),
      bounced: stat('tgs_total_bounces'),
      failed: stat('tgs_total_failed'),
      sent: stat('tgs_total_sent'),
    }).toEqual({
      transactions: summary.transactions,
      delivered: summary.delivered,
      bounced: summary.bounced,
      failed: summary.failed,
      sent: summary.sent,
    });

    const overviews = await Promise.all(all.map((g) => groupOverview(g.group_uuid, ALL)));
    const over = (key: string) => overviews.reduce((n, o) => n + o[key].value, 0);
    expect({
      transactions: overviews.reduce((n, o) => n + o.total, 0),
      delivered: over('delivered'),
      bounced: over('bounced'),
      hard: over('bouncesHard'),
      soft: over('bouncesSoft'),
      failed: over('failed'),
      pending: over('pending'),
      sent: over('sent'),
    }).toEqual(summary);
    for (const o of overviews) {
      expect(o.delivered.value + o.bounced.value + o.failed.value + o.pending.value).toBe(o.total);
      const shares = o.delivered.percentage + o.bounced.percentage + o.failed.percentage + o.pending.percentage;
      expect(Math.abs(shares - 100)).toBeLessThanOrEqual(0.02);
    }

    // the filters list what the figures count
    expect(await searchTotal({})).toBe(summary.transactions);
    expect(await searchTotal({ message_status: 'delivered' })).toBe(summary.delivered);
    expect(await searchTotal({ message_status: 'failed' })).toBe(summary.failed);
    expect(await searchTotal({ message_status: 'sent' })).toBe(summary.sent);
    expect(await searchTotal({ reportType: 'bounced' })).toBe(summary.bounced);
  });

  it('are the rows of a CSV export, counted by their status', async () => {
    const [group] = await groups();
    const figures = await groupOverview(group.group_uuid, ALL);
    const { uuid } = await call<{ uuid: string }>('POST', '/v1/transaction-groups/reports/export', {
      group_uuid: group.group_uuid,
      report_type: 'overview',
      ...rangeToUnix(ALL),
      isExport: true,
    });
    // the worker writes the file (its own loop; asked until it answers 200)
    let view: { token: string } | null = null;
    await expect
      .poll(
        async () => {
          const res = await fetch(`${server.baseUrl}/v1/transaction-groups/export-view`, {
            method: 'POST',
            headers: {
              'Request-Type': 'ui',
              Origin: server.baseUrl,
              Cookie: cookie,
              'Content-Type': 'application/json',
            },
            body: JSON.stringify({ uuid }),
          });
          if (res.status === 200) view = (await res.json()) as { token: string };
          return res.status;
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(200);
    const csv = await fetch(`${server.baseUrl}/v1/transaction-groups/export-download/${view!.token}/${uuid}`, {
      headers: { Cookie: cookie },
    });
    expect(csv.status).toBe(200);
    const rows = parse(await csv.text(), { bom: true, columns: true }) as Record<string, string>[];
    const count = (...labels: string[]) => rows.filter((r) => labels.includes(r.Status)).length;
    expect({
      transactions: rows.length,
      delivered: count('Delivered'),
      bounced: count('Bounced'),
      failed: count('Failed', 'Canceled'),
      pending: count('Queued', 'Deferred', 'Scheduled'),
    }).toEqual({
      transactions: figures.total,
      delivered: figures.delivered.value,
      bounced: figures.bounced.value,
      failed: figures.failed.value,
      pending: figures.pending.value,
    });
  });

  it('show as the API answers them: the dashboard’s breakdown, the groups table and a group’s donut', async () => {
    const { page, context } = await openPage(browser, server.baseUrl, { viewport: VIEWPORTS.desktop });
    try {
      await signInThroughForm(page, server.baseUrl, DEMO_EMAIL, password);
      const number = (n: number) => n.toLocaleString('en-US');
      // the dashboard's default range
      const shown = await dashboardStates(rangeEndingOn(today));
      await page.goto(`${server.baseUrl}/`);
      await page.waitForSelector('[data-testid=breakdown-chart] .donut-slice');
      const value = async (testId: string) => (await page.textContent(`[data-testid=${testId}]`))!.split(' ')[0];
      expect({
        transactions: await value('breakdown-requests'),
        delivered: await value('breakdown-delivered'),
        bounced: await value('breakdown-bounced'),
        failed: await value('breakdown-failed'),
        pending: await value('breakdown-pending'),
        sent: await value('breakdown-sent'),
      }).toEqual({
        transactions: number(shown.transactions),
        delivered: number(shown.delivered),
        bounced: number(shown.bounced),
        failed: number(shown.failed),
        pending: number(shown.pending),
        sent: number(shown.sent),
      });
      // the donut's parts are the four states: they add up to the transactions in its middle
      const parts = await page.$$eval('[data-testid=breakdown-chart] .donut-slice', (slices) =>
        slices.map((s) => s.getAttribute('data-part')),
      );
      expect(parts).toEqual(['Delivered', 'Bounced', 'Failed']);
      await expect(page.textContent('[data-testid=breakdown-chart] .donut-total')).resolves.toBe(
        number(shown.transactions),
      );
      await chartsDrawn(page);
      await screenshot(page, 'figures-dashboard-1440');

      // a range picked before the table below has hydrated (it hydrates when scrolled to): the table
      // lists that range's transactions, as many as the breakdown counts
      const week = { start: addDays(today, -10), end: addDays(today, -4) };
      await pickRange(page, week);
      const inWeek = await dashboardStates(week);
      await page.waitForFunction(
        (text) => document.querySelector('[data-testid=breakdown-requests]')?.textContent === text,
        number(inWeek.transactions),
      );
      await hydratedInView(page, '[data-testid=transaction-table]');
      await page.waitForFunction(
        (text) => document.querySelector('[data-testid=transactions-range]')?.textContent === text,
        `Displaying 1-10 of ${number(inWeek.transactions)}`,
      );
      const dates = await page.$$eval('[data-testid=transaction-row] time[datetime]', (times) =>
        times.map((t) => t.getAttribute('datetime')!.slice(0, 10)),
      );
      expect(dates.length).toBeGreaterThan(0);
      for (const day of dates) expect(day >= week.start && day <= addDays(week.end, 3), day).toBe(true);

      // on a phone each row is a block: the recipient, status, subject and date are all on screen,
      // and the table does not scroll sideways
      await page.setViewportSize(VIEWPORTS.phone);
      await page.goto(`${server.baseUrl}/`);
      await hydratedInView(page, '[data-testid=transaction-table]');
      const cells = await page.$eval('[data-testid=transaction-row]', (row) => {
        const box = (sel: string) => {
          const r = row.querySelector(sel)!.getBoundingClientRect();
          return { left: Math.round(r.left), right: Math.round(r.right), width: Math.round(r.width) };
        };
        const scroller = row.closest('.table-container') ?? row.closest('table')!.parentElement!;
        return {
          email: box('[data-testid=transaction-email]'),
          status: box('[data-testid=transaction-status]'),
          subject: box('[data-testid=transaction-subject]'),
          date: box('[data-testid=transaction-date]'),
          sideways: scroller.scrollWidth > scroller.clientWidth + 1,
        };
      });
      expect(cells.sideways).toBe(false);
      for (const [name, b] of Object.entries(cells))
        if (typeof b === 'object')
          expect({ name, inside: b.left >= 0 && b.right <= 390 && b.width > 0 }).toEqual({ name, inside: true });
      await chartsDrawn(page);
      await screenshot(page, 'figures-dashboard-390');
      await page.setViewportSize(VIEWPORTS.desktop);

      // the groups table, rendered on the server: the API's all-time figures
      const all = await groups();
      const html = await (await page.request.get(`${server.baseUrl}/groups`)).text();
      const doc = await page.evaluate((html) => {
        const d = new DOMParser().parseFromString(html, 'text/html');
        return [...d.querySelectorAll('[data-testid=group-row]')].map((row) => ({
          uuid: (row as HTMLElement).dataset.uuid,
          sent: row.querySelector('[data-testid=group-sent]')?.textContent,
          failed: row.querySelector('[data-testid=group-failed]')?.textContent,
          delivered: row.querySelector('[data-testid=group-delivered]')?.textContent,
          bounces: row.querySelector('[data-testid=group-bounces]')?.textContent,
        }));
      }, html);
      expect(doc).toHaveLength(all.length);
      for (const g of all)
        expect(doc.find((d) => d.uuid === g.group_uuid)).toEqual({
          uuid: g.group_uuid,
          sent: number(g.groupStats.tgs_total_sent),
          failed: number(g.groupStats.tgs_total_failed),
          delivered: number(g.groupStats.tgs_total_delivered),
          bounces: number(g.groupStats.tgs_total_bounces),
        });

      // a group's donut widget, for the page's default range
      const group = all[0];
      const figures = await groupOverview(group.group_uuid, rangeEndingOn(today));
      await page.goto(`${server.baseUrl}/groups/${group.group_uuid}/overview`);
      await hydratedInView(page, '[data-testid=overview-delivery]');
      await page.waitForSelector('[data-testid=delivery-donut]');
      const exact = async (key: string) => page.getAttribute(`[data-testid=delivery-${key}]`, 'title');
      for (const key of ['delivered', 'bounced', 'failed', 'pending', 'sent'])
        expect({ key, shown: await exact(key) }).toEqual({ key, shown: number(figures[key].value) });
      await expect(exact('total')).resolves.toBe(number(figures.total));
      await chartsDrawn(page);
      await screenshot(page, 'figures-group-overview-1440');
    } finally {
      await context.close();
    }
  });
});
