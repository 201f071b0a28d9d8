// Server and browser render the same page (no React error #418, no "NotFoundError: removeChild"):
// every console page and the public pages load in a browser whose time zone (America/New_York) and
// locale (de-DE) differ from the server's, at 1440×900 and at 390×844; the date range changes on the
// Dashboard and on the Recipients tab. Any console error or uncaught page error fails the test, the
// dates the server rendered read the same once the islands have hydrated, and every <time> reads
// as the date module writes its moment in UTC (docs/console.md §9, docs/console-reports.md §9), whatever the browser's
// zone.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addDays,
  formatDate,
  formatDateTime,
  formatGroupDate,
  formatLongDate,
  formatMoment,
  formatRange,
  formatReportDate,
  unixOfIso,
  utcDay,
} from '../../src/lib/dates.ts';
import { openCalendar, pickRange } from '../helpers/date-range.ts';
import { launchBrowser, openPage, screenshot, signInThroughForm, type TestPage } from '../helpers/browser.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { createExpiredLink } from '../helpers/expired-link.ts';
import { VIEWPORTS } from '../helpers/page-checks.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import {
  DOMAIN,
  EMPTY_SENDER,
  PASSWORD,
  SENDER,
  apiSignIn,
  startReportTraffic,
  type ReportTraffic,
} from '../helpers/report-traffic.ts';

let dns: DnsTestServer;
let traffic: ReportTraffic;
let browser: Browser;
let domainId: number;
let receiver: WebhookReceiver;
/** The sender's online attachment links: one to edit and open, one expired, one downloaded to its limit. */
let attachmentId = 0;
const publicPaths = { normal: '', expired: '', exhausted: '' };

/** Elements whose date text the server renders: the date range field (its value) and a domain's last DNS check. */
const SERVER_DATES = ['[data-testid=date-range]', '[data-testid=dns-checked]'];

/** What the date module's formats make of an ISO moment: a <time> must read as one of them. */
const FORMATS = [formatDate, formatDateTime, formatMoment, formatReportDate, formatLongDate, formatGroupDate];

beforeAll(async () => {
  dns = await startDnsServer();
  receiver = await startWebhookReceiver();
  // the webhook's test event goes to the local receiver, on a loopback address
  traffic = await startReportTraffic({ DNS_SERVERS: dns.address, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
  browser = await launchBrowser();
  // the domain's page shows when its records were last checked: check them once (nothing published)
  const base = traffic.server.baseUrl;
  const headers = {
    'Request-Type': 'ui',
    Origin: base,
    Cookie: await apiSignIn(base, SENDER),
    'Content-Type': 'application/json',
  };
  const { domains } = (await (await fetch(`${base}/v1/domains`, { headers })).json()) as {
    domains: { domain_id: number; domain_domain: string }[];
  };
  domainId = domains.find((d) => d.domain_domain === DOMAIN)!.domain_id;
  const check = await fetch(`${base}/v1/domains/${domainId}/check`, { method: 'POST', headers, body: '{}' });
  if (!check.ok) throw new Error(`POST /v1/domains/${domainId}/check: ${check.status}`);

  // a webhook with one logged request (its test event) for /settings and /webhook-logs
  const hook = await fetch(`${base}/v1/webhooks`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      url: `${receiver.url}/hook`,
      verb: 'post',
      status: 'enabled',
      auth_type: null,
      event_types: ['sent'],
      field_set: 'standard',
    }),
  });
  if (!hook.ok) throw new Error(`POST /v1/webhooks: ${hook.status} ${await hook.text()}`);
  const test = await fetch(`${base}/v1/webhooks/test`, { method: 'POST', headers, body: '{}' });
  if (!test.ok) throw new Error(`POST /v1/webhooks/test: ${test.status}`);

  // online attachment links: normal, expired (made to expire shortly, then waited out), used up
  const { 'Content-Type': _json, ...formHeaders } = headers;
  const create = async (name: string, options: Record<string, number>) => {
    const form = new FormData();
    form.append('group', JSON.stringify({ name, options }));
    form.append('asset', new Blob(['figures\n'], { type: 'text/plain' }), 'report-q1.txt');
    const res = await fetch(`${base}/v1/tracked-attachments/groups`, {
      method: 'POST',
      headers: formHeaders,
      body: form,
    });
    if (res.status !== 201) throw new Error(`POST groups: ${res.status} ${await res.text()}`);
    return (await res.json()) as { id: number; preview_link: string; assets: { id: number }[] };
  };
  const pathOf = (link: string) => new URL(link).pathname;
  const normal = await create('Quarterly reports', { access_limit: 5 });
  attachmentId = normal.id;
  publicPaths.normal = pathOf(normal.preview_link);
  publicPaths.expired = pathOf(
    (await createExpiredLink((expiry_timestamp) => create('Last year', { expiry_timestamp }))).preview_link,
  );
  const once = await create('Once only', { access_limit: 1 });
  publicPaths.exhausted = pathOf(once.preview_link);
  const download = await fetch(`${once.preview_link}/files/${once.assets[0].id}`, { method: 'POST' });
  if (!download.ok) throw new Error(`download: ${download.status}`);
  await download.arrayBuffer();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await traffic?.stop();
  await dns?.close();
  await receiver?.close();
});

/** How much later each island's script arrives than the one before it on the page. */
const ISLAND_STAGGER_MS = 300;

type ForeignTab = TestPage & { errors: string[]; islandOrder: Map<string, number> };

/** A context in another zone and locale than the server's, recording every console error and page error. */
async function foreignBrowser(viewport: { width: number; height: number }): Promise<ForeignTab> {
  const tab = await openPage(browser, traffic.server.baseUrl, {
    viewport,
    timezoneId: 'America/New_York',
    locale: 'de-DE',
  });
  const errors: string[] = [];
  tab.page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()} (${tab.page.url()})`);
  });
  tab.page.on('pageerror', (err) => errors.push(`pageerror: ${err.name}: ${err.message} (${tab.page.url()})`));
  // A slow phone: the islands' scripts arrive one after the other, so an island hydrates after the
  // calls of those before it have answered and filled the stores they share.
  const islandOrder = new Map<string, number>();
  await tab.context.route('**/_astro/**', async (route) => {
    const place = islandOrder.get(new URL(route.request().url()).pathname) ?? 0;
    if (place > 0) await new Promise((resolve) => setTimeout(resolve, place * ISLAND_STAGGER_MS));
    await route.fallback();
  });
  return { ...tab, errors, islandOrder };
}

/** Texts of the server-rendered date elements: from the HTML the server sends, or from the live page. */
async function dateTexts(page: Page, html?: string): Promise<Record<string, string>> {
  return page.evaluate(
    ({ selectors, html }) => {
      const doc = html === undefined ? document : new DOMParser().parseFromString(html, 'text/html');
      const out: Record<string, string> = {};
      for (const selector of selectors) {
        const el = doc.querySelector(selector);
        if (!el) continue;
        // a parsed document's inputs have no live value: the server's value attribute is the text
        out[selector] =
          el instanceof HTMLInputElement
            ? html === undefined
              ? el.value
              : (el.getAttribute('value') ?? '')
            : (el.textContent ?? '').replace(/\s+/g, ' ').trim();
      }
      return out;
    },
    { selectors: SERVER_DATES, html },
  );
}

/** Every <time datetime> on the page: its moment and its text. */
function times(page: Page): Promise<{ datetime: string; text: string }[]> {
  return page.$$eval('time[datetime]', (els) =>
    els.map((el) => ({ datetime: el.getAttribute('datetime')!, text: (el.textContent ?? '').trim() })),
  );
}

/**
 * Waits until every island has hydrated and the calls they started have answered; a `client:visible`
 * island hydrates when shown, so each one still waiting is scrolled to (then the page back to its top).
 */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  for (const island of await page.locator('astro-island[ssr]').all()) {
    await island.scrollIntoViewIfNeeded().catch(() => undefined);
    // a client:visible island hydrates once its observer has seen it: scrolled on before that (a busy
    // machine), it is never seen. So each one is waited for while it is in view.
    await island
      .evaluate(
        (el) =>
          new Promise<void>((resolve) => {
            if (!el.hasAttribute('ssr')) return resolve();
            new MutationObserver((_, observer) => {
              if (el.hasAttribute('ssr')) return;
              observer.disconnect();
              resolve();
            }).observe(el, { attributes: true });
          }),
      )
      .catch(() => undefined); // replaced meanwhile: hydrated
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForFunction(() => document.querySelectorAll('astro-island[ssr]').length === 0);
  await page.waitForLoadState('networkidle');
}

/** Loads `path` and checks the dates it shows against what the server rendered. */
async function visit(tab: ForeignTab, path: string): Promise<void> {
  const url = `${traffic.server.baseUrl}${path}`;
  const server = await (await tab.context.request.get(url)).text();
  tab.islandOrder.clear();
  for (const [, script] of server.matchAll(/component-url="([^"]+)"/g))
    if (!tab.islandOrder.has(script)) tab.islandOrder.set(script, tab.islandOrder.size);
  await tab.page.goto(url);
  await settled(tab.page);
  expect(tab.errors, path).toEqual([]);
  const rendered = await dateTexts(tab.page, server);
  const shown = await dateTexts(tab.page);
  expect(shown, `${path}: the dates the server rendered`).toEqual(rendered);
  for (const time of await times(tab.page)) {
    const expected = FORMATS.map((format) => format(unixOfIso(time.datetime)));
    // the zone may follow the moment ('… 13:30 UTC')
    expect(expected, `${path}: <time datetime="${time.datetime}">${time.text}</time> in UTC`).toContain(
      time.text.replace(/ UTC$/, ''),
    );
  }
}

/**
 * Picks the last four days through today (the server's UTC day, which ends the calendar), a range
 * that crosses into the month before on the first days of a month.
 */
async function changeRange({ page, errors }: ForeignTab): Promise<void> {
  await openCalendar(page);
  // the calendar fits the screen (one month on a phone): look at it
  const pageName = new URL(page.url()).pathname === '/' ? 'dashboard' : 'recipients';
  await screenshot(page, `hydration-calendar-${pageName}-${page.viewportSize()!.width}`);
  const today = utcDay(new Date());
  expect(await pickRange(page, { start: addDays(today, -3), end: today })).toBe(
    formatRange({ start: addDays(today, -3), end: today }),
  );
  await settled(page);
  expect(errors, 'after a new date range').toEqual([]);
}

describe.each([
  ['1440×900', VIEWPORTS.desktop],
  ['390×844', VIEWPORTS.phone],
])('in America/New_York and de-DE at %s', (_name, viewport) => {
  it('renders every console page as the server did, and changes the date range without an error', async () => {
    const tab = await foreignBrowser(viewport);
    try {
      await signInThroughForm(tab.page, traffic.server.baseUrl, SENDER, PASSWORD);
      await visit(tab, '/');
      await tab.page.waitForSelector('[data-testid=transaction-date]');
      await changeRange(tab);
      await visit(tab, '/groups#recipients');
      await tab.page.waitForSelector('[data-testid=recipients-panel] [data-testid=transaction-date]');
      await changeRange(tab);
      // a new document (not a change of the fragment): the Groups tab as it loads
      await visit(tab, '/groups');
      await tab.page.waitForSelector('[data-testid=group-created]');
      await visit(tab, '/settings');
      await visit(tab, '/suppression-list');
      await tab.page.waitForSelector('[data-testid=suppression-row] time');
      await visit(tab, `/domains/${domainId}`);
      await expect(tab.page.textContent('[data-testid=dns-checked]')).resolves.toMatch(
        /Last checked [A-Z][a-z]+ \d{1,2}, \d{4} \d{2}:\d{2} UTC\./,
      );
      await visit(tab, '/unauthorized');
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('renders the webhook and online attachment pages as the server did', async () => {
    const tab = await foreignBrowser(viewport);
    try {
      await signInThroughForm(tab.page, traffic.server.baseUrl, SENDER, PASSWORD);
      await visit(tab, '/settings');
      await tab.page.click('[data-testid=webhook-edit]');
      await tab.page.waitForSelector('[data-testid=webhook-modal]');
      await visit(tab, '/webhook-logs');
      await tab.page.waitForSelector('[data-testid=webhook-log-row]');
      await tab.page.locator('[data-testid=webhook-log-more]').first().click();
      await tab.page.waitForSelector('[data-testid=webhook-log-attempt]');
      await visit(tab, '/online-attachments');
      await tab.page.waitForSelector('[data-testid=attachment-pane] [data-testid=pane-title]');
      await tab.page.click('[data-testid=branding-open]');
      await tab.page.waitForSelector('[data-testid=branding-modal]');
      await visit(tab, '/online-attachments/create');
      await visit(tab, `/online-attachments/${attachmentId}/edit`);
      await tab.page.waitForSelector('[data-testid=file-row]');
      await tab.page.click('[data-testid=tab-settings]');
      await visit(tab, `/online-attachments/${attachmentId}/review`);
      await tab.page.waitForSelector('[data-testid=review-name]:text("Quarterly reports")');
      await visit(tab, publicPaths.normal);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
    const empty = await foreignBrowser(viewport);
    try {
      await signInThroughForm(empty.page, traffic.server.baseUrl, EMPTY_SENDER, PASSWORD);
      await visit(empty, '/webhook-logs');
      await visit(empty, '/online-attachments');
      expect(empty.errors).toEqual([]);
    } finally {
      await empty.context.close();
    }
  });

  it('renders the refused download pages (410) as the server did', async () => {
    const tab = await foreignBrowser(viewport);
    try {
      const headings = {
        [publicPaths.expired]: 'This link has expired',
        [publicPaths.exhausted]: 'Download limit reached',
      };
      for (const [path, heading] of Object.entries(headings)) {
        const answer = await tab.page.goto(`${traffic.server.baseUrl}${path}`);
        expect(answer?.status(), path).toBe(410);
        // Chromium reports any 4xx document as a console error: that one is this page's answer
        const others = tab.errors.filter((e) => !/status of 410/.test(e));
        expect(others, path).toEqual([]);
        tab.errors.length = 0;
        await expect(tab.page.textContent('h1')).resolves.toBe(heading);
      }
    } finally {
      await tab.context.close();
    }
  });

  it('renders getting started as the server did', async () => {
    const tab = await foreignBrowser(viewport);
    try {
      await signInThroughForm(tab.page, traffic.server.baseUrl, EMPTY_SENDER, PASSWORD);
      await visit(tab, '/');
      await tab.page.waitForSelector('[data-testid=page-title]:text("Let\'s get started")');
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });

  it('renders the public pages as the server did', async () => {
    const tab = await foreignBrowser(viewport);
    try {
      const id = viewport === VIEWPORTS.phone ? traffic.uuid.buyer06 : traffic.uuid.buyer05;
      await visit(tab, '/login');
      await visit(tab, `/unsubscribe/${id}`);
      await visit(tab, `/header-unsubscribe/${id}`);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.context.close();
    }
  });
});
