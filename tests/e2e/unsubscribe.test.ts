// The recipients' unsubscribe pages in Chromium against the built service (docs/console-reports.md
// §2 "Unsubscribe pages", §8): both pages with JavaScript on and off, the spec's texts, Resubscribe,
// the Error state, a returned redirect followed; the RFC 8058 one-click POST reaching the service
// past Astro's origin check; GET and HEAD changing nothing; the pages' JavaScript under 2 KB.
// Whether an address is suppressed is read the way a customer sees it: the next send fails.
import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import { version } from '../../package.json';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectShownFor, launchBrowser, location, openPage, screenshot, type TestPage } from '../helpers/browser.ts';
import { ALERT_MS } from '../../src/lib/timings.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const SUBSCRIBED = 'You are subscribed, click the button below to unsubscribe';
const UNSUBSCRIBED =
  'You have been unsubscribed successfully and we are sorry to see you go. If this was a mistake, Please click on ' +
  'the button to re-subscribe again.';
/** spec: public pages ship at most 2 KB of JavaScript */
const JS_BUDGET_BYTES = 2048;

let server: RunningServer;
let sink: SmtpSink;
let browser: Browser;
let apiKey = '';

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await prepareServer({ SMTP_RELAY_URL: sink.url });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Unsubscribe Enterprise'),
    'enterprise',
  );
  const customer = createdId(
    await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Unsubscribe Customer'),
    'customer',
  );
  await server.admin('domain', 'add', 'shop.example', '--customer', String(customer), '--verified');
  apiKey = /^api key:\s+(\S+)$/m.exec(await server.admin('credentials', 'show', '--customer', String(customer)))![1];
  await server.start();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
});

const address = () => `r-${randomUUID().slice(0, 8)}@customer.example`;

/** Sends through the API; answers the transaction uuid and its status at acceptance ('failed' when suppressed). */
async function send(to: string): Promise<{ uuid: string; status: string }> {
  const res = await fetch(`${server.baseUrl}/v1/mail`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: 'Shop <orders@shop.example>',
      to,
      subject: 'Your order',
      text: 'Thanks for your order.',
    }),
  });
  expect(res.status).toBe(202);
  const [{ trans_uuid: uuid, status }] = (await res.json()).data as { trans_uuid: string; status: string }[];
  return { uuid, status };
}

/** Sends to a fresh address and answers the URLs its delivered List-Unsubscribe header names. */
async function delivered(): Promise<{ to: string; uuid: string; headerUrl: string; pageUrl: string }> {
  const to = address();
  const { uuid } = await send(to);
  const deadline = Date.now() + 15_000;
  const delivered = () => sink.messages.find((m) => m.to.includes(to))?.raw.toString();
  let raw = delivered();
  while (!raw) {
    if (Date.now() > deadline) throw new Error(`no delivery to ${to}`);
    await new Promise((r) => setTimeout(r, 25));
    raw = delivered();
  }
  const headerUrl = /^List-Unsubscribe:\s*<([^>]+)>/m.exec(raw.replace(/\r\n(?=[ \t])/g, ''))![1];
  expect(headerUrl).toBe(`${server.baseUrl}/header-unsubscribe/${uuid}`);
  return { to, uuid, headerUrl, pageUrl: `${server.baseUrl}/unsubscribe/${uuid}` };
}

const suppressed = async (to: string) => (await send(to)).status === 'failed';

/** A POST with exactly these headers: node:http adds no Origin, as a mailbox provider's may not. */
function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const text = (page: Page, testId: string) => page.textContent(`[data-testid=${testId}]`);
const visible = (page: Page, testId: string) => page.isVisible(`[data-testid=${testId}]`);
/** The states on screen: exactly one, or the hidden ones leak through the CSS. */
const shown = async (page: Page) => {
  const views: string[] = [];
  for (const view of ['subscribed', 'unsubscribed', 'error'])
    if (await page.isVisible(`[data-view=${view}]`)) views.push(view);
  return views;
};

async function noScriptPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 800 } });
  return { context, page: await context.newPage() };
}

describe('/unsubscribe/{transactionId} with JavaScript', () => {
  let tab: TestPage;
  beforeAll(async () => {
    tab = await openPage(browser, server.baseUrl);
  });
  afterAll(() => tab?.context.close());

  it('shows the subscribed text, unsubscribes, then resubscribes', async () => {
    const { to, pageUrl } = await delivered();
    await tab.page.goto(pageUrl);
    await tab.page.waitForLoadState('load');
    expect(await tab.page.title()).toBe('Unsubscribe');
    expect(await text(tab.page, 'subscribed-text')).toBe(SUBSCRIBED);
    expect(await shown(tab.page)).toEqual(['subscribed']);
    expect(await visible(tab.page, 'unsubscribe-button')).toBe(true);
    expect(await suppressed(to)).toBe(false); // opening the page changed nothing
    // the footer's version is package.json's (it said 1.0.0 while the package was 0.1.0)
    expect(await tab.page.textContent('[data-testid=version]')).toBe(`Version ${version}`);
    await screenshot(tab.page, 'unsubscribe-1-subscribed');

    await tab.page.click('[data-testid=unsubscribe-button]');
    await tab.page.waitForSelector('[data-testid=unsubscribed-text]', { state: 'visible' });
    expect(location(tab.page)).toBe(`/unsubscribe/${pageUrl.split('/').pop()}`); // the script did it, no navigation
    expect(await text(tab.page, 'unsubscribed-text')).toBe(UNSUBSCRIBED);
    expect(await visible(tab.page, 'resubscribe-button')).toBe(true);
    expect(await visible(tab.page, 'unsubscribe-button')).toBe(false);
    expect(await suppressed(to)).toBe(true);
    await screenshot(tab.page, 'unsubscribe-2-unsubscribed');

    await tab.page.click('[data-testid=resubscribe-button]');
    await tab.page.waitForSelector('[data-testid=subscribed-text]', { state: 'visible' });
    expect(await text(tab.page, 'subscription-notice')).toBe('You have been resubscribed.');
    expect(await suppressed(to)).toBe(false);
    await screenshot(tab.page, 'unsubscribe-3-resubscribed');
  });

  it('shows the Error heading and a danger alert for an unknown transaction', async () => {
    const res = await tab.page.goto(`${server.baseUrl}/unsubscribe/${randomUUID()}`);
    expect(res?.status()).toBe(404);
    expect(await text(tab.page, 'error-heading')).toBe('Error');
    expect(await tab.page.getAttribute('[data-testid=subscription-error]', 'class')).toContain('is-danger');
    expect(await text(tab.page, 'subscription-error')).toBe('This unsubscribe link is not valid.');
    expect(await visible(tab.page, 'unsubscribe-button')).toBe(false);
    await screenshot(tab.page, 'unsubscribe-4-error');
  });

  it("shows the server's message, or 'Error', when the call fails", async () => {
    const { pageUrl } = await delivered();
    await tab.page.goto(pageUrl);
    await tab.page.waitForLoadState('load');
    await tab.page.route('**/v1/unsubscribe', (route) =>
      route.fulfill({ status: 503, contentType: 'text/plain', body: 'down' }),
    );
    await tab.page.clock.install();
    // docs/console-reports.md §9: alerts vanish after 2 s; the Error heading stays
    await expectShownFor(
      tab.page,
      ALERT_MS,
      '[data-testid=subscription-error]',
      async () => {
        await tab.page.click('[data-testid=unsubscribe-button]');
        await tab.page.waitForSelector('[data-testid=error-heading]', { state: 'visible' });
        expect(await text(tab.page, 'subscription-error')).toBe('Error');
        expect(await visible(tab.page, 'subscription-error')).toBe(true);
      },
      { state: 'hidden' },
    );
    expect(await visible(tab.page, 'error-heading')).toBe(true);
    await tab.page.unroute('**/v1/unsubscribe');
  });

  it('follows a returned redirect', async () => {
    const { pageUrl } = await delivered();
    await tab.page.goto(pageUrl);
    await tab.page.waitForLoadState('load');
    // the service answers redirect: null today; a redirect (a customer's landing page) must be followed
    await tab.page.route('**/v1/unsubscribe', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ message: 'ok', redirect: '/login?from=unsubscribe' }),
      }),
    );
    await Promise.all([
      tab.page.waitForURL((url) => url.pathname === '/login'),
      tab.page.click('[data-testid=unsubscribe-button]'),
    ]);
    expect(location(tab.page)).toBe('/login?from=unsubscribe');
    await tab.page.unroute('**/v1/unsubscribe');
  });
});

describe('/header-unsubscribe/{transactionId} with JavaScript', () => {
  it('unsubscribes on load, and offers Resubscribe', async () => {
    const tab = await openPage(browser, server.baseUrl);
    const { to, headerUrl } = await delivered();
    await tab.page.goto(headerUrl);
    await tab.page.waitForSelector('[data-testid=unsubscribed-text]', { state: 'visible' });
    expect(await text(tab.page, 'unsubscribed-text')).toBe(UNSUBSCRIBED);
    expect(await shown(tab.page)).toEqual(['unsubscribed']);
    expect(await suppressed(to)).toBe(true);
    await screenshot(tab.page, 'header-unsubscribe-1-unsubscribed');
    await tab.page.click('[data-testid=resubscribe-button]');
    await tab.page.waitForSelector('[data-testid=subscribed-text]', { state: 'visible' });
    expect(await suppressed(to)).toBe(false);
    await tab.context.close();
  });

  it('shows the Error state for an unknown transaction and calls nothing', async () => {
    const tab = await openPage(browser, server.baseUrl);
    const calls: string[] = [];
    tab.page.on('request', (r) => r.method() === 'POST' && calls.push(r.url()));
    await tab.page.goto(`${server.baseUrl}/header-unsubscribe/${randomUUID()}`);
    await tab.page.waitForLoadState('networkidle');
    expect(await text(tab.page, 'error-heading')).toBe('Error');
    expect(calls).toEqual([]);
    await tab.context.close();
  });
});

describe('both pages with JavaScript off', () => {
  it('/unsubscribe: the buttons post forms and the results are rendered on the server', async () => {
    const { context, page } = await noScriptPage();
    const { to, pageUrl } = await delivered();
    await page.goto(pageUrl);
    expect(await text(page, 'subscribed-text')).toBe(SUBSCRIBED);
    await Promise.all([
      page.waitForLoadState('load'),
      page.waitForURL(pageUrl),
      page.click('[data-testid=unsubscribe-button]'),
    ]);
    await page.waitForSelector('[data-testid=unsubscribed-text]', { state: 'visible' });
    expect(await text(page, 'unsubscribed-text')).toBe(UNSUBSCRIBED);
    expect(await shown(page)).toEqual(['unsubscribed']);
    expect(await suppressed(to)).toBe(true);
    await screenshot(page, 'unsubscribe-nojs-1-unsubscribed');
    await page.click('[data-testid=resubscribe-button]');
    await page.waitForSelector('[data-testid=subscribed-text]', { state: 'visible' });
    expect(await text(page, 'subscription-notice')).toBe('You have been resubscribed.');
    expect(await suppressed(to)).toBe(false);
    await screenshot(page, 'unsubscribe-nojs-2-resubscribed');
    await context.close();
  });

  it('/header-unsubscribe: nothing happens on load; the Unsubscribe button does it', async () => {
    const { context, page } = await noScriptPage();
    const { to, uuid, headerUrl } = await delivered();
    await page.goto(headerUrl);
    expect(await text(page, 'subscribed-text')).toBe(SUBSCRIBED);
    expect(await shown(page)).toEqual(['subscribed']);
    expect(await suppressed(to)).toBe(false);
    await screenshot(page, 'header-unsubscribe-nojs-1-subscribed');
    await page.click('[data-testid=unsubscribe-button]');
    await page.waitForSelector('[data-testid=unsubscribed-text]', { state: 'visible' });
    expect(location(page)).toBe(`/unsubscribe/${uuid}`);
    expect(await suppressed(to)).toBe(true);
    await context.close();
  });

  it('shows the Error state for an unknown transaction', async () => {
    const { context, page } = await noScriptPage();
    await page.goto(`${server.baseUrl}/header-unsubscribe/not-a-transaction`);
    expect(await text(page, 'error-heading')).toBe('Error');
    expect(await text(page, 'subscription-error')).toBe('This unsubscribe link is not valid.');
    expect(await shown(page)).toEqual(['error']);
    await screenshot(page, 'header-unsubscribe-nojs-2-error');
    await context.close();
  });
});

describe('the List-Unsubscribe URL outside a browser', () => {
  it('a one-click POST with no Origin, or a foreign one, unsubscribes (Astro never sees it)', async () => {
    const first = await delivered();
    expect(
      await post(first.headerUrl, 'List-Unsubscribe=One-Click', {
        'Content-Type': 'application/x-www-form-urlencoded',
      }),
    ).toBe(200);
    expect(await suppressed(first.to)).toBe(true);
    const second = await delivered();
    const res = await fetch(second.headerUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://mail.provider.example' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    expect(await suppressed(second.to)).toBe(true);
  });

  it('GET and HEAD of both URLs change nothing', async () => {
    const { to, headerUrl, pageUrl } = await delivered();
    for (const url of [headerUrl, pageUrl]) {
      for (const method of ['GET', 'HEAD']) expect((await fetch(url, { method })).status).toBe(200);
    }
    expect(await suppressed(to)).toBe(false);
  });

  it('a cross-site form POST to /unsubscribe is refused by the origin check, changing nothing', async () => {
    const { to, pageUrl } = await delivered();
    expect(
      await post(pageUrl, 'action=unsubscribe', {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: 'https://evil.example',
      }),
    ).toBe(403);
    expect(await suppressed(to)).toBe(false);
  });
});

describe('JavaScript shipped by the pages', () => {
  it.each(['unsubscribe', 'header-unsubscribe'])(`/%s ships at most ${JS_BUDGET_BYTES} bytes`, async (path) => {
    const tab = await openPage(browser, server.baseUrl);
    const bodies: Promise<number>[] = [];
    tab.page.on('response', (r) => {
      if (r.request().resourceType() === 'script') bodies.push(r.body().then((b) => b.length));
    });
    await tab.page.goto(`${server.baseUrl}/${path}/${randomUUID()}`);
    await tab.page.waitForLoadState('networkidle');
    const inline = await tab.page.$$eval('script:not([src])', (scripts) =>
      scripts.reduce((n, s) => n + new TextEncoder().encode(s.textContent ?? '').length, 0),
    );
    const external = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
    expect(inline + external).toBeGreaterThan(0); // the script is there at all
    expect(inline + external).toBeLessThanOrEqual(JS_BUDGET_BYTES);
    await tab.context.close();
  });
});
