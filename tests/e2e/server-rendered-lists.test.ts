// The console's lists read right before any script runs (issue 19): the Suppression List, the
// Dashboard's latest transactions, the Groups and Recipients tabs of /groups and the group report
// tables (Links included) render their first page, or their empty state, on the server. Each page
// loads in Chromium with JavaScript off and on: the same rows both ways, no list call made again by
// the island on load, no console error (React #418: a hydration mismatch), axe and the viewport
// fit at 1440 and 390 px, and the dashboard's table shows rows where it said 'Loading…'.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hydratedInView, launchBrowser, screenshot } from '../helpers/browser.ts';
import { VIEWPORTS, checkPage } from '../helpers/page-checks.ts';
import { EMPTY_SENDER, SENDER, addressOf, apiSignIn, startReportTraffic, type ReportTraffic } from '../helpers/report-traffic.ts';

let traffic: ReportTraffic;
let browser: Browser;
const groups: Record<string, string> = {};

/** A list on a page: where its rows are, and the island to scroll to (client:visible ones hydrate when shown). */
interface ListCase {
  name: string;
  path: () => string;
  rows: string;
  /** The list's API call, which the island must not make again on load. */
  call: string;
  empty?: string;
  island: string;
}

const LISTS: ListCase[] = [
  { name: 'suppression-list', path: () => '/suppression-list', rows: '[data-testid=suppression-row]', call: '/v1/suppression/search', island: '[data-testid=suppression-table]' },
  { name: 'dashboard', path: () => '/', rows: '[data-testid=latest-card] [data-testid=transaction-row]', call: '/v1/dashboard?', island: '[data-testid=transaction-table]' },
  { name: 'groups', path: () => '/groups', rows: '[data-testid=group-row]', call: '/v1/transaction-groups/search', island: '[data-testid=group-table]' },
  { name: 'recipients', path: () => '/groups#recipients', rows: '[data-testid=recipients-panel] [data-testid=transaction-row]', call: '/v1/transaction/search', island: '[data-testid=transaction-table]' },
  ...(['overview', 'sent', 'opens', 'clicks'] as const).map((report) => ({
    name: `report-${report}`,
    path: () => `/groups/${groups.Orders}/${report}`,
    rows: '[data-testid=report-row]',
    call: '/v1/transaction-groups/reports',
    island: '[data-testid=report-table]',
  })),
  { name: 'report-links', path: () => `/groups/${groups.Orders}/clicks#links`, rows: '[data-testid=link-row]', call: '/v1/links', island: '[data-testid=link-table]' },
  { name: 'report-bounced', path: () => `/groups/${groups.Welcome}/bounced`, rows: '[data-testid=report-row]', call: '/v1/transaction-groups/reports', island: '[data-testid=report-table]' },
  { name: 'report-failed', path: () => `/groups/${groups.Receipts}/failed`, rows: '[data-testid=report-row]', call: '/v1/transaction-groups/reports', island: '[data-testid=report-table]' },
];

async function signedIn(email: string, javaScriptEnabled: boolean, viewport: { width: number; height: number } = VIEWPORTS.desktop): Promise<BrowserContext> {
  const base = traffic.server.baseUrl;
  const context = await browser.newContext({ javaScriptEnabled, viewport });
  const [name, value] = (await apiSignIn(base, email)).split('=');
  await context.addCookies([{ name, value, url: base }]);
  return context;
}

/** Each row's text, cell by cell (textContent: rows of a hidden tab count too). */
function rowTexts(page: Page, selector: string): Promise<string[][]> {
  return page.$$eval(selector, (rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
}

beforeAll(async () => {
  traffic = await startReportTraffic();
  browser = await launchBrowser();
  const base = traffic.server.baseUrl;
  const cookie = await apiSignIn(base, SENDER);
  const res = await fetch(`${base}/v1/transaction-groups/search`, {
    method: 'POST',
    headers: { 'Request-Type': 'ui', Origin: base, Cookie: cookie, 'Content-Type': 'application/json' },
    body: '{}',
  });
  for (const g of ((await res.json()) as { data: { group_uuid: string; group_name: string }[] }).data) groups[g.group_name] = g.group_uuid;
  if (!groups.Orders || !groups.Welcome || !groups.Receipts) throw new Error(`groups: ${JSON.stringify(groups)}`);
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await traffic?.stop();
});

describe('lists rendered on the server', () => {
  for (const list of LISTS) {
    it(`${list.name}: the same first rows with JavaScript off and on, no hydration error, no second load`, async () => {
      const base = traffic.server.baseUrl;
      const off = await signedIn(SENDER, false, VIEWPORTS.phone);
      const offPage = await off.newPage();
      await offPage.goto(`${base}${list.path()}`);
      const withoutScript = await rowTexts(offPage, list.rows);
      await screenshot(offPage, `server-rendered-${list.name}-nojs-390`);
      await off.close();
      expect(withoutScript.length, 'rows rendered by the server').toBeGreaterThan(0);
      expect(withoutScript.flat().join(' ')).not.toContain('Loading…');

      const on = await signedIn(SENDER, true);
      const page = await on.newPage();
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(e.message));
      const calls: string[] = [];
      page.on('request', (r) => r.url().includes(list.call) && calls.push(r.url()));
      await page.goto(`${base}${list.path()}`);
      expect(await rowTexts(page, list.rows), 'before hydration').toEqual(withoutScript);
      await hydratedInView(page, list.island);
      await page.waitForLoadState('networkidle');
      expect(await rowTexts(page, list.rows), 'after hydration').toEqual(withoutScript);
      expect(calls, 'the island starts from the rows the server rendered').toEqual([]);
      expect(problems).toEqual([]);
      await on.close();
    });
  }

  it('the Suppression List and the Groups tab render their empty state on the server', async () => {
    const off = await signedIn(EMPTY_SENDER, false);
    const page = await off.newPage();
    await page.goto(`${traffic.server.baseUrl}/suppression-list`);
    expect(await page.textContent('[data-testid=suppression-empty]')).toBe('No data.');
    await page.goto(`${traffic.server.baseUrl}/groups`);
    expect((await page.textContent('[data-testid=groups-empty]'))?.trim()).toMatch(/^No groups found\./);
    expect((await page.textContent('[data-testid=recipients-panel] [data-testid=transactions-empty]'))?.trim()).toMatch(/^No transactions found\./);
    await off.close();
  });

  it('the paging the island takes over continues from the server-rendered page', async () => {
    const on = await signedIn(SENDER, true);
    const page = await on.newPage();
    await page.goto(`${traffic.server.baseUrl}/groups#recipients`);
    const first = await rowTexts(page, '[data-testid=recipients-panel] [data-testid=transaction-row]');
    await hydratedInView(page, '[data-testid=transaction-table]');
    await page.click('[data-testid=recipients-panel] [data-testid=transactions-next]');
    await page.waitForSelector('[data-testid=recipients-panel] [data-testid=transactions-page]:has-text("Page 2")');
    const second = await rowTexts(page, '[data-testid=recipients-panel] [data-testid=transaction-row]');
    expect(second.length).toBeGreaterThan(0);
    expect(second[0]).not.toEqual(first[0]);
    // and back: the server's first page again, from the API this time
    await page.click('[data-testid=recipients-panel] [data-testid=transactions-first]');
    await page.waitForSelector('[data-testid=recipients-panel] [data-testid=transactions-page]:has-text("Page 1")');
    expect(await rowTexts(page, '[data-testid=recipients-panel] [data-testid=transaction-row]')).toEqual(first);
    await on.close();
  });

  for (const [size, viewport] of [['1440', VIEWPORTS.desktop], ['768', VIEWPORTS.tablet], ['390', VIEWPORTS.phone]] as const) {
    it(`the Dashboard's latest transactions show rows, not 'Loading…', before they are scrolled to, at ${size} px; axe passes`, async () => {
      const on = await signedIn(SENDER, true, viewport);
      const page = await on.newPage();
      await page.goto(traffic.server.baseUrl);
      await page.waitForLoadState('networkidle');
      const table = page.locator('[data-testid=latest-card] [data-testid=transaction-table]');
      expect(await table.textContent()).not.toContain('Loading…');
      expect(await page.locator('[data-testid=latest-card] [data-testid=transaction-email]').first().textContent()).toContain(addressOf('gone01'));
      await checkPage(page, `server-rendered-dashboard-${size}`, ['[data-testid=latest-card] [data-testid=transaction-row]']);
      await on.close();
    });
  }

  for (const [size, viewport] of [['1440', VIEWPORTS.desktop], ['390', VIEWPORTS.phone]] as const) {
    it(`the Suppression List, /groups and a report page pass axe and fit at ${size} px`, async () => {
      const on = await signedIn(SENDER, true, viewport);
      const page = await on.newPage();
      for (const [name, path] of [['suppression-list', '/suppression-list'], ['groups', '/groups'], ['report-sent', `/groups/${groups.Orders}/sent`]] as const) {
        await page.goto(`${traffic.server.baseUrl}${path}`);
        await page.waitForLoadState('networkidle');
        await checkPage(page, `server-rendered-${name}-${size}`, ['[data-testid=page-title]']);
      }
      await on.close();
    });
  }
});
