// The six group report pages and the export page in Chromium with `npm run demo`'s account
// (docs/console-reports.md §2, §4, §7, §8, §9): the built admin CLI fills 30 days of history, and each page
// must show what the report calls answer for it — the Activity chart, the pies and the donut, the
// tables with their columns, sort, search, paging, the Clicks tabs, More Info, the machines' opens
// beside the people's, Export with its alert, and an export the worker really wrote, downloaded from
// /export/{uuid}; the export page's
// other states (204, 412 for another user's export, an error); 404 for a group that is not the
// customer's; every page through checkPage at 1440, 768 and 390 px.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, formatRange, formatReportDate, unixOfIso, utcDay } from '../../src/lib/dates.ts';
import { pickRange } from '../helpers/date-range.ts';
import { EXPORT_ALERT_MS } from '../../src/lib/timings.ts';
import {
  SCREENSHOTS,
  chartsDrawn,
  hydrated,
  hydratedInView,
  launchBrowser,
  openPage,
  expectShownFor,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { VIEWPORTS, checkPage } from '../helpers/page-checks.ts';
import { prepareServer, type RunningServer } from '../helpers/server.ts';

const TRANSACTIONS = 2000;
const DEMO_EMAIL = 'demo@demo-shop.example';
const COLLEAGUE_EMAIL = 'colleague@demo-shop.example';
const COLLEAGUE_PASSWORD = 'colleague-password-123';
const REPORTS = ['overview', 'sent', 'opens', 'clicks', 'failed', 'bounced'] as const;
type Report = (typeof REPORTS)[number];

const EXPORT_QUEUED = 'Report queued successfully. We will send you an email when your report is ready to download.';

let server: RunningServer;
let browser: Browser;
let tab: TestPage;
let group: { group_uuid: string; group_name: string };

interface Meta {
  current_page: number;
  total: number;
  last_page: number;
}
interface Row {
  trans_uuid: string;
  trans_to_email: string;
  tm_subject: string;
  log_date: number;
}
interface ReportAnswer {
  transactions: { data: Row[]; meta: Meta };
  dailyStats: { tstat_day: string }[];
}
interface Share {
  value: number;
  percentage: number;
}
interface OverviewStats {
  total: number;
  sent: Share;
  delivered: Share;
  bounced: Share;
  failed: Share;
  uniqueOpens: Share;
  notOpened: Share;
  uniqueClicks: Share;
  notClicked: Share;
}

/** A console call from the signed-in page, as its islands make them. */
function api<T>(
  page: Page,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const res = await fetch(path, {
        method,
        headers: { 'Request-Type': 'ui', 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    { method, path, body },
  );
}

/** Records the bodies of the page's POSTs to `path`. */
function recordPosts(page: Page, path: string): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname === path) seen.push(req.postDataJSON());
  });
  return seen;
}

const attached = { state: 'attached' } as const;
const settled = (page: Page, table = 'report-table') =>
  page.waitForSelector(`[data-testid=${table}][aria-busy=false]`, attached);
const shownUuids = (page: Page) =>
  page.$$eval('[data-testid=report-row]', (rows) => rows.map((r) => (r as HTMLElement).dataset.uuid));
const number = (n: number) => n.toLocaleString('en-US');

async function openReport(page: Page, report: Report, hash = ''): Promise<void> {
  await page.goto(`${server.baseUrl}/groups/${group.group_uuid}/${report}${hash}`);
  await hydrated(page, '[data-testid=report-summary]');
  await page.waitForSelector('[data-testid=activity-chart][data-drawn] svg', attached);
  if (hash === '#links') await visibleIsland(page, 'link-table');
  else {
    // the table hydrates when it comes into view (client:visible: below the fold it costs no script at load)
    await visibleIsland(page, 'report-table');
    // the search above it: the table's first page is rendered on the server, so
    // scrolling the whole table into view may leave the search above the fold
    if (report !== 'overview') await visibleIsland(page, 'report-search');
    await settled(page);
  }
}

/** Scrolls an island's element into view and waits until it is hydrated. */
const visibleIsland = (page: Page, testId: string) => hydratedInView(page, `[data-testid=${testId}]`);

/** Waits for animations and frappe-charts' delayed drawing, then runs the page checks with the page's main controls. */
async function check(page: Page, name: string, controls: readonly string[]): Promise<void> {
  await chartsDrawn(page);
  await checkPage(page, name, controls);
}

/** A report page's main controls: its title, the report menu, the date range and the table or chart. */
const REPORT_CONTROLS = [
  '[data-testid=page-title]',
  '[data-testid=report-menu]',
  '[data-testid=date-range]',
  '[data-testid=activity-chart]',
];
const EXPORT_CONTROLS = ['[data-testid=page-title]', '[data-testid=export-state], [data-testid=export-download]'];

/**
 * The body of a report page's first report call: the default range (the last 29 days through
 * today, start of day to end of day in unix seconds) and query. The page makes it on the server
 * and renders its answer, so the browser never sends it.
 */
function firstBody(report: Report): Record<string, unknown> {
  const now = new Date();
  const endOfToday = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000 - 1;
  return {
    report_type: report,
    group_uuid: group.group_uuid,
    start_date: endOfToday + 1 - 30 * 86_400,
    end_date: endOfToday,
    page: 1,
    order: 'desc',
    order_by: 'trans_id',
    search_query: '',
  };
}

/** The range of the page's first report call, as the API takes it. */
function rangeOf(body: Record<string, unknown>) {
  return { start_date: body.start_date, end_date: body.end_date };
}

beforeAll(async () => {
  server = await prepareServer();
  const out = await server.admin('demo', '--transactions', String(TRANSACTIONS));
  const password = /password:\s+(\S+)/.exec(out)?.[1];
  if (!password) throw new Error(`no password in the demo's output:\n${out}`);
  await server.admin(
    'user',
    'create',
    '--customer',
    'Demo Shop',
    '--email',
    COLLEAGUE_EMAIL,
    '--name',
    'Colleague',
    '--password',
    COLLEAGUE_PASSWORD,
  );
  await server.start();
  browser = await launchBrowser();
  tab = await openPage(browser, server.baseUrl);
  await signInThroughForm(tab.page, server.baseUrl, DEMO_EMAIL, password);
  // the demo's busiest group: orders, with opens and clicks on two links
  const groups = await api<{ data: { group_uuid: string; group_name: string }[] }>(
    tab.page,
    'POST',
    '/v1/transaction-groups/search',
    { searchQuery: 'Orders' },
  );
  group = groups.body.data.find((g) => g.group_name === 'Orders')!;
  if (!group) throw new Error(`no Orders group: ${JSON.stringify(groups.body)}`);
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('group report pages', () => {
  it('leads from the Transactions page to the overview; /groups/{uuid} alone redirects there', async () => {
    const { page } = tab;
    await page.goto(`${server.baseUrl}/groups`);
    await hydrated(page, '[data-testid=group-table]');
    await page.waitForSelector(`[data-testid=group-row][data-uuid="${group.group_uuid}"]`);
    await Promise.all([
      page.waitForURL(`**/groups/${group.group_uuid}/overview`),
      page.click(`[data-testid=group-row][data-uuid="${group.group_uuid}"] [data-testid=group-report]`),
    ]);
    const res = await page.goto(`${server.baseUrl}/groups/${group.group_uuid}`);
    expect(res?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe(`/groups/${group.group_uuid}/overview`);
  });

  it(
    'renders the shell on the server: menu, title, labels, ' + 'table headers and the Export button but on Overview',
    async () => {
      const { page } = tab;
      for (const report of REPORTS) {
        const html = await (await page.request.get(`${server.baseUrl}/groups/${group.group_uuid}/${report}`)).text();
        const label = report.charAt(0).toUpperCase() + report.slice(1);
        expect(html).toContain(`Transaction Group: ${label}`);
        for (const entry of [
          'Overview',
          'Sent',
          'Opens',
          'Clicks',
          'Failed',
          'Bounced',
          'Back to Transactions',
          'Activity',
        ])
          expect(html).toContain(`>${entry}<`);
        expect(html.includes('data-testid="report-export"')).toBe(report !== 'overview');
      }
      const headers = async (report: Report) => {
        await openReport(page, report);
        return page.$$eval('[data-testid=report-table] thead th', (ths) =>
          ths.map((th) => th.textContent!.replace(/[▲▼↕]/g, '').trim()),
        );
      };
      expect(await headers('sent')).toEqual(['Date Sent', 'From', 'Subject', 'To Email', 'Status', 'More Info']);
      expect(await headers('failed')).toEqual(['Date Failed', 'To Email', 'Subject', 'Reason']);
      expect(await headers('bounced')).toEqual(['Date Bounced', 'To Email', 'Subject', 'Type', 'Reason']);
      expect(await headers('opens')).toEqual(['First Open Date', 'To Email', 'Subject', 'Total Opens']);
      expect(await headers('clicks')).toEqual([
        'First Clicked Date',
        'To Email',
        'Subject',
        'Total Clicks',
        'Unique Clicks',
      ]);
      await page.click('[data-testid=tab-links]');
      await visibleIsland(page, 'link-table');
      expect(
        await page.$$eval('[data-testid=link-table] thead th', (ths) => ths.map((th) => th.textContent!.trim())),
      ).toEqual(['Link', 'Subject', 'Total Clicks', 'Unique Clicks']);
    },
  );

  it(
    'draws the Overview: Activity chart, open and click pies, the donut widget with the overview figures, the ' +
      'latest sent table',
    async () => {
      const { page } = tab;
      const reports = recordPosts(page, '/v1/transaction-groups/reports');
      const overviews = recordPosts(page, '/v1/transaction-groups/overview');
      await openReport(page, 'overview');
      await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Transaction Group: Overview');
      await expect(page.textContent('[data-testid=group-name]')).resolves.toBe('Orders');
      await expect(page.$$eval('[data-testid=activity-chart] .line-graph-path', (p) => p.length)).resolves.toBe(6);

      // the first report call was made on the server; the overview stats, in the browser,
      // cover the same range: the last 29 days through today, start of day to end of day in unix seconds
      expect(reports).toEqual([]);
      const body = firstBody('overview');
      expect(overviews[0]).toMatchObject({ group_uuid: group.group_uuid, ...rangeOf(body) });

      const { body: answer } = await api<{ overviewStats: OverviewStats }>(
        page,
        'POST',
        '/v1/transaction-groups/overview',
        overviews[0],
      );
      const stats = answer.overviewStats;
      expect(stats.total).toBeGreaterThan(100);
      await visibleIsland(page, 'overview-delivery');
      await page.waitForSelector('[data-testid=delivery-donut]');
      await expect(
        page.$$eval('[data-testid=delivery-donut] .donut-slice', (s) => s.map((x) => x.getAttribute('data-part'))),
      ).resolves.toEqual(['Delivered', 'Bounced', 'Failed']);
      // abbreviated counts, the exact figure in the tooltip
      const abbreviated = (n: number) => (n < 1000 ? String(n) : `${Math.round(n / 100) / 10}k`);
      await expect(page.textContent('[data-testid=delivery-total]')).resolves.toBe(abbreviated(stats.total));
      await expect(page.getAttribute('[data-testid=delivery-total]', 'title')).resolves.toBe(number(stats.total));
      await expect(page.textContent('[data-testid=delivery-delivered]')).resolves.toBe(
        abbreviated(stats.delivered.value),
      );
      await expect(page.textContent('[data-testid=delivery-delivered-share]')).resolves.toBe(
        `${Math.round(stats.delivered.percentage * 10) / 10}%`,
      );
      await expect(page.textContent('[data-testid=delivery-sent]')).resolves.toBe(abbreviated(stats.sent.value));
      await expect(page.textContent('[data-testid=summary-total-value]')).resolves.toBe(abbreviated(stats.total));

      // the pies: opened and clicked of the delivered
      await visibleIsland(page, 'pie-clicks');
      await page.waitForSelector('[data-testid=pie-opens-chart][data-drawn] svg path', attached);
      await page.waitForSelector('[data-testid=pie-clicks-chart][data-drawn] svg path', attached);
      await expect(page.textContent('[data-testid=pie-opens-opened]')).resolves.toContain(
        abbreviated(stats.uniqueOpens.value),
      );
      await expect(page.textContent('[data-testid=pie-clicks-not-clicked]')).resolves.toContain(
        abbreviated(stats.notClicked.value),
      );

      const { body: report } = await api<ReportAnswer>(page, 'POST', '/v1/transaction-groups/reports', body);
      expect(await shownUuids(page)).toEqual(report.transactions.data.map((r) => r.trans_uuid));
      await expect(page.getAttribute('[data-testid=view-all]', 'href')).resolves.toBe('/groups');
      expect(await page.$('[data-testid=report-export]')).toBeNull();
    },
  );

  it('opens More Info with the event timeline on Overview and Sent', async () => {
    const { page } = tab;
    for (const report of ['overview', 'sent'] as const) {
      await openReport(page, report);
      const first = (await shownUuids(page))[0]!;
      await page.click(`[data-testid=report-row][data-uuid="${first}"] [data-testid=more-info]`);
      await page.waitForSelector('[data-testid=transaction-info]');
      await expect(page.textContent('[data-testid=info-id]')).resolves.toBe(first);
      await page.waitForSelector('[data-testid=timeline-event]');
      const types = await page.$$eval('[data-testid=timeline-event]', (events) =>
        events.map((e) => (e as HTMLElement).dataset.type),
      );
      expect(types[0]).toBe('queued');
      await page.click('[data-testid=info-close]');
      await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
    }
  });

  it('sorts, searches and pages the Sent table, showing what the API answers for the same body', async () => {
    const { page } = tab;
    const reports = recordPosts(page, '/v1/transaction-groups/reports');
    await openReport(page, 'sent');
    await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Transaction Group: Sent');
    await expect(page.$$eval('[data-testid=activity-chart] .line-graph-path', (p) => p.length)).resolves.toBe(2);
    expect(reports).toEqual([]); // the first page came with the page
    const { body: first } = await api<ReportAnswer>(page, 'POST', '/v1/transaction-groups/reports', firstBody('sent'));
    expect(await shownUuids(page)).toEqual(first.transactions.data.map((r) => r.trans_uuid));
    expect(first.transactions.meta.total).toBeGreaterThan(20);
    await expect(page.textContent('[data-testid=report-range]')).resolves.toBe(
      `Displaying 1-10 of ${number(first.transactions.meta.total)}`,
    );
    // dates 'D MMM YYYY - HH:mm'
    const dates = await page.$$eval('[data-testid=report-date]', (cells) => cells.map((c) => c.textContent));
    for (const d of dates) expect(d).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4} - \d{2}:\d{2}$/);

    await page.click('[data-testid=report-next]');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=report-range]')?.textContent?.startsWith('Displaying 11-20 '),
    );
    await settled(page);
    expect(reports.at(-1)).toMatchObject({ page: 2 });
    const { body: second } = await api<ReportAnswer>(page, 'POST', '/v1/transaction-groups/reports', reports.at(-1));
    expect(await shownUuids(page)).toEqual(second.transactions.data.map((r) => r.trans_uuid));

    // the date header: the default newest-first order turned round, from page 1
    await page.click('[data-testid=column-date_sent] button');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=report-range]')?.textContent?.startsWith('Displaying 1-10 '),
    );
    await settled(page);
    expect(reports.at(-1)).toMatchObject({ order_by: 'dateSent', order: 'asc', page: 1 });
    const { body: sorted } = await api<ReportAnswer>(page, 'POST', '/v1/transaction-groups/reports', reports.at(-1));
    expect(await shownUuids(page)).toEqual(sorted.transactions.data.map((r) => r.trans_uuid));
    await expect(page.getAttribute('[data-testid=column-date_sent]', 'aria-sort')).resolves.toBe('ascending');

    // a recipient: one search after typing pauses (500 ms), from page 1
    const email = second.transactions.data[0]!.trans_to_email;
    const before = reports.length;
    await page.fill('[data-testid=report-search]', email);
    await page.waitForFunction((e) => {
      const cells = [...document.querySelectorAll('[data-testid=report-to]')].map((c) => c.textContent);
      return cells.length > 0 && cells.every((c) => c === e);
    }, email);
    await settled(page);
    expect(reports.length).toBe(before + 1);
    expect(reports.at(-1)).toMatchObject({ search_query: email, page: 1 });
  });

  it('shows the Opens, Failed and Bounced tables with their own dates and columns', async () => {
    const { page } = tab;
    for (const report of ['opens', 'failed', 'bounced'] as const) {
      await openReport(page, report);
      const { body } = await api<ReportAnswer>(page, 'POST', '/v1/transaction-groups/reports', firstBody(report));
      expect(body.transactions.meta.total, report).toBeGreaterThan(0);
      expect(await shownUuids(page)).toEqual(body.transactions.data.map((r) => r.trans_uuid));
      // the table's date is the report's own moment (log_date)
      const shown = await page.$$eval('[data-testid=report-date]', (cells) =>
        cells.map((c) => c.getAttribute('datetime')),
      );
      expect(shown).toEqual(body.transactions.data.map((r) => new Date(r.log_date * 1000).toISOString()));
      if (report === 'bounced') {
        const types = await page.$$eval('[data-testid=report-bounce-type]', (cells) => cells.map((c) => c.textContent));
        for (const t of types) expect(['Hard', 'Soft']).toContain(t);
      }
      if (report !== 'opens') {
        const reasons = await page.$$eval('[data-testid=report-reason]', (cells) => cells.map((c) => c.textContent));
        expect(
          reasons.some((r) => r && r !== '-'),
          report,
        ).toBe(true);
      }
    }
  });

  it('shows the machines’ opens beside the people’s on the Opens page, at 1440 and 390 px', async () => {
    const { page } = tab;
    try {
      for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
        await page.setViewportSize(viewport);
        const overviews = recordPosts(page, '/v1/transaction-groups/overview');
        await openReport(page, 'opens');
        await page.waitForSelector('[data-testid=report-summary][aria-busy=false]', attached);
        const { body } = await api<{ overviewStats: OverviewStats & { machineOpens: { value: number } } }>(
          page,
          'POST',
          '/v1/transaction-groups/overview',
          overviews[0],
        );
        // the demo's Apple Mail Privacy Protection opens: counted apart, shown under Opened
        const machines = body.overviewStats.machineOpens.value;
        expect(machines).toBeGreaterThan(0);
        await expect(page.textContent('[data-testid=summary-uniqueOpens-machines]')).resolves.toBe(
          `+ ${number(machines)} by machines`,
        );
        // no machine clicked in the demo: nothing under Clicked
        expect(await page.$('[data-testid=summary-uniqueClicks-machines]')).toBeNull();
        // people's opens, unique opens, and machines' opens by day
        await expect(page.$$eval('[data-testid=activity-chart] .line-graph-path', (p) => p.length)).resolves.toBe(3);
        await page.locator('[data-testid=report-summary]').scrollIntoViewIfNeeded();
        await check(page, `group-opens-machines-${viewport.width}`, [
          '[data-testid=summary-uniqueOpens-machines]',
          '[data-testid=activity-chart]',
        ]);
      }
    } finally {
      await page.setViewportSize(VIEWPORTS.desktop);
    }
  });

  it('shows the Clicks tabs: recipients with total and unique clicks, and links by URL', async () => {
    const { page } = tab;
    const links = recordPosts(page, '/v1/links');
    await openReport(page, 'clicks');
    await expect(page.isVisible('[data-testid=recipients-panel]')).resolves.toBe(true);
    await expect(page.isVisible('[data-testid=links-panel]')).resolves.toBe(false);
    const totals = await page.$$eval('[data-testid=report-total-clicks]', (cells) =>
      cells.map((c) => Number(c.textContent)),
    );
    expect(totals.length).toBeGreaterThan(0);
    for (const t of totals) expect(t).toBeGreaterThan(0);

    await page.click('[data-testid=tab-links]');
    expect(new URL(page.url()).hash).toBe('#links');
    // the panels switch on hashchange, which the browser fires after the click returns
    await page.waitForSelector('[data-testid=links-panel]', { state: 'visible' });
    await expect(page.isVisible('[data-testid=recipients-panel]')).resolves.toBe(false);
    await visibleIsland(page, 'link-table');
    await settled(page, 'link-table');
    expect(links).toEqual([]); // the first page came with the page
    const firstLinks = {
      report_type: 'clicks',
      group_uuid: group.group_uuid,
      ...rangeOf(firstBody('clicks')),
      page: 1,
    };
    const { body } = await api<{ data: { tll_url: string; click_count: number; unique_click_count: number }[] }>(
      page,
      'POST',
      '/v1/links',
      firstLinks,
    );
    expect(body.data.length).toBeGreaterThan(0);
    expect(await page.$$eval('[data-testid=link-url]', (cells) => cells.map((c) => c.textContent))).toEqual(
      body.data.map((l) => l.tll_url),
    );
    expect(await page.$$eval('[data-testid=link-clicks]', (cells) => cells.map((c) => c.textContent))).toEqual(
      body.data.map((l) => number(l.click_count)),
    );
    for (const l of body.data) expect(l.unique_click_count).toBeLessThanOrEqual(l.click_count);
    // opened at #links, the Links tab shows first
    await page.goto(`${server.baseUrl}/groups/${group.group_uuid}/clicks#links`);
    await expect(page.isVisible('[data-testid=links-panel]')).resolves.toBe(true);
    await expect(page.isVisible('[data-testid=recipients-panel]')).resolves.toBe(false);
  });

  it('reloads every part from page 1 when the date range changes', async () => {
    const { page } = tab;
    const reports = recordPosts(page, '/v1/transaction-groups/reports');
    const overviews = recordPosts(page, '/v1/transaction-groups/overview');
    await openReport(page, 'sent');
    await page.click('[data-testid=report-next]');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=report-range]')?.textContent?.startsWith('Displaying 11-20 '),
    );
    await settled(page);
    // pick the last 7 days in the calendar
    await page.click('[data-testid=date-range]');
    await page.waitForSelector('.flatpickr-calendar.open');
    const days = page.locator('.flatpickr-day:not(.flatpickr-disabled):not(.prevMonthDay):not(.nextMonthDay)');
    const todayIndex = await days.evaluateAll((all) => all.findIndex((d) => d.classList.contains('today')));
    expect(todayIndex).toBeGreaterThanOrEqual(6);
    const before = reports.length;
    await days.nth(todayIndex - 6).click();
    await days.nth(todayIndex).click();
    await page.waitForSelector('.flatpickr-calendar.open', { state: 'detached' }).catch(() => undefined);
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=report-range]')?.textContent?.startsWith('Displaying 1-10 '),
    );
    await settled(page);
    expect(reports.length).toBeGreaterThan(before);
    const last = reports.at(-1)!;
    expect(last.page).toBe(1);
    expect((last.end_date as number) - (last.start_date as number)).toBe(7 * 86_400 - 1);
    expect(overviews.at(-1)).toMatchObject(rangeOf(last));
  });

  it(
    'queues an export from a report page and says so for 6 s; the worker writes it and /export/{uuid} downloads ' +
      'it',
    async () => {
      const { page } = tab;
      // queued from a page of its own (the tab's cookies), whose clock the test moves: the alert's 6 s
      // are counted on it, not on a loaded machine's; the clock goes with the page
      const own = await openPage(browser, server.baseUrl, { storageState: await tab.context.storageState() });
      let queued = { uuid: '' };
      try {
        await own.page.clock.install();
        await openReport(own.page, 'bounced');
        await visibleIsland(own.page, 'report-export');
        const queuedAlert = () => expect(own.page.textContent('[data-testid=alert]')).resolves.toContain(EXPORT_QUEUED);
        await expectShownFor(
          own.page,
          EXPORT_ALERT_MS,
          '[data-testid=alert]',
          async () => {
            const [response] = await Promise.all([
              own.page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/transaction-groups/reports/export'),
              own.page.click('[data-testid=report-export]'),
            ]);
            expect(response.status()).toBe(200);
            queued = (await response.json()) as { uuid: string };
            expect(response.request().postDataJSON()).toMatchObject({
              report_type: 'bounced',
              group_uuid: group.group_uuid,
              isExport: true,
            });
            await queuedAlert();
          },
          { stillShown: queuedAlert },
        );
      } finally {
        await own.context.close();
      }

      // the worker writes the file (its own loop; asked until it answers 200)
      await expect
        .poll(
          async () => (await api(page, 'POST', '/v1/transaction-groups/export-view', { uuid: queued.uuid })).status,
          {
            timeout: 30_000,
            interval: 250,
          },
        )
        .toBe(200);
      await page.goto(`${server.baseUrl}/export/${queued.uuid}`);
      await hydrated(page, '[data-testid=export-download]');
      await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Report Export Download');
      const fileName = await page.textContent('[data-testid=export-file-name]');
      expect(fileName).toMatch(/\.csv$/);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click('[data-testid=export-download]'),
      ]);
      expect(download.suggestedFilename()).toBe(fileName);
      // saved through the connection: the run's shared Chromium keeps its downloads to itself
      const path = `${SCREENSHOTS}/group-export-download.csv`;
      await download.saveAs(path);
      const { readFileSync } = await import('node:fs');
      const csv = readFileSync(path, 'utf8');
      const lines = csv.trim().split(/\r?\n/);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines[0]).toMatch(/Email/i);
      try {
        for (const viewport of Object.values(VIEWPORTS)) {
          await page.setViewportSize(viewport);
          await page.reload();
          await hydrated(page, '[data-testid=export-download]');
          await check(page, `export-200-${viewport.width}`, EXPORT_CONTROLS);
        }
      } finally {
        await page.setViewportSize(VIEWPORTS.desktop);
      }

      // another user of the same account: 412 'Unauthorized'
      const colleague = await openPage(browser, server.baseUrl);
      try {
        await signInThroughForm(colleague.page, server.baseUrl, COLLEAGUE_EMAIL, COLLEAGUE_PASSWORD);
        await colleague.page.goto(`${server.baseUrl}/export/${queued.uuid}`);
        await hydrated(colleague.page, '[data-testid=export-state]');
        await expect(colleague.page.textContent('[data-testid=export-state]')).resolves.toBe('Unauthorized');
        await colleague.page.waitForSelector('[data-testid=alert].is-danger');
        await colleague.page.setViewportSize(VIEWPORTS.phone);
        await colleague.page.reload();
        await hydrated(colleague.page, '[data-testid=export-state]');
        await check(colleague.page, 'export-412-390', EXPORT_CONTROLS);
      } finally {
        await colleague.context.close();
      }
    },
  );

  it('answers Export failures with the failure alert', async () => {
    const { page } = tab;
    await openReport(page, 'failed');
    await visibleIsland(page, 'report-export');
    // the API refuses only input this page never sends, so the call is answered with a server error here
    await page.route('**/v1/transaction-groups/reports/export', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: '{"error":{"code":"internal","message":"x"}}',
      }),
    );
    try {
      await page.click('[data-testid=report-export]');
      await expect(page.textContent('[data-testid=alert].is-danger')).resolves.toContain(
        'An error occurred when queuing the report. Please try again.',
      );
    } finally {
      await page.unroute('**/v1/transaction-groups/reports/export');
    }
  });

  it('shows the export page’s other states: 204 No Export Found., and an error', async () => {
    const { page } = tab;
    try {
      for (const viewport of Object.values(VIEWPORTS)) {
        await page.setViewportSize(viewport);
        await page.goto(`${server.baseUrl}/export/00000000-0000-4000-8000-000000000000`);
        await hydrated(page, '[data-testid=export-state]');
        await expect(page.textContent('[data-testid=export-state]')).resolves.toBe('No Export Found.');
        await expect(page.textContent('[data-testid=alert]')).resolves.toContain('Export not found.');
        await check(page, `export-204-${viewport.width}`, EXPORT_CONTROLS);
      }
    } finally {
      await page.setViewportSize(VIEWPORTS.desktop);
    }
    // longer than any uuid: the API refuses it (400), which the page reads as an unknown error
    await page.goto(`${server.baseUrl}/export/${'x'.repeat(80)}`);
    await hydrated(page, '[data-testid=export-state]');
    await expect(page.textContent('[data-testid=export-state]')).resolves.toBe('Unknown Error.');
    await page.waitForSelector('[data-testid=alert].is-danger');
    await check(page, 'export-error-1440', EXPORT_CONTROLS);
  });

  it('shows Retry on the donut widget after 45 s without an answer (the browser clock moved, not waited)', async () => {
    // a page of its own (signed in with the tab's cookies), so its clock goes with it
    const own = await openPage(browser, server.baseUrl, { storageState: await tab.context.storageState() });
    const { page } = own;
    // the clock stands still from before the page loads, so the 45 s count starts at the request
    // whatever the machine's load (pausing it once the request was seen left a loaded machine's
    // seconds on the count, or lost the race with the running clock: "Cannot fast-forward to the
    // past"); a minute ahead of now is a moment the running clock cannot have reached by the next call
    const now = Date.now();
    await page.clock.install({ time: now });
    await page.clock.pauseAt(now + 60_000);
    const held: unknown[] = [];
    await page.route('**/v1/transaction-groups/overview', (route) => void held.push(route));
    try {
      await page.goto(`${server.baseUrl}/groups/${group.group_uuid}/overview`);
      await visibleIsland(page, 'overview-delivery');
      await expect(page.textContent('[data-testid=delivery-empty]')).resolves.toBe('No Data');
      await expect.poll(() => held.length).toBeGreaterThan(0);
      await page.clock.runFor(43_000);
      expect(await page.$('[data-testid=delivery-retry]')).toBeNull();
      await page.clock.runFor(2_000);
      await page.waitForSelector('[data-testid=delivery-retry]');
      await page.unroute('**/v1/transaction-groups/overview');
      await page.clock.resume();
      await page.click('[data-testid=delivery-retry]');
      await page.waitForSelector('[data-testid=delivery-donut]');
    } finally {
      await own.context.close();
    }
  });

  it('answers 404 for an unknown group and for another customer’s group, showing nothing of it', async () => {
    const admin = await openPage(browser, server.baseUrl);
    try {
      await signInThroughForm(admin.page, server.baseUrl, 'admin@example.com', 'admin-password-123');
      for (const path of [
        `/groups/${group.group_uuid}/overview`,
        `/groups/${group.group_uuid}/sent`,
        `/groups/${group.group_uuid}`,
      ]) {
        const res = await admin.page.goto(`${server.baseUrl}${path}`);
        expect(res?.status(), path).toBe(404);
        await expect(admin.page.textContent('[data-testid=not-found]')).resolves.toBe('Not Found');
        expect(await admin.page.content()).not.toContain('Orders');
      }
      const unknown = await admin.page.goto(`${server.baseUrl}/groups/00000000-0000-4000-8000-000000000000/clicks`);
      expect(unknown?.status()).toBe(404);
      const malformed = await admin.page.goto(`${server.baseUrl}/groups/not-a-group/opens`);
      expect(malformed?.status()).toBe(404);
      // the report type is the route's parameter: another one is 404, for the customer's own group too
      const unknownType = await tab.page.goto(`${server.baseUrl}/groups/${group.group_uuid}/summary`);
      expect(unknownType?.status()).toBe(404);
      await expect(tab.page.textContent('[data-testid=not-found]')).resolves.toBe('Not Found');
    } finally {
      await admin.context.close();
    }
  });

  for (const viewport of Object.values(VIEWPORTS)) {
    it(`passes the page checks on every report page at ${viewport.width} px`, async () => {
      const { page } = tab;
      await page.setViewportSize(viewport);
      try {
        for (const report of REPORTS) {
          await openReport(page, report);
          if (report === 'overview') {
            await visibleIsland(page, 'overview-delivery');
            await visibleIsland(page, 'pie-clicks');
            await page.waitForSelector('[data-testid=pie-clicks-chart][data-drawn]', attached);
          }
          await check(page, `group-${report}-${viewport.width}`, [
            ...REPORT_CONTROLS,
            report === 'clicks' ? '[data-testid=tab-links]' : '[data-testid=report-table]',
          ]);
        }
        await openReport(page, 'clicks', '#links');
        await settled(page, 'link-table');
        await check(page, `group-clicks-links-${viewport.width}`, [...REPORT_CONTROLS, '[data-testid=link-table]']);
        // the report menu reaches every report at this width (it scrolls sideways when narrow)
        for (const entry of [...REPORTS, 'back'])
          await page.locator(`[data-report-menu=${entry}]`).scrollIntoViewIfNeeded({ timeout: 2_000 });
      } finally {
        await page.setViewportSize(VIEWPORTS.desktop);
      }
    }, 180_000);
  }
});

describe('group report pages hydrate in another zone and locale (no React error #418)', () => {
  /** The date range field's text: from the HTML the server sent (its value attribute), or the live field. */
  const rangeText = (page: Page, html?: string) =>
    page.evaluate((html) => {
      const doc = html === undefined ? document : new DOMParser().parseFromString(html, 'text/html');
      const input = doc.querySelector('[data-testid=date-range]') as HTMLInputElement | null;
      return html === undefined ? (input?.value ?? null) : (input?.getAttribute('value') ?? null);
    }, html);

  /** Each <time> in the page's tables reads as the date module writes its moment in UTC. */
  async function expectUtcTimes(page: Page, label: string): Promise<void> {
    const times = await page.$$eval('[data-testid=report-date][datetime]', (els) =>
      els.map((e) => ({ iso: e.getAttribute('datetime')!, text: e.textContent })),
    );
    expect(times.length, label).toBeGreaterThan(0);
    for (const t of times) expect(t.text, label).toBe(formatReportDate(unixOfIso(t.iso)));
  }

  it('loads Overview, Sent and Clicks (both tabs) in America/New_York with de-DE, and changes the range, without a ' +
    'console or page error', async () => {
    const foreign = await openPage(browser, server.baseUrl, {
      viewport: VIEWPORTS.phone,
      timezoneId: 'America/New_York',
      locale: 'de-DE',
    });
    const { page } = foreign;
    const errors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`console: ${msg.text()} (${page.url()})`);
    });
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.name}: ${err.message} (${page.url()}) ${err.stack}`));
    try {
      await signInThroughForm(page, server.baseUrl, COLLEAGUE_EMAIL, COLLEAGUE_PASSWORD);
      for (const [report, hash] of [
        ['overview', ''],
        ['sent', ''],
        ['clicks', ''],
        ['clicks', '#links'],
      ] as const) {
        const label = `${report}${hash}`;
        const html = await (await page.request.get(`${server.baseUrl}/groups/${group.group_uuid}/${report}`)).text();
        await openReport(page, report, hash);
        if (report === 'overview') {
          await visibleIsland(page, 'overview-delivery');
          await visibleIsland(page, 'pie-clicks');
        }
        const served = await rangeText(page, html);
        expect(served, label).toMatch(/\d{4}/);
        expect(await rangeText(page), label).toBe(served);
        if (hash === '') await expectUtcTimes(page, label);
        expect(errors, label).toEqual([]);
      }

      // new ranges from the calendar, named from the server's today (the demo's history is its last
      // 30 days): the last week, yesterday alone (a chart of one point) and a week with no mail at
      // all. The field and every table date stay in the console's UTC form, and the chart draws each.
      const today = utcDay(new Date());
      for (const [label, range, rows] of [
        ['last 7 days', { start: addDays(today, -6), end: today }, true],
        ['yesterday alone', { start: addDays(today, -1), end: addDays(today, -1) }, true],
        ['a week without mail', { start: addDays(today, -70), end: addDays(today, -64) }, false],
      ] as const) {
        await openReport(page, 'sent');
        expect(await pickRange(page, range), label).toBe(formatRange(range));
        await page.waitForFunction(
          (rows) =>
            (document.querySelector('[data-testid=report-range]')?.textContent?.startsWith('Displaying 1-') ??
              false) === rows,
          rows,
        );
        await settled(page);
        await chartsDrawn(page);
        await page.waitForSelector('[data-testid=activity-chart][data-drawn] svg path', attached);
        expect(await rangeText(page)).toBe(formatRange(range));
        if (rows) await expectUtcTimes(page, `sent, ${label}`);
        expect(errors, label).toEqual([]);
      }
    } finally {
      await foreign.context.close();
    }
  }, 120_000);
});
