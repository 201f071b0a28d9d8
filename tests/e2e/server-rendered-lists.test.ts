// The console's lists read right before any script runs: the Suppression List, the
// Dashboard's latest transactions, the Groups and Recipients tabs of /groups and the group report
// tables (Links included) render their first page, or their empty state, on the server. Each page
// loads in Chromium with JavaScript off and on: the same rows both ways, no list call made again by
// the island on load, no console error (React #418: a hydration mismatch), axe and the viewport
// fit at 1440 and 390 px, and the dashboard's table shows rows where it said 'Loading…'. Also the
// layout the same issue found broken, checked with element boxes: a toast's Dismiss button beside
// its text, one placement of the report pages' date range, the summary band's figures and shares
// (never one card wrapped alone), pagers on one row, at 1440, 768 and 390 px.
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hydratedInView, launchBrowser, screenshot, withClockStopped } from '../helpers/browser.ts';
import { VIEWPORTS, checkPage } from '../helpers/page-checks.ts';
import {
  EMPTY_SENDER,
  SENDER,
  addressOf,
  apiSignIn,
  startReportTraffic,
  type ReportTraffic,
} from '../helpers/report-traffic.ts';

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
  {
    name: 'suppression-list',
    path: () => '/suppression-list',
    rows: '[data-testid=suppression-row]',
    call: '/v1/suppression/search',
    island: '[data-testid=suppression-table]',
  },
  {
    name: 'dashboard',
    path: () => '/',
    rows: '[data-testid=latest-card] [data-testid=transaction-row]',
    call: '/v1/dashboard?',
    island: '[data-testid=transaction-table]',
  },
  {
    name: 'groups',
    path: () => '/groups',
    rows: '[data-testid=group-row]',
    call: '/v1/transaction-groups/search',
    island: '[data-testid=group-table]',
  },
  {
    name: 'recipients',
    path: () => '/groups#recipients',
    rows: '[data-testid=recipients-panel] [data-testid=transaction-row]',
    call: '/v1/transaction/search',
    island: '[data-testid=transaction-table]',
  },
  ...(['overview', 'sent', 'opens', 'clicks'] as const).map((report) => ({
    name: `report-${report}`,
    path: () => `/groups/${groups.Orders}/${report}`,
    rows: '[data-testid=report-row]',
    call: '/v1/transaction-groups/reports',
    island: '[data-testid=report-table]',
  })),
  {
    name: 'report-links',
    path: () => `/groups/${groups.Orders}/clicks#links`,
    rows: '[data-testid=link-row]',
    call: '/v1/links',
    island: '[data-testid=link-table]',
  },
  {
    name: 'report-bounced',
    path: () => `/groups/${groups.Welcome}/bounced`,
    rows: '[data-testid=report-row]',
    call: '/v1/transaction-groups/reports',
    island: '[data-testid=report-table]',
  },
  {
    name: 'report-failed',
    path: () => `/groups/${groups.Receipts}/failed`,
    rows: '[data-testid=report-row]',
    call: '/v1/transaction-groups/reports',
    island: '[data-testid=report-table]',
  },
];

async function signedIn(
  email: string,
  javaScriptEnabled: boolean,
  viewport: { width: number; height: number } = VIEWPORTS.desktop,
): Promise<BrowserContext> {
  const base = traffic.server.baseUrl;
  const context = await browser.newContext({ javaScriptEnabled, viewport });
  const [name, value] = (await apiSignIn(base, email)).split('=');
  await context.addCookies([{ name, value, url: base }]);
  return context;
}

/** Each row's text, cell by cell (textContent: rows of a hidden tab count too). */
function rowTexts(page: Page, selector: string): Promise<string[][]> {
  return page.$$eval(selector, (rows) =>
    rows.map((row) => [...row.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())),
  );
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
  for (const g of ((await res.json()) as { data: { group_uuid: string; group_name: string }[] }).data)
    groups[g.group_name] = g.group_uuid;
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
    expect((await page.textContent('[data-testid=recipients-panel] [data-testid=transactions-empty]'))?.trim()).toMatch(
      /^No transactions found\./,
    );
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

  for (const [size, viewport] of [
    ['1440', VIEWPORTS.desktop],
    ['768', VIEWPORTS.tablet],
    ['390', VIEWPORTS.phone],
  ] as const) {
    it(
      `the Dashboard's latest transactions show rows, not 'Loading…', before they are scrolled to, at ${size} px; ` +
        `axe passes`,
      async () => {
        const on = await signedIn(SENDER, true, viewport);
        const page = await on.newPage();
        await page.goto(traffic.server.baseUrl);
        await page.waitForLoadState('networkidle');
        const table = page.locator('[data-testid=latest-card] [data-testid=transaction-table]');
        expect(await table.textContent()).not.toContain('Loading…');
        expect(
          await page.locator('[data-testid=latest-card] [data-testid=transaction-email]').first().textContent(),
        ).toContain(addressOf('gone01'));
        await checkPage(page, `server-rendered-dashboard-${size}`, [
          '[data-testid=latest-card] [data-testid=transaction-row]',
        ]);
        await on.close();
      },
    );
  }

  for (const [size, viewport] of [
    ['1440', VIEWPORTS.desktop],
    ['390', VIEWPORTS.phone],
  ] as const) {
    it(`the Suppression List, /groups and a report page pass axe and fit at ${size} px`, async () => {
      const on = await signedIn(SENDER, true, viewport);
      const page = await on.newPage();
      for (const [name, path] of [
        ['suppression-list', '/suppression-list'],
        ['groups', '/groups'],
        ['report-sent', `/groups/${groups.Orders}/sent`],
      ] as const) {
        await page.goto(`${traffic.server.baseUrl}${path}`);
        await page.waitForLoadState('networkidle');
        await checkPage(page, `server-rendered-${name}-${size}`, ['[data-testid=page-title]']);
      }
      await on.close();
    });
  }
});

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

async function box(locator: Locator): Promise<Box> {
  const b = await locator.boundingBox();
  if (!b) throw new Error(`${locator.toString()} has no box`);
  return b;
}

function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Where the date range sits against the title block: beside it (to its right, from its top) or under it. */
function placement(title: Box, range: Box): 'beside' | 'under' | 'other' {
  if (range.y >= title.y + title.height - 1) return 'under';
  if (range.x >= title.x + title.width - 1 && range.y < title.y + title.height) return 'beside';
  return 'other';
}

const WIDTHS = [
  ['1440', VIEWPORTS.desktop],
  ['768', VIEWPORTS.tablet],
  ['390', VIEWPORTS.phone],
] as const;

describe('layout', () => {
  for (const [size, viewport] of [
    ['1440', VIEWPORTS.desktop],
    ['390', VIEWPORTS.phone],
  ] as const) {
    it(
      `a toast's Dismiss button never covers its text, at ` + `${size} px (the shared Alerts island: Export, Settings)`,
      async () => {
        const on = await signedIn(SENDER, true, viewport);
        const page = await on.newPage();
        // the toasts are measured with the page's clock stopped: their 6 s and 2 s are timers, and a
        // loaded machine took longer than that to measure and screenshot them
        await page.clock.install();
        // Export's long success message on a report page
        await page.goto(`${traffic.server.baseUrl}/groups/${groups.Orders}/sent`);
        await hydratedInView(page, '[data-testid=report-export]');
        await withClockStopped(page, async () => {
          await page.click('[data-testid=report-export]');
          const alert = page.locator('[data-testid=alert]').first();
          await alert.waitFor({ state: 'visible' });
          const text = await box(alert.locator('.alert-text'));
          const dismiss = await box(alert.locator('.delete'));
          expect(intersects(text, dismiss), `text ${JSON.stringify(text)}, button ${JSON.stringify(dismiss)}`).toBe(
            false,
          );
          expect(text.x + text.width).toBeLessThanOrEqual(dismiss.x);
          await screenshot(page, `toast-export-${size}`);
        });
        // a failed save on Settings: the danger toast with the server's message
        await page.route('**/v1/ui-settings', (route) =>
          route.request().method() === 'POST'
            ? route.fulfill({
                status: 500,
                contentType: 'application/json',
                body: JSON.stringify({
                  error: { code: 'internal', message: 'Internal server error while saving the tracking settings' },
                }),
              })
            : route.continue(),
        );
        await page.goto(`${traffic.server.baseUrl}/settings`);
        // the switch stays disabled until the island has loaded the settings (a forced click on it
        // before then did nothing), which needs the clock running
        const toggle = page.locator('astro-island:not([ssr]) [data-testid=toggle-track_links]');
        await expect.poll(() => toggle.isEnabled(), { timeout: 30_000 }).toBe(true);
        await withClockStopped(page, async () => {
          await toggle.click();
          const danger = page.locator('[data-testid=alert].is-danger');
          await danger.waitFor({ state: 'visible' });
          const dangerText = await box(danger.locator('.alert-text'));
          const dangerDismiss = await box(danger.locator('.delete'));
          expect(intersects(dangerText, dangerDismiss)).toBe(false);
          await checkPage(page, `toast-settings-${size}`, ['[data-testid=alert]'], { clockStopped: true });
        });
        await on.close();
      },
    );
  }

  for (const [size, viewport] of WIDTHS) {
    it(
      `report pages: one placement of the date range, the ` + `summary band whole, pagers on one row, at ${size} px`,
      async () => {
        const on = await signedIn(SENDER, true, viewport);
        const page = await on.newPage();
        const placements: Record<string, string> = {};
        // each report on a group it has rows for (an empty table has no pager: Orders has no failed
        // or bounced transaction, Receipts' one failed and Welcome's two bounced)
        const groupOf: Record<string, string> = {
          overview: 'Orders',
          sent: 'Orders',
          opens: 'Orders',
          clicks: 'Orders',
          failed: 'Receipts',
          bounced: 'Welcome',
        };
        for (const [report, group] of Object.entries(groupOf)) {
          await page.goto(`${traffic.server.baseUrl}/groups/${groups[group]}/${report}`);
          await page.waitForSelector('[data-testid=summary-sent-share]');
          placements[report] = placement(
            await box(page.locator('.group-report .report-title')),
            await box(page.locator('.group-report [data-testid=date-range]')),
          );
          // every card's share on its figure's line, or every card's under it: never one card alone
          const relations = await page.$$eval('[data-testid=report-summary] .summary-item', (items) =>
            items
              .map((item) => {
                const value = item.querySelector('.summary-value')!.getBoundingClientRect();
                const share = item.querySelector('.summary-share')?.getBoundingClientRect();
                return share ? (share.top < value.bottom - 1 ? 'beside' : 'under') : null;
              })
              .filter((r) => r !== null),
          );
          expect(new Set(relations).size, `${report}: ${relations.join(', ')}`).toBe(1);
          // nothing cut off: no label, figure or share wider than its box
          const clipped = await page.$$eval(
            '[data-testid=report-summary] :is(dt, dd, .summary-value, .summary-share)',
            (els) =>
              els
                .filter((el) => el.scrollWidth > el.clientWidth + 1)
                .map((el) => `${el.className || el.tagName}: ${el.textContent}`),
          );
          expect(clipped, report).toEqual([]);
          await expectOnOneRow(page, '.report-pager .buttons', report);
        }
        expect(new Set(Object.values(placements)).size, JSON.stringify(placements)).toBe(1);
        // beside the title above Bulma's mobile width (769 px and up), under it at 768 and below
        // (src/styles/group-reports.scss): beside, a 768 px screen leaves the title a third of its row
        expect(Object.values(placements)[0]).toBe(size === '1440' ? 'beside' : 'under');
        await screenshot(page, `report-layout-${size}`);

        await page.goto(`${traffic.server.baseUrl}/groups`);
        await expectOnOneRow(page, '[data-testid=groups-panel] .report-pager .buttons', 'groups');
        await page.click('[data-testid=tab-recipients]');
        await expectOnOneRow(page, '[data-testid=recipients-panel] .report-pager .buttons', 'recipients');
        await checkPage(page, `groups-pager-${size}`, [
          '[data-testid=recipients-panel] [data-testid=transactions-last]',
        ]);
        await on.close();
      },
    );
  }
});

/** The pager's controls share one row and stay inside their card. */
async function expectOnOneRow(page: Page, selector: string, label: string): Promise<void> {
  const pager = page.locator(selector).first();
  await pager.scrollIntoViewIfNeeded();
  const { tops, right, cardRight } = await pager.evaluate((nav) => {
    const buttons = [...nav.children].map((b) => b.getBoundingClientRect());
    const card = nav.closest('.card')!.getBoundingClientRect();
    return {
      tops: buttons.map((b) => Math.round(b.top)),
      right: Math.max(...buttons.map((b) => b.right)),
      cardRight: card.right,
    };
  });
  expect(new Set(tops).size, `${label}: pager rows at ${tops.join(', ')}`).toBe(1);
  expect(right, `${label}: the pager reaches past its card`).toBeLessThanOrEqual(cardRight);
}
