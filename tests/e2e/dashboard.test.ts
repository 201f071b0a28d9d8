// The Transactional Dashboard in Chromium (docs/console.md §2 Dashboard, §4, §8, §9) against the built
// service with real traffic (tests/helpers/report-traffic.ts): the default date range, the Monthly
// Quota tooltip, the overview chart and the delivery breakdown drawn from the daily series, the
// Latest Sent Transactions table (columns, status colours, paging, sortable headers, the debounced
// search), the More Info modal with and without custom headers and with the timeline, a range with
// nothing in it, the empty state with its retry control, and the home rule both ways.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chartsDrawn,
  hydratedInView,
  launchBrowser,
  location,
  openPage,
  screenshot as saveScreenshot,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import {
  BOUNCED,
  EMPTY_SENDER,
  EMPTY_VIEWER,
  ORDERS,
  PASSWORD,
  QUOTA,
  SENDER,
  SUPPRESSED,
  VIEWER,
  WELCOME,
  addressOf,
  startReportTraffic,
  type ReportTraffic,
} from '../helpers/report-traffic.ts';

let traffic: ReportTraffic;
let browser: Browser;
let tab: TestPage;

/** Recipients newest first, as the table lists them by default (acceptance order, trans_id desc). */
const NEWEST_FIRST = ['gone01', ...[...ORDERS, ...WELCOME, ...BOUNCED].reverse()].map(addressOf);

beforeAll(async () => {
  traffic = await startReportTraffic();
  browser = await launchBrowser();
  tab = await openPage(browser, traffic.server.baseUrl);
  await signInThroughForm(tab.page, traffic.server.baseUrl, SENDER, PASSWORD);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await traffic?.stop();
});

/** A screenshot once transitions and the charts' animations are over. */
async function screenshot(page: Page, name: string): Promise<void> {
  await chartsDrawn(page);
  await saveScreenshot(page, name);
}

/** Waits until no table search is in flight. */
const settled = (page: Page) => page.waitForSelector('[data-testid=transaction-table][aria-busy=false]');
const shownEmails = (page: Page) =>
  page.$$eval('[data-testid=transaction-email]', (cells) => cells.map((c) => c.textContent));
const range = (page: Page) => page.textContent('[data-testid=transactions-range]');

/** Records the bodies of the page's POST /v1/transaction/search calls, with when they left. */
function recordSearches(page: Page): { body: Record<string, unknown>; at: number }[] {
  const seen: { body: Record<string, unknown>; at: number }[] = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname === '/v1/transaction/search')
      seen.push({ body: req.postDataJSON(), at: Date.now() });
  });
  return seen;
}

async function openDashboard(page: Page): Promise<void> {
  await page.goto(`${traffic.server.baseUrl}/`);
  await hydratedInView(page, '[data-testid=transaction-table]');
  // the search above the table: with its first page rendered on the server the table is
  // tall, and scrolling it into view may leave the search above the fold, not yet hydrated
  await hydratedInView(page, '[data-testid=transaction-search]');
  await settled(page);
}

/** 'MMMM D, YYYY' of a UTC day. */
function spelled(day: Date): string {
  return day.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

describe('Transactional Dashboard', () => {
  it(
    'shows the title, the default range (29 days back to today), the quota, both charts and the latest ' +
      'transactions',
    async () => {
      const { page } = tab;
      await openDashboard(page);
      expect(location(page)).toBe('/');
      await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Transactional Dashboard');
      await expect(page.getAttribute('[data-menu=dashboard]', 'class')).resolves.toContain('is-active');
      const today = new Date();
      const start = new Date(today.getTime() - 29 * 86_400_000);
      await expect(page.inputValue('[data-testid=date-range]')).resolves.toBe(`${spelled(start)} - ${spelled(today)}`);

      await page.waitForSelector('[data-testid=overview-chart][data-drawn] svg');
      await page.waitForSelector('[data-testid=breakdown-chart] .donut-slice');
      // the donut: one slice per outcome, in the spec's colours
      await expect(
        page.$$eval('[data-testid=breakdown-chart] .donut-slice', (slices) =>
          slices.map((s) => [s.getAttribute('data-part'), getComputedStyle(s).stroke]),
        ),
      ).resolves.toEqual([
        ['Delivered', 'rgb(35, 162, 109)'],
        ['Bounced', 'rgb(242, 169, 0)'],
        ['Failed', 'rgb(224, 64, 63)'],
      ]);
      // one line per series: sent, delivered, bounced, failed, opens, clicks
      await expect(page.$$eval('[data-testid=overview-chart] .line-graph-path', (paths) => paths.length)).resolves.toBe(
        6,
      );
      await expect(page.textContent('[data-testid=breakdown-delivered]')).resolves.toMatch(/^11 /);
      await expect(page.textContent('[data-testid=breakdown-bounced]')).resolves.toMatch(/^2 /);
      await expect(page.textContent('[data-testid=breakdown-failed]')).resolves.toMatch(/^1 /);
      await expect(page.textContent('[data-testid=breakdown-requests]')).resolves.toBe(String(traffic.total));

      expect(await shownEmails(page)).toEqual(NEWEST_FIRST.slice(0, 10));
      await expect(range(page)).resolves.toBe(`Displaying 1-10 of ${traffic.total}`);
      await expect(page.getAttribute('[data-testid=view-all]', 'href')).resolves.toBe('/groups');
      await expect(
        page.$$eval('[data-testid=transaction-table] thead th', (ths) =>
          ths.map((th) => th.textContent?.replace(/[▲▼↕]/g, '').trim()),
        ),
      ).resolves.toEqual(['Date', 'Recipient', 'Subject', 'Status', 'Group', 'Opened', 'Clicks', 'More Info']);
      await screenshot(page, 'dashboard-1-overview');
    },
  );

  it('shows the quota as a bar whose tooltip reads "X of Y sent"', async () => {
    const { page } = tab;
    // every accepted transaction but the suppressed one used quota
    const text = `${traffic.total - 1} of ${QUOTA.toLocaleString('en-US')} sent`;
    const tooltip = page.locator('[data-testid=quota-tooltip]');
    await expect(tooltip.textContent()).resolves.toBe(text);
    await expect(tooltip.isVisible()).resolves.toBe(false);
    await page.hover('[data-testid=quota-bar]');
    await page.waitForFunction(
      () => getComputedStyle(document.querySelector('[data-testid=quota-tooltip]')!).opacity === '1',
    );
    await expect(tooltip.isVisible()).resolves.toBe(true);
    await expect(page.getAttribute('[data-testid=quota-bar] progress', 'value')).resolves.toBe(
      String(traffic.total - 1),
    );
    await saveScreenshot(page, 'dashboard-2-quota-tooltip');
    await page.mouse.move(0, 0);
  });

  it("shows each row's date, status with its colour, group link, opened icon and clicks", async () => {
    const { page } = tab;
    const row = (local: string) => page.locator(`[data-testid=transaction-row][data-uuid="${traffic.uuid[local]}"]`);
    const status = async (local: string) => ({
      label: await row(local).locator('[data-testid=transaction-status]').textContent(),
      dot: await row(local).locator('.status-dot').getAttribute('class'),
    });
    expect(await status('new03')).toEqual({ label: 'Delivered', dot: 'status-dot is-delivered' });
    expect(await status('gone02')).toEqual({ label: 'Bounced', dot: 'status-dot is-bounced' });
    expect(await status(SUPPRESSED)).toEqual({ label: 'Failed', dot: 'status-dot is-failed' });
    const colour = (local: string) =>
      row(local)
        .locator('.status-dot')
        .evaluate((el) => getComputedStyle(el).backgroundColor);
    await expect(colour('new03')).resolves.toBe('rgb(35, 162, 109)'); // green
    await expect(colour('gone02')).resolves.toBe('rgb(242, 169, 0)'); // amber
    await expect(colour(SUPPRESSED)).resolves.toBe('rgb(224, 64, 63)'); // red

    const group = row('new03').locator('[data-testid=transaction-group]');
    await expect(group.textContent()).resolves.toBe('Welcome');
    await expect(group.getAttribute('href')).resolves.toMatch(/^\/groups\/[0-9a-f-]{36}\/overview$/);
    await expect(row('new03').locator('[data-testid=transaction-subject]').textContent()).resolves.toBe(
      'Welcome for you',
    );
    await expect(row('new03').locator('[data-testid=opened-icon]').getAttribute('aria-label')).resolves.toBe(
      'Not Opened',
    );
    await expect(row('new03').locator('[data-testid=transaction-clicks]').textContent()).resolves.toBe('0 link(s)');
    // the suppressed recipient was never sent: its queued date stands in (docs/console.md §2)
    const date = await row(SUPPRESSED).locator('[data-testid=transaction-date]').textContent();
    expect(date).toBe(new Date().toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric' }));
  });

  it('pages with first, previous, next and last', async () => {
    const { page } = tab;
    await expect(page.isDisabled('[data-testid=transactions-first]')).resolves.toBe(true);
    await expect(page.isDisabled('[data-testid=transactions-previous]')).resolves.toBe(true);
    await page.click('[data-testid=transactions-next]');
    await page.waitForFunction(
      (total) =>
        document.querySelector('[data-testid=transactions-range]')?.textContent ===
        `Displaying 11-${total} of ${total}`,
      traffic.total,
    );
    await settled(page);
    expect(await shownEmails(page)).toEqual(NEWEST_FIRST.slice(10));
    await expect(page.isDisabled('[data-testid=transactions-next]')).resolves.toBe(true);
    await expect(page.isDisabled('[data-testid=transactions-last]')).resolves.toBe(true);
    await expect(page.textContent('[data-testid=transactions-page]')).resolves.toBe('Page 2 of 2');
    await screenshot(page, 'dashboard-3-page-2');
    await page.click('[data-testid=transactions-first]');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=transactions-range]')?.textContent?.startsWith('Displaying 1-10'),
    );
    await page.click('[data-testid=transactions-last]');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=transactions-range]')?.textContent?.startsWith('Displaying 11-'),
    );
    await page.click('[data-testid=transactions-previous]');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=transactions-range]')?.textContent?.startsWith('Displaying 1-10'),
    );
    await settled(page);
  });

  it('sorts by a header, toggling descending and ascending, always from page 1', async () => {
    const { page } = tab;
    const searches = recordSearches(page);
    await page.click('[data-testid=transactions-next]');
    await settled(page);
    await page.click('[data-testid=sort-clicks] button');
    await settled(page);
    expect(searches.at(-1)!.body).toMatchObject({ order_by: 'clicks', order: 'desc', page: 1 });
    await expect(range(page)).resolves.toBe(`Displaying 1-10 of ${traffic.total}`);
    await expect(page.getAttribute('[data-testid=sort-clicks]', 'aria-sort')).resolves.toBe('descending');
    expect((await shownEmails(page))[0]).toBe(addressOf('buyer01'));
    await expect(
      page.locator('[data-testid=transaction-row]').first().locator('[data-testid=transaction-clicks]').textContent(),
    ).resolves.toBe('1 link(s)');

    await page.click('[data-testid=sort-clicks] button');
    await settled(page);
    expect(searches.at(-1)!.body).toMatchObject({ order_by: 'clicks', order: 'asc', page: 1 });
    await expect(page.getAttribute('[data-testid=sort-clicks]', 'aria-sort')).resolves.toBe('ascending');
    expect(await shownEmails(page)).not.toContain(addressOf('buyer01'));

    await page.click('[data-testid=sort-opened] button');
    await settled(page);
    expect(searches.at(-1)!.body).toMatchObject({ order_by: 'opens', order: 'desc', page: 1 });
    expect((await shownEmails(page)).slice(0, 2).sort()).toEqual([addressOf('buyer01'), addressOf('buyer02')]);
    await expect(
      page
        .locator('[data-testid=transaction-row]')
        .first()
        .locator('[data-testid=opened-icon]')
        .getAttribute('aria-label'),
    ).resolves.toBe('Opened');
    await screenshot(page, 'dashboard-4-sorted-by-opens');

    // the Date header turns the newest-first table round, then back
    await page.click('[data-testid=sort-date] button');
    await settled(page);
    expect(searches.at(-1)!.body).toMatchObject({ order_by: 'dateSent', order: 'desc' });
    await page.click('[data-testid=sort-date] button');
    await settled(page);
    expect(searches.at(-1)!.body).toMatchObject({ order_by: 'dateSent', order: 'asc' });
    await expect(page.getAttribute('[data-testid=sort-date]', 'aria-sort')).resolves.toBe('ascending');
  });

  it('searches 1000 ms after the last keystroke, from page 1, by recipient or transaction id', async () => {
    const { page } = tab;
    await openDashboard(page);
    const searches = recordSearches(page);
    await page.click('[data-testid=transactions-next]');
    await settled(page);
    const before = searches.length;
    await page.type('[data-testid=transaction-search]', 'gon', { delay: 150 });
    const typedAt = Date.now();
    await page.keyboard.type('e');
    // one search in all, 950 ms or more after the last keystroke: none while still typing
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=transaction-row]').length === 3);
    expect(searches.length).toBe(before + 1);
    const search = searches.at(-1)!;
    expect(search.at - typedAt).toBeGreaterThanOrEqual(950);
    expect(search.body).toMatchObject({ transaction_search_string: 'gone', page: 1 });
    await settled(page);
    await expect(range(page)).resolves.toBe('Displaying 1-3 of 3');
    await screenshot(page, 'dashboard-5-search');

    await page.fill('[data-testid=transaction-search]', traffic.uuid.buyer05);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=transaction-row]').length === 1);
    expect(await shownEmails(page)).toEqual([addressOf('buyer05')]);
    await page.fill('[data-testid=transaction-search]', '');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=transaction-row]').length === 10);
    await settled(page);
  });

  it(
    'opens More Info with the custom headers and the timeline: ' + 'delivered with the remote reply, opened, clicked',
    async () => {
      const { page } = tab;
      // buyer01, the oldest, is on the second page of the newest-first table
      await page.click('[data-testid=transactions-next]');
      await settled(page);
      await page.click(`[data-testid=transaction-row][data-uuid="${traffic.uuid.buyer01}"] [data-testid=more-info]`);
      await page.waitForSelector('[data-testid=transaction-info]');
      await expect(page.textContent('[data-testid=info-id]')).resolves.toBe(traffic.uuid.buyer01);
      await expect(page.textContent('[data-testid=info-from]')).resolves.toBe('News Desk <news@reports.example>');
      await expect(page.textContent('[data-testid=info-to]')).resolves.toBe(addressOf('buyer01'));
      await expect(page.textContent('[data-testid=info-subject]')).resolves.toBe('Orders for you');
      await expect(page.textContent('[data-testid=info-sent]')).resolves.toMatch(
        /^[A-Z][a-z]+ \d{1,2}, \d{4} \d\d:\d\d:\d\d$/,
      );
      await expect(page.textContent('[data-testid=info-headers]')).resolves.toContain('X-Campaign');
      await expect(page.textContent('[data-testid=info-headers]')).resolves.toContain('spring');
      await page.waitForSelector('[data-testid=timeline]');
      const events = await page.$$eval('[data-testid=timeline-event]', (items) =>
        items.map((li) => (li as HTMLElement).dataset.type),
      );
      expect(events).toEqual(['queued', 'sent', 'delivered', 'open', 'click']);
      const delivered = page.locator('[data-testid=timeline-event][data-type=delivered] [data-testid=timeline-detail]');
      await expect(delivered.first().textContent()).resolves.toMatch(/^Remote server: 250 /);
      await expect(page.textContent('[data-testid=timeline-event][data-type=click]')).resolves.toContain(
        'https://reports.example/orders',
      );
      await screenshot(page, 'dashboard-6-more-info-headers');
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
    },
  );

  it('opens More Info without custom headers for a bounce, its timeline holding the 550 reply', async () => {
    const { page } = tab;
    await openDashboard(page);
    await page.click(`[data-testid=transaction-row][data-uuid="${traffic.uuid.gone02}"] [data-testid=more-info]`);
    await page.waitForSelector('[data-testid=timeline]');
    await expect(page.$('[data-testid=info-headers]')).resolves.toBeNull();
    await expect(page.textContent('[data-testid=info-sent]')).resolves.toBe('Not sent');
    const events = await page.$$eval('[data-testid=timeline-event]', (items) =>
      items.map((li) => (li as HTMLElement).dataset.type),
    );
    expect(events).toEqual(['queued', 'bounced']);
    await expect(
      page.textContent('[data-testid=timeline-event][data-type=bounced] [data-testid=timeline-title]'),
    ).resolves.toBe('Bounced (hard)');
    await expect(page.textContent('[data-testid=timeline-event][data-type=bounced]')).resolves.toContain('550');
    await screenshot(page, 'dashboard-7-more-info-bounce');
    await page.click('[data-testid=info-close]');
    await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
  });

  it(
    'picks a range in the calendar: one with nothing in ' + 'it empties the table (with a retry) and the breakdown',
    async () => {
      const { page } = tab;
      const calendar = page.locator('.flatpickr-calendar.open');
      await page.click('[data-testid=date-range]');
      await calendar.waitFor();
      await screenshot(page, 'dashboard-8-calendar');
      // the two days before yesterday: the calendar shows this month and the one before
      const day = (offset: number) => new Date(new Date().setDate(new Date().getDate() - offset));
      const [from, to] = [day(3), day(2)];
      const label = (d: Date) => d.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric' });
      const cell = (d: Date) =>
        `.flatpickr-calendar.open .flatpickr-day[aria-label="${label(d)}"]:not(.prevMonthDay):not(.nextMonthDay)`;
      await page.click(cell(from));
      await page.click(cell(to)); // the range is complete: the calendar closes
      await page.waitForFunction(() => !document.querySelector('.flatpickr-calendar.open'));
      await page.waitForSelector('[data-testid=transactions-empty]');
      await expect(page.inputValue('[data-testid=date-range]')).resolves.toBe(`${label(from)} - ${label(to)}`);
      await page.waitForSelector('[data-testid=breakdown-empty]');
      await expect(page.textContent('[data-testid=breakdown-empty]')).resolves.toContain('No Data');
      await expect(page.$('[data-testid=transactions-retry]')).resolves.not.toBeNull();
      await page.waitForSelector('[data-testid=overview-chart][data-drawn] svg');
      await screenshot(page, 'dashboard-9-empty-range');
    },
  );
});

describe('home (docs/console.md §4)', () => {
  it('shows a user who may not send the dashboard of a customer with nothing sent, with a retry control', async () => {
    const empty = await openPage(browser, traffic.server.baseUrl);
    try {
      await signInThroughForm(empty.page, traffic.server.baseUrl, EMPTY_VIEWER, PASSWORD);
      await empty.page.goto(`${traffic.server.baseUrl}/`);
      await expect(empty.page.textContent('[data-testid=page-title]')).resolves.toBe('Transactional Dashboard');
      await hydratedInView(empty.page, '[data-testid=transaction-table]');
      await empty.page.waitForSelector('[data-testid=transactions-empty]');
      await expect(empty.page.textContent('[data-testid=transactions-empty]')).resolves.toContain(
        'No transactions found.',
      );
      await expect(empty.page.$('[data-testid=transactions-range]')).resolves.toBeNull();
      await empty.page.waitForSelector('[data-testid=breakdown-empty]');
      // the default monthly quota
      await expect(empty.page.textContent('[data-testid=quota-tooltip]')).resolves.toBe('0 of 10,000 sent');
      // Retry asks again
      const asked = empty.page.waitForRequest(
        (req) =>
          new URL(req.url()).pathname === '/v1/transaction/search' || new URL(req.url()).pathname === '/v1/dashboard',
      );
      await empty.page.click('[data-testid=transactions-retry]');
      await asked;
      await empty.page.waitForSelector('[data-testid=transaction-table][aria-busy=false]');
      await screenshot(empty.page, 'dashboard-10-empty');
      expect(empty.foreign).toEqual([]);
    } finally {
      await empty.context.close();
    }
  });

  it('shows a user who may send, of a customer with nothing sent, the getting-started page', async () => {
    const other = await openPage(browser, traffic.server.baseUrl);
    try {
      await signInThroughForm(other.page, traffic.server.baseUrl, EMPTY_SENDER, PASSWORD);
      await other.page.goto(`${traffic.server.baseUrl}/`);
      await expect(other.page.textContent('[data-testid=page-title]')).resolves.toBe("Let's get started");
    } finally {
      await other.context.close();
    }
  });

  it('shows a user who may not send the dashboard of a customer with traffic, with its transactions', async () => {
    const viewer = await openPage(browser, traffic.server.baseUrl);
    try {
      await signInThroughForm(viewer.page, traffic.server.baseUrl, VIEWER, PASSWORD);
      await viewer.page.goto(`${traffic.server.baseUrl}/`);
      await expect(viewer.page.textContent('[data-testid=page-title]')).resolves.toBe('Transactional Dashboard');
      await hydratedInView(viewer.page, '[data-testid=transaction-table]');
      await viewer.page.waitForSelector('[data-testid=transaction-row]');
      await expect(viewer.page.$('[data-menu=settings]')).resolves.toBeNull();
    } finally {
      await viewer.context.close();
    }
  });
});
