// The Dashboard and Transactions pages in Chromium with `npm run demo`'s account: the
// built admin CLI fills 30 days of history into the data the built service then serves, and the
// pages must show what the API answers for it — the chart and breakdown drawn, the quota tooltip,
// exact totals, paging to the last page, a sort, a search, More Info with and without the demo's
// custom headers, the groups and a status filter of the Recipients tab.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chartsDrawn,
  hydratedInView,
  launchBrowser,
  openPage,
  screenshot as saveScreenshot,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { prepareServer, type RunningServer } from '../helpers/server.ts';

const TRANSACTIONS = 2000;
const DEMO_EMAIL = 'demo@demo-shop.example';

let server: RunningServer;
let browser: Browser;
let tab: TestPage;

beforeAll(async () => {
  server = await prepareServer();
  const out = await server.admin('demo', '--transactions', String(TRANSACTIONS));
  const password = /password:\s+(\S+)/.exec(out)?.[1];
  if (!password) throw new Error(`no password in the demo's output:\n${out}`);
  await server.start();
  browser = await launchBrowser();
  tab = await openPage(browser, server.baseUrl);
  await signInThroughForm(tab.page, server.baseUrl, DEMO_EMAIL, password);
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

interface Row {
  trans_uuid: string;
  trans_to_email: string;
  trans_group_name: string;
  tm_additional_headers: string;
}
interface SearchPage {
  data: Row[];
  meta: { total: number; last_page: number; total_capped: boolean };
}

/** A console call from the signed-in page, as its islands make them. */
function api<T>(page: Page, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const res = await fetch(path, {
        method,
        headers: { 'Request-Type': 'ui', 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status}`);
      return res.json();
    },
    { method, path, body },
  );
}

async function screenshot(page: Page, name: string): Promise<void> {
  await chartsDrawn(page);
  await saveScreenshot(page, name);
}

const attached = { state: 'attached' } as const;
const settled = (page: Page) => page.waitForSelector('[data-testid=transaction-table][aria-busy=false]', attached);
const shownUuids = (page: Page) =>
  page.$$eval('[data-testid=transaction-row]', (rows) => rows.map((r) => (r as HTMLElement).dataset.uuid));
const rangeText = (page: Page) => page.textContent('[data-testid=transactions-range]');
const number = (n: number) => n.toLocaleString('en-US');

/** Records the bodies of the page's transaction searches. */
function recordSearches(page: Page): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname === '/v1/transaction/search')
      seen.push(req.postDataJSON());
  });
  return seen;
}

async function openDashboard(page: Page): Promise<void> {
  await page.goto(`${server.baseUrl}/`);
  await hydratedInView(page, '[data-testid=transaction-table]');
  // the search above the table: with its first page rendered on the server the table is
  // tall, and scrolling it into view may leave the search above the fold, not yet hydrated
  await hydratedInView(page, '[data-testid=transaction-search]');
  await settled(page);
}

describe('the demo account in the console', () => {
  it('draws its dashboard: the chart, the breakdown, the quota and the table with the API’s totals', async () => {
    const { page } = tab;
    await openDashboard(page);
    await page.waitForSelector('[data-testid=overview-chart][data-drawn] svg');
    await expect(page.$$eval('[data-testid=overview-chart] .line-graph-path', (paths) => paths.length)).resolves.toBe(
      6,
    );
    await expect(
      page.$$eval('[data-testid=breakdown-chart] .donut-slice', (slices) =>
        slices.map((s) => s.getAttribute('data-part')),
      ),
    ).resolves.toEqual(['Delivered', 'Bounced', 'Failed']);

    const { data } = await api<{ data: { overviewStats: { total: number }; transactionStats: SearchPage } }>(
      page,
      'GET',
      '/v1/dashboard',
    );
    const total = data.transactionStats.meta.total;
    // the default range (29 days back) holds nearly all of the 30 days' mail
    expect(total).toBeGreaterThan(TRANSACTIONS * 0.9);
    await expect(page.textContent('[data-testid=breakdown-requests]')).resolves.toBe(number(total));
    await expect(rangeText(page)).resolves.toBe(`Displaying 1-10 of ${number(total)}`);
    expect(await shownUuids(page)).toEqual(data.transactionStats.data.map((t) => t.trans_uuid));

    const { quota } = await api<{ quota: { sent: number; maximum: number } }>(page, 'GET', '/v1/dashboard/get-quota');
    expect(quota.sent).toBeGreaterThan(0);
    await expect(page.textContent('[data-testid=quota-tooltip]')).resolves.toBe(
      `${number(quota.sent)} of ${number(quota.maximum)} sent`,
    );
    await screenshot(page, 'demo-1-dashboard');
  });

  it('pages to the last page and sorts by a header, showing what the API answers for the same search', async () => {
    const { page } = tab;
    const searches = recordSearches(page);
    await page.click('[data-testid=transactions-last]');
    await page.waitForFunction(
      () => !document.querySelector('[data-testid=transactions-range]')?.textContent?.startsWith('Displaying 1-10 '),
    );
    await settled(page);
    const last = await api<SearchPage>(page, 'POST', '/v1/transaction/search', searches.at(-1));
    await expect(page.textContent('[data-testid=transactions-page]')).resolves.toBe(
      `Page ${number(last.meta.last_page)} of ${number(last.meta.last_page)}`,
    );
    const first = (last.meta.last_page - 1) * 10 + 1;
    await expect(rangeText(page)).resolves.toBe(
      `Displaying ${number(first)}-${number(last.meta.total)} of ${number(last.meta.total)}`,
    );
    expect(await shownUuids(page)).toEqual(last.data.map((t) => t.trans_uuid));

    await page.click('[data-testid=sort-clicks] button');
    await page.waitForFunction(() =>
      document.querySelector('[data-testid=transactions-range]')?.textContent?.startsWith('Displaying 1-10 '),
    );
    await settled(page);
    const sorted = searches.at(-1)!;
    expect(sorted).toMatchObject({ order_by: 'clicks', order: 'desc', page: 1 });
    const answer = await api<SearchPage>(page, 'POST', '/v1/transaction/search', sorted);
    expect(await shownUuids(page)).toEqual(answer.data.map((t) => t.trans_uuid));
    await screenshot(page, 'demo-2-sorted');
  });

  it(
    'searches for a recipient and opens More Info with ' + 'an order’s custom headers, and a mail without any',
    async () => {
      const { page } = tab;
      await openDashboard(page);
      // a recipient with an order (custom headers) and a shipping update (none), found through the API
      let withHeaders: Row | undefined;
      let without: Row | undefined;
      for (let p = 1; p <= 20 && !(withHeaders && without); p++) {
        const { data } = await api<SearchPage>(page, 'POST', '/v1/transaction/search', { page: p });
        for (const row of data) {
          if (!withHeaders && row.trans_group_name === 'Orders') withHeaders = row;
          if (!without && row.trans_group_name === 'Shipping updates') without = row;
        }
      }
      expect(withHeaders && without).toBeTruthy();
      expect(JSON.parse(withHeaders!.tm_additional_headers)).toHaveProperty('X-Order-Id');

      for (const [row, headers] of [
        [withHeaders!, true],
        [without!, false],
      ] as const) {
        await page.fill('[data-testid=transaction-search]', row.trans_to_email);
        // after the debounce, only that recipient's mail
        await page.waitForFunction(
          ({ email, uuid }) => {
            const emails = [...document.querySelectorAll('[data-testid=transaction-email]')].map((c) => c.textContent);
            return (
              emails.every((e) => e === email) &&
              document.querySelector(`[data-testid=transaction-row][data-uuid="${uuid}"]`) !== null
            );
          },
          { email: row.trans_to_email, uuid: row.trans_uuid },
        );
        await settled(page);
        await page.click(`[data-testid=transaction-row][data-uuid="${row.trans_uuid}"] [data-testid=more-info]`);
        await page.waitForSelector('[data-testid=timeline]');
        await expect(page.textContent('[data-testid=info-id]')).resolves.toBe(row.trans_uuid);
        await expect(page.textContent('[data-testid=info-to]')).resolves.toContain(row.trans_to_email);
        if (headers) await expect(page.textContent('[data-testid=info-headers]')).resolves.toContain('X-Order-Id');
        else await expect(page.$('[data-testid=info-headers]')).resolves.toBeNull();
        const events = await page.$$eval('[data-testid=timeline-event]', (items) =>
          items.map((li) => (li as HTMLElement).dataset.type),
        );
        expect(events[0]).toBe('queued');
        if (headers) await screenshot(page, 'demo-3-more-info');
        await page.click('[data-testid=info-close]');
        await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
      }
    },
  );

  it('lists the demo groups, and the Recipients tab’s Failed filter shows its exact total', async () => {
    const { page } = tab;
    await page.goto(`${server.baseUrl}/groups`);
    await page.waitForSelector('astro-island:not([ssr]) [data-testid=group-table]', attached);
    await page.waitForSelector('[data-testid=group-table][aria-busy=false]');
    const names = await page.$$eval('[data-testid=group-name]', (cells) => cells.map((c) => c.textContent));
    expect([...names].sort()).toEqual([
      'Invoices',
      'Newsletter receipts',
      'Orders',
      'Password resets',
      'Shipping updates',
      'Welcome',
    ]);
    await screenshot(page, 'demo-4-groups');

    await page.click('[data-testid=tab-recipients]');
    await page.waitForSelector('astro-island:not([ssr]) [data-testid=status-failed]');
    await settled(page);
    await page.click('[data-testid=status-failed]');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=status-failed]')?.getAttribute('aria-pressed') === 'true',
    );
    await settled(page);
    const failed = await api<SearchPage>(page, 'POST', '/v1/transaction/search', { message_status: 'failed' });
    expect(failed.meta.total).toBeGreaterThan(0);
    expect(failed.meta.total_capped).toBe(false);
    await page.waitForFunction(
      (total) => document.querySelector('[data-testid=transactions-range]')?.textContent?.endsWith(` of ${total}`),
      number(failed.meta.total),
    );
    expect(await shownUuids(page)).toEqual(failed.data.map((t) => t.trans_uuid));
    await screenshot(page, 'demo-5-recipients-failed');
  });
});
