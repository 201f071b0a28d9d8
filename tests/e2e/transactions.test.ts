// The Transactions page (/groups) in Chromium (docs/console.md §2 "Transactions", §4, §8, §9) against the
// built service with real traffic (tests/helpers/report-traffic.ts): the Groups tab (columns, dates
// 'DD MMMM YYYY', totals, report links, debounced search, sortable headers), the Recipients tab
// (opened by its tab and by the #recipients fragment; date range, search, the status filters
// All/Sent/Failed/Delivered from page 1, the transaction table and its More Info modal), machines'
// opens and clicks (counted in neither column, shown in More Info at 1440 and 390 px), and the
// empty state with a retry control.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  animationsDone,
  launchBrowser,
  location,
  openPage,
  screenshot as saveScreenshot,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import {
  EMPTY_VIEWER,
  PASSWORD,
  SENDER,
  SUPPRESSED,
  addressOf,
  startReportTraffic,
  type ReportTraffic,
} from '../helpers/report-traffic.ts';
import { VIEWPORTS, checkPage } from '../helpers/page-checks.ts';
import { formatGroupDate } from '../../src/lib/dates.ts';

let traffic: ReportTraffic;
let browser: Browser;
let tab: TestPage;

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

async function screenshot(page: Page, name: string): Promise<void> {
  await animationsDone(page);
  await saveScreenshot(page, name);
}

// one of the two tables is in a hidden tab: wait for it attached, not visible
const attached = { state: 'attached' } as const;
const groupsSettled = (page: Page) => page.waitForSelector('[data-testid=group-table][aria-busy=false]', attached);
const tableSettled = (page: Page) => page.waitForSelector('[data-testid=transaction-table][aria-busy=false]', attached);
/** Waits until the island holding `selector` is hydrated, shown or not. */
const hydratedIn = (page: Page, selector: string) =>
  page.waitForSelector(`astro-island:not([ssr]) ${selector}`, attached);
const groupNames = (page: Page) => page.$$eval('[data-testid=group-name]', (cells) => cells.map((c) => c.textContent));
const shownEmails = (page: Page) =>
  page.$$eval('[data-testid=transaction-email]', (cells) => cells.map((c) => c.textContent));
const visible = (page: Page, testId: string) => page.isVisible(`[data-testid=${testId}]`);

/** Records the bodies of the page's POST calls to `path`, with when they left. */
function recordPosts(page: Page, path: string): { body: Record<string, unknown>; at: number }[] {
  const seen: { body: Record<string, unknown>; at: number }[] = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname === path)
      seen.push({ body: req.postDataJSON(), at: Date.now() });
  });
  return seen;
}

async function openGroups(page: Page, fragment = ''): Promise<void> {
  await page.goto(`${traffic.server.baseUrl}/groups${fragment}`);
  await hydratedIn(page, '[data-testid=group-table]');
  await hydratedIn(page, '[data-testid=transaction-table]');
  await hydratedIn(page, '[data-testid=status-all]');
  await groupsSettled(page);
  await tableSettled(page);
}

/** 'DD MMMM YYYY' of today in UTC, the zone the console shows dates in. */
function groupDate(): string {
  return formatGroupDate(Date.now() / 1000);
}

describe('Transactions: the Groups tab', () => {
  it('lists the groups, last sent first, with their dates, totals and report links', async () => {
    const { page } = tab;
    await openGroups(page);
    expect(location(page)).toBe('/groups');
    await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Transactions');
    await expect(page.title()).resolves.toBe('Transactions · Transactional');
    await expect(page.getAttribute('[data-menu=groups]', 'class')).resolves.toContain('is-active');
    await expect(page.getAttribute('[data-tab=groups]', 'class')).resolves.toContain('is-active');
    expect(await visible(page, 'groups-panel')).toBe(true);
    expect(await visible(page, 'recipients-panel')).toBe(false);

    await expect(
      page.$$eval('[data-testid=group-table] thead th', (ths) =>
        ths.map((th) => th.textContent?.replace(/[▲▼↕]/g, '').trim()),
      ),
    ).resolves.toEqual([
      'Group',
      'Last Send Date',
      'Sent',
      'Failed',
      'Delivered',
      'Bounces',
      'Opens',
      'Link Clicks',
      'Report',
    ]);
    expect(await groupNames(page)).toEqual(['Receipts', 'Welcome', 'Orders']);
    await expect(page.textContent('[data-testid=groups-range]')).resolves.toBe('Displaying 1-3 of 3');

    const row = (name: string) =>
      page.locator('[data-testid=group-row]', { has: page.locator(`[data-testid=group-name]:text-is("${name}")`) });
    const counts = (name: string) =>
      row(name).evaluate((tr) =>
        ['sent', 'failed', 'delivered', 'bounces', 'opens', 'clicks'].map((k) =>
          Number(tr.querySelector(`[data-testid=group-${k}]`)!.textContent),
        ),
      );
    expect(await counts('Orders')).toEqual([8, 0, 8, 0, 2, 1]);
    // the two refused by the remote server are sent (answered) and bounced, not failed (never handed over)
    expect(await counts('Welcome')).toEqual([5, 0, 3, 2, 0, 0]);
    expect(await counts('Receipts')).toEqual([0, 1, 0, 0, 0, 0]);
    await expect(row('Welcome').locator('[data-testid=group-created]').textContent()).resolves.toBe(groupDate());
    await expect(row('Welcome').locator('[data-testid=group-last-send]').textContent()).resolves.toBe(groupDate());
    const uuid = await row('Welcome').getAttribute('data-uuid');
    await expect(row('Welcome').locator('[data-testid=group-report]').getAttribute('href')).resolves.toBe(
      `/groups/${uuid}/overview`,
    );
    // the transaction table's group link names the same report
    const welcomeRow = await tab.page.evaluate(async () => {
      const res = await fetch('/v1/transaction/search', {
        method: 'POST',
        headers: { 'Request-Type': 'ui', 'Content-Type': 'application/json' },
        body: JSON.stringify({ transaction_search_string: 'new01' }),
      });
      return ((await res.json()) as { data: { trans_group_uuid: string }[] }).data[0];
    });
    expect(welcomeRow.trans_group_uuid).toBe(uuid);
    await screenshot(page, 'transactions-1-groups');
  });

  it('sorts by a header, descending then ascending', async () => {
    const { page } = tab;
    const searches = recordPosts(page, '/v1/transaction-groups/search');
    await page.click('[data-testid=sort-group-sent] button');
    await groupsSettled(page);
    expect(searches.at(-1)!.body).toMatchObject({ orderBy: 'sent', order: 'desc', page: 1 });
    expect(await groupNames(page)).toEqual(['Orders', 'Welcome', 'Receipts']);
    await expect(page.getAttribute('[data-testid=sort-group-sent]', 'aria-sort')).resolves.toBe('descending');
    await page.click('[data-testid=sort-group-sent] button');
    await groupsSettled(page);
    expect(searches.at(-1)!.body).toMatchObject({ orderBy: 'sent', order: 'asc', page: 1 });
    expect(await groupNames(page)).toEqual(['Receipts', 'Welcome', 'Orders']);
  });

  it('searches group names 1000 ms after the last keystroke', async () => {
    const { page } = tab;
    const searches = recordPosts(page, '/v1/transaction-groups/search');
    await page.type('[data-testid=group-search]', 'wel', { delay: 100 });
    const typedAt = Date.now();
    await page.keyboard.type('c');
    // one search in all, 950 ms or more after the last keystroke: no earlier keystroke searched
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=group-row]').length === 1);
    expect(searches).toHaveLength(1);
    expect(searches[0].at - typedAt).toBeGreaterThanOrEqual(950);
    expect(searches[0].body).toMatchObject({ searchQuery: 'welc', search_query: 'welc', page: 1 });
    expect(await groupNames(page)).toEqual(['Welcome']);
    await page.fill('[data-testid=group-search]', 'nothing like it');
    await page.waitForSelector('[data-testid=groups-empty]');
    await expect(page.textContent('[data-testid=groups-empty]')).resolves.toContain('No groups found.');
    await expect(page.$('[data-testid=groups-retry]')).resolves.not.toBeNull();
    await screenshot(page, 'transactions-2-groups-empty-search');
  });
});

describe('Transactions: the Recipients tab', () => {
  it('opens from its tab, puts #recipients in the address, and Back returns to Groups', async () => {
    const { page } = tab;
    await openGroups(page);
    await page.click('[data-testid=tab-recipients]');
    await page.waitForFunction(() => window.location.hash === '#recipients');
    // the panels switch on hashchange, which the browser fires after the address changes
    await page.waitForSelector('[data-testid=recipients-panel]', { state: 'visible' });
    expect(await visible(page, 'groups-panel')).toBe(false);
    await expect(page.getAttribute('[data-tab=recipients]', 'class')).resolves.toContain('is-active');
    await expect(page.getAttribute('[data-testid=tab-recipients]', 'aria-selected')).resolves.toBe('true');
    await expect(page.textContent('[data-testid=transactions-range]')).resolves.toBe(
      `Displaying 1-10 of ${traffic.total}`,
    );
    await expect(page.getAttribute('[data-testid=transaction-search]', 'placeholder')).resolves.toBe(
      'Search by Recipient Email or Transaction ID',
    );
    await expect(page.inputValue('[data-testid=date-range]')).resolves.toMatch(
      /^[A-Z][a-z]+ \d{1,2}, \d{4} - [A-Z][a-z]+ \d{1,2}, \d{4}$/,
    );
    await screenshot(page, 'transactions-3-recipients');
    await page.goBack();
    await page.waitForFunction(() => window.location.hash === '' || window.location.hash === '#groups');
    await page.waitForSelector('[data-testid=groups-panel]', { state: 'visible' });
    expect(await visible(page, 'recipients-panel')).toBe(false);
  });

  it('opens directly at /groups#recipients, never showing the Groups tab first', async () => {
    const { page } = tab;
    await page.goto(`${traffic.server.baseUrl}/groups#recipients`, { waitUntil: 'domcontentloaded' });
    expect(await visible(page, 'recipients-panel')).toBe(true);
    expect(await visible(page, 'groups-panel')).toBe(false);
    await hydratedIn(page, '[data-testid=transaction-table]');
    await tableSettled(page);
    expect((await shownEmails(page))[0]).toBe(addressOf('gone01'));
  });

  it('filters by status All, Sent, Failed, Delivered, each from page 1', async () => {
    const { page } = tab;
    await openGroups(page, '#recipients');
    const searches = recordPosts(page, '/v1/transaction/search');
    const range = () => page.textContent('[data-testid=transactions-range]');
    await expect(page.getAttribute('[data-testid=status-all]', 'aria-pressed')).resolves.toBe('true');
    await page.click('[data-testid=transactions-next]');
    await tableSettled(page);
    await expect(range()).resolves.toBe(`Displaying 11-${traffic.total} of ${traffic.total}`);

    await page.click('[data-testid=status-failed]');
    await tableSettled(page);
    expect(searches.at(-1)!.body).toMatchObject({ message_status: 'failed', page: 1 });
    // failed: never handed over (gone01 again, suppressed); the two refused by the remote server are bounced
    await expect(range()).resolves.toBe('Displaying 1-1 of 1');
    expect(await shownEmails(page)).toEqual(['gone01'].map(addressOf));
    await expect(
      page.$$eval('[data-testid=transaction-status]', (cells) => cells.map((c) => c.textContent)),
    ).resolves.toEqual(['Failed']);
    await expect(page.getAttribute('[data-testid=status-failed]', 'aria-pressed')).resolves.toBe('true');
    await expect(page.getAttribute('[data-testid=status-all]', 'aria-pressed')).resolves.toBe('false');
    await screenshot(page, 'transactions-4-failed');

    await page.click('[data-testid=status-delivered]');
    await tableSettled(page);
    expect(searches.at(-1)!.body).toMatchObject({ message_status: 'delivered', page: 1 });
    await expect(range()).resolves.toBe('Displaying 1-10 of 11');
    await expect(
      page.$$eval('[data-testid=transaction-status]', (cells) => [...new Set(cells.map((c) => c.textContent))]),
    ).resolves.toEqual(['Delivered']);
    await page.click('[data-testid=transactions-next]');
    await tableSettled(page);
    await expect(range()).resolves.toBe('Displaying 11-11 of 11');

    await page.click('[data-testid=status-sent]');
    await tableSettled(page);
    expect(searches.at(-1)!.body).toMatchObject({ message_status: 'sent', page: 1 });
    // sent: handed over and answered, the 11 delivered and the 2 bounced
    await expect(range()).resolves.toBe('Displaying 1-10 of 13');

    await page.click('[data-testid=status-all]');
    await tableSettled(page);
    expect(searches.at(-1)!.body).toMatchObject({ message_status: 'all', page: 1 });
    await expect(range()).resolves.toBe(`Displaying 1-10 of ${traffic.total}`);
  });

  it('searches within a status and opens More Info with the timeline', async () => {
    const { page } = tab;
    await page.click('[data-testid=status-failed]');
    await tableSettled(page);
    await page.fill('[data-testid=transaction-search]', 'gone01');
    // failed: only the second send, refused at acceptance (the first bounced)
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=transaction-row]').length === 1);
    await tableSettled(page);
    await page.click(`[data-testid=transaction-row][data-uuid="${traffic.uuid[SUPPRESSED]}"] [data-testid=more-info]`);
    await page.waitForSelector('[data-testid=timeline]');
    await expect(page.textContent('[data-testid=info-to]')).resolves.toBe(addressOf('gone01'));
    await expect(page.textContent('[data-testid=info-subject]')).resolves.toBe('Receipts for you');
    const events = await page.$$eval('[data-testid=timeline-event]', (items) =>
      items.map((li) => (li as HTMLElement).dataset.type),
    );
    expect(events).toEqual(['queued', 'failed']);
    await expect(page.textContent('[data-testid=timeline-event][data-type=failed]')).resolves.toMatch(/suppress/i);
    await screenshot(page, 'transactions-5-more-info-suppressed');
    await page.click('[data-testid=info-close]');
    await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
  });
});

describe('Transactions: machines’ opens and clicks', () => {
  it('counts buyer03 neither opened nor clicked, and More Info shows the machines’ open and click', async () => {
    const { page } = tab;
    await page.click('[data-testid=status-all]');
    await tableSettled(page);
    await page.fill('[data-testid=transaction-search]', addressOf('buyer03'));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=transaction-row]').length === 1);
    await tableSettled(page);
    const row = `[data-testid=transaction-row][data-uuid="${traffic.uuid.buyer03}"]`;
    // Apple Mail Privacy Protection's fetch and a HEAD are no person's open or click
    await expect(page.getAttribute(`${row} [data-testid=opened-icon]`, 'aria-label')).resolves.toBe('Not Opened');
    await expect(page.textContent(`${row} [data-testid=transaction-clicks]`)).resolves.toBe('0 link(s)');
    for (const [size, name] of [
      [VIEWPORTS.desktop, 'transactions-7-more-info-machines-1440'],
      [VIEWPORTS.phone, 'transactions-8-more-info-machines-390'],
    ] as const) {
      await page.setViewportSize(size);
      await page.click(`${row} [data-testid=more-info]`);
      await page.waitForSelector('[data-testid=timeline]');
      const events = await page.$$eval('[data-testid=timeline-event]', (items) =>
        items.map((li) => [
          (li as HTMLElement).dataset.type,
          li.querySelector('[data-testid=timeline-title]')?.textContent,
          [...li.querySelectorAll('[data-testid=timeline-detail]')].map((d) => d.textContent),
        ]),
      );
      expect(events.filter(([type]) => type === 'open' || type === 'click')).toEqual([
        [
          'open',
          'Opened by a machine',
          [
            'By Apple Mail Privacy Protection, fetching the images at delivery; not counted as a person’s',
            'Mozilla/5.0',
          ],
        ],
        [
          'click',
          'Clicked by a machine',
          ['By a HEAD request (a link checker); not counted as a person’s', 'https://reports.example/orders'],
        ],
      ]);
      await page.locator('[data-testid=timeline-event][data-type=click]').scrollIntoViewIfNeeded();
      await animationsDone(page);
      await checkPage(page, name, ['[data-testid=timeline-event][data-type=open]']);
      await page.click('[data-testid=info-close]');
      await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
    }
    // back to the page's own size for the tests after this one
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('Transactions: why a message bounced', () => {
  it('More Info names the cause of gone01’s bounce (the 550 5.1.1 its server answered)', async () => {
    const { page } = tab;
    await page.click('[data-testid=status-all]');
    await tableSettled(page);
    await page.fill('[data-testid=transaction-search]', addressOf('gone01'));
    const row = `[data-testid=transaction-row][data-uuid="${traffic.uuid.gone01}"]`;
    await page.waitForSelector(row);
    await tableSettled(page);
    for (const [size, name] of [
      [VIEWPORTS.desktop, 'transactions-9-more-info-cause-1440'],
      [VIEWPORTS.phone, 'transactions-10-more-info-cause-390'],
    ] as const) {
      await page.setViewportSize(size);
      await page.click(`${row} [data-testid=more-info]`);
      await page.waitForSelector('[data-testid=timeline]');
      const events = await page.$$eval('[data-testid=timeline-event]', (items) =>
        items.map((li) => ({
          type: (li as HTMLElement).dataset.type,
          title: li.querySelector('[data-testid=timeline-title]')?.textContent,
          details: [...li.querySelectorAll('[data-testid=timeline-detail]')].map((d) => d.textContent),
        })),
      );
      expect(
        events.filter((e) => e.type === 'bounced'),
        JSON.stringify(events),
      ).toEqual([
        expect.objectContaining({
          title: 'Bounced (hard)',
          details: expect.arrayContaining(['Cause: the address does not exist']),
        }),
      ]);
      const bounced = page.locator('[data-testid=timeline-event][data-type=bounced]');
      await bounced.scrollIntoViewIfNeeded();
      await animationsDone(page);
      await checkPage(page, name, ['[data-testid=timeline-event][data-type=bounced]']);
      await page.click('[data-testid=info-close]');
      await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('Transactions: a customer with nothing sent', () => {
  it('shows both tables empty, each with a retry control', async () => {
    const empty = await openPage(browser, traffic.server.baseUrl);
    try {
      await signInThroughForm(empty.page, traffic.server.baseUrl, EMPTY_VIEWER, PASSWORD);
      await openGroups(empty.page);
      await empty.page.waitForSelector('[data-testid=groups-empty]');
      const asked = empty.page.waitForRequest((req) => new URL(req.url()).pathname === '/v1/transaction-groups/search');
      await empty.page.click('[data-testid=groups-retry]');
      await asked;
      await screenshot(empty.page, 'transactions-6-empty-groups');
      await empty.page.click('[data-testid=tab-recipients]');
      await empty.page.waitForSelector('[data-testid=transactions-empty]');
      await expect(empty.page.isVisible('[data-testid=transactions-retry]')).resolves.toBe(true);
      expect(empty.foreign).toEqual([]);
    } finally {
      await empty.context.close();
    }
  });
});
