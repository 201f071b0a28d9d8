// Webhooks in Chromium (docs/console.md §2, §4, §5, §8, §9; docs/console-reports.md §2): the Settings card's
// pencil and the Webhook modal (defaults, Basic/None switching, the 2 s alerts, save and reload,
// the Delayed and Complaint checkboxes saved and read back, the signing secret and a test event),
// and the Webhook Logs page with More info and Replay against a real local HTTP receiver. The server
// runs with WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8 so it may reach that receiver; its worker role
// delivers replays.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertTexts,
  animationsDone,
  PARENT,
  hydrated,
  launchBrowser,
  openPage,
  expectShownFor,
  SCREENSHOTS,
  screenshot,
  signInThroughForm,
} from '../helpers/browser.ts';
import { ALERT_MS } from '../../src/lib/timings.ts';
import { checkPage, VIEWPORTS } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const PASSWORD = 'user-password-123';
const SENDER = 'sender@webhooks.test';
const EMPTY = 'empty@webhooks.test';
const EVENTS = ['sent', 'delayed', 'failed', 'bounce', 'complaint', 'open', 'click', 'unsubscribe', 'resubscribe'];

let server: RunningServer;
let browser: Browser;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await prepareServer({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Webhook Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Webhook Customer');
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Quiet Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Webhook Customer',
    '--email',
    SENDER,
    '--name',
    'Webhook Sender',
    '--password',
    PASSWORD,
  );
  await server.admin(
    'user',
    'create',
    '--customer',
    'Quiet Customer',
    '--email',
    EMPTY,
    '--name',
    'Quiet Sender',
    '--password',
    PASSWORD,
  );
  await server.start();
  browser = await launchBrowser();
}, 300_000); // five CLI runs and a server start: slow on a loaded machine
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});

async function signedIn(email = SENDER): Promise<Page> {
  const { page } = await openPage(browser, server.baseUrl);
  await signInThroughForm(page, server.baseUrl, email, PASSWORD);
  return page;
}

async function openSettings(page: Page): Promise<void> {
  await page.goto(`${server.baseUrl}/settings`);
  await hydrated(page, '[data-testid=webhook-edit]');
  await page.waitForSelector('[data-testid=webhook-edit]:enabled');
}

async function openModal(page: Page): Promise<void> {
  await page.click('[data-testid=webhook-edit]');
  await page.waitForSelector('[data-testid=webhook-modal]');
}

/** checkPage at 768 and 390 px: the whole page, the console shell included. */
async function checkNarrow(page: Page, name: string): Promise<void> {
  // under 1024 px the side menu slides off-canvas: the screenshot waits until it is gone
  await page.setViewportSize(VIEWPORTS.tablet);
  await animationsDone(page);
  await checkPage(page, `${name}-768`);
  await page.setViewportSize(VIEWPORTS.phone);
  await animationsDone(page);
  await checkPage(page, `${name}-390`);
}

describe('the Webhook modal', () => {
  it('opens from the pencil with the spec defaults, at 1440 and 390', async () => {
    const page = await signedIn();
    await openSettings(page);
    await expect(page.textContent('[data-testid=webhook-not-setup]')).resolves.toBe('Not setup');
    await openModal(page);
    await expect(page.inputValue('[data-testid=webhook-url-input]')).resolves.toBe('');
    await expect(page.inputValue('[data-testid=webhook-verb-select]')).resolves.toBe('post');
    await expect(page.isChecked('[data-testid=webhook-active]')).resolves.toBe(true);
    await expect(page.inputValue('[data-testid=webhook-auth-select]')).resolves.toBe('');
    for (const e of EVENTS) await expect(page.isChecked(`[data-testid=webhook-event-${e}]`)).resolves.toBe(true);
    await expect(page.isChecked('[data-testid=webhook-field-set-standard]')).resolves.toBe(true);
    await expect(page.locator('[data-testid=webhook-basic-fields]').count()).resolves.toBe(0);
    await page.setViewportSize(VIEWPORTS.desktop);
    await checkPage(page, 'webhooks-settings-modal-1440');
    await checkNarrow(page, 'webhooks-settings-modal');
    await page.context().close();
  });

  it('Basic starts with an empty username and password, None removes them', async () => {
    const page = await signedIn();
    await openSettings(page);
    await openModal(page);
    await page.selectOption('[data-testid=webhook-auth-select]', 'basic');
    await expect(page.inputValue('[data-testid=webhook-username]')).resolves.toBe('');
    await expect(page.inputValue('[data-testid=webhook-password]')).resolves.toBe('');
    await page.fill('[data-testid=webhook-username]', 'hook');
    await page.fill('[data-testid=webhook-password]', 'secret');
    await page.selectOption('[data-testid=webhook-auth-select]', '');
    await expect(page.locator('[data-testid=webhook-basic-fields]').count()).resolves.toBe(0);
    await page.selectOption('[data-testid=webhook-auth-select]', 'basic');
    await expect(page.inputValue('[data-testid=webhook-username]')).resolves.toBe('');
    await expect(page.inputValue('[data-testid=webhook-password]')).resolves.toBe('');
    await page.context().close();
  });

  it('shows the local and the server error in a danger alert for 2 s, saving nothing', async () => {
    const page = await signedIn();
    await openSettings(page);
    await openModal(page);
    await page.clock.install();
    const emptyUrl = () => expect(alertTexts(page)).resolves.toEqual(['Webhook URL is empty']);
    await expectShownFor(
      page,
      ALERT_MS,
      '[data-testid=alert]',
      async () => {
        await page.click('[data-testid=webhook-save]');
        await page.waitForSelector('.notification.is-danger[data-testid=alert]');
        await emptyUrl();
      },
      { stillShown: emptyUrl },
    );
    await page.fill('[data-testid=webhook-url-input]', 'http://169.254.169.254/latest/meta-data');
    await page.click('[data-testid=webhook-save]');
    expect(await alertTexts(page, '.notification.is-danger[data-testid=alert]')).toEqual([
      expect.stringContaining('link-local'),
    ]);
    const saved = await page.evaluate(
      async () => (await (await fetch('/v1/webhooks', { headers: { 'Request-Type': 'ui' } })).json()).data,
    );
    expect(saved).toEqual([]);
    await page.context().close();
  });

  it('saves, says so, reloads after 2 s and shows the summary; the test event reports the answer', async () => {
    const page = await signedIn();
    await openSettings(page);
    await openModal(page);
    await page.fill('[data-testid=webhook-url-input]', `${receiver.url}/hook`);
    await page.selectOption('[data-testid=webhook-verb-select]', 'put');
    await page.uncheck('[data-testid=webhook-event-resubscribe]');
    await page.check('[data-testid=webhook-field-set-legacy]');
    const reloaded = page.waitForEvent('load', { timeout: 10_000 });
    const clicked = Date.now();
    await page.click('[data-testid=webhook-save]');
    expect(await alertTexts(page, '.notification.is-success[data-testid=alert]')).toEqual([
      'Webhook saved successfully.',
    ]);
    await reloaded;
    expect(Date.now() - clicked).toBeGreaterThanOrEqual(1900);
    await hydrated(page, '[data-testid=webhook-summary]');
    await expect(page.textContent('[data-testid=webhook-url]')).resolves.toBe(`${receiver.url}/hook`);
    await expect(page.textContent('[data-testid=webhook-verb]')).resolves.toBe('PUT');

    await page.waitForSelector('[data-testid=webhook-edit]:enabled');
    await openModal(page);
    await expect(page.inputValue('[data-testid=webhook-verb-select]')).resolves.toBe('put');
    await expect(page.isChecked('[data-testid=webhook-event-resubscribe]')).resolves.toBe(false);
    await expect(page.isChecked('[data-testid=webhook-field-set-legacy]')).resolves.toBe(true);
    // the signing secret is masked until shown
    await expect(page.getAttribute('[data-testid=webhook-secret-input]', 'type')).resolves.toBe('password');
    await expect(page.inputValue('[data-testid=webhook-secret-input]')).resolves.toMatch(/^whsec_/);
    receiver.received.length = 0;
    await page.click('[data-testid=webhook-test]');
    await page.waitForSelector('[data-testid=webhook-test-result]');
    await expect(page.textContent('[data-testid=webhook-test-result]')).resolves.toMatch(
      /^The receiver answered 200 in \d+ ms\.$/,
    );
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].method).toBe('PUT');
    expect(JSON.parse(receiver.received[0].body)).toMatchObject({ event: 'test' });
    await page.context().close();
  });
});

/** The saved webhook's event_types, as GET /v1/webhooks reads them back. */
const savedEvents = (page: Page) =>
  page.evaluate(
    async () => (await (await fetch('/v1/webhooks', { headers: { 'Request-Type': 'ui' } })).json()).data[0].event_types,
  );

/** Clicks Save and waits for the reload 2 s later, then for the pencil to open the modal again. */
async function saveAndReopen(page: Page): Promise<void> {
  const reloaded = page.waitForEvent('load', { timeout: 10_000 });
  await page.click('[data-testid=webhook-save]');
  await reloaded;
  await hydrated(page, '[data-testid=webhook-summary]');
  await page.waitForSelector('[data-testid=webhook-edit]:enabled');
  await openModal(page);
}

describe('the Delayed and Complaint checkboxes', () => {
  it('are shown, ticked and unticked, saved and read back, at 1440 and 390', async () => {
    const page = await signedIn(); // the webhook saved above: every event but resubscribe
    const check = (e: string) => page.isChecked(`[data-testid=webhook-event-${e}]`);
    await page.setViewportSize(VIEWPORTS.desktop);
    await openSettings(page);
    await openModal(page);
    for (const e of ['delayed', 'complaint']) {
      await expect(page.locator(`[data-testid=webhook-event-${e}]`).isVisible()).resolves.toBe(true);
      await expect(check(e)).resolves.toBe(true);
    }
    await expect(page.locator('.webhook-events label.checkbox').allTextContents()).resolves.toEqual(
      ['Sent', 'Delayed', 'Failed', 'Bounce', 'Complaint', 'Open', 'Click', 'Unsubscribe', 'Resubscribe'].map(
        (label) => ` ${label}`,
      ),
    );
    await page.uncheck('[data-testid=webhook-event-delayed]');
    await checkPage(page, 'webhooks-delayed-complaint-1440', ['[data-testid=webhook-event-complaint]']);
    await saveAndReopen(page);
    await expect(savedEvents(page)).resolves.toEqual(EVENTS.filter((e) => e !== 'delayed' && e !== 'resubscribe'));
    await expect(check('delayed')).resolves.toBe(false);
    await expect(check('complaint')).resolves.toBe(true);
    await expect(page.textContent('[data-testid=webhook-events]')).resolves.not.toContain('delayed');

    // at 390: the checkbox list wraps inside the modal; delayed ticked again, complaint unticked
    await page.setViewportSize(VIEWPORTS.phone);
    await animationsDone(page);
    await page.check('[data-testid=webhook-event-delayed]');
    await page.uncheck('[data-testid=webhook-event-complaint]');
    await checkPage(page, 'webhooks-delayed-complaint-390', [
      '[data-testid=webhook-event-delayed]',
      '[data-testid=webhook-event-complaint]',
    ]);
    // the events fieldset alone, to look at how its checkboxes wrap
    await page
      .locator('[data-testid=webhook-modal] fieldset', { hasText: 'Events' })
      .screenshot({ path: path.join(SCREENSHOTS, 'webhooks-events-390.png') });
    await saveAndReopen(page);
    await expect(savedEvents(page)).resolves.toEqual(EVENTS.filter((e) => e !== 'complaint' && e !== 'resubscribe'));
    await expect(check('delayed')).resolves.toBe(true);
    await expect(check('complaint')).resolves.toBe(false);
    await page.context().close();
  }, 120_000);
});

describe('Webhook Logs', () => {
  it('lists requests; More info shows the attempts with the answer as text; Replay sends it again', async () => {
    const page = await signedIn();
    // one failed test event, whose answer holds markup that must not be rendered
    receiver.respond = () => ({ status: 500, body: '<b id="injected">nope</b>' });
    await openSettings(page);
    await openModal(page);
    await page.click('[data-testid=webhook-test]');
    await page.waitForSelector('[data-testid=webhook-test-result]');
    await expect(page.textContent('[data-testid=webhook-test-result]')).resolves.toMatch(/answered 500/);

    await page.goto(`${server.baseUrl}/webhook-logs`);
    await hydrated(page, '[data-testid=webhook-log-row]');
    await expect(page.locator('[data-testid=webhook-log-row]').count()).resolves.toBe(2);
    await expect(page.locator('[data-testid=webhook-log-status]').allTextContents()).resolves.toEqual([
      'Failed',
      'Success',
    ]);
    await expect(page.getAttribute('[data-testid=webhook-setup-link]', 'href')).resolves.toBe('/settings');
    await page.setViewportSize(VIEWPORTS.desktop);
    await checkPage(page, 'webhook-logs-1440');
    await checkNarrow(page, 'webhook-logs');
    await page.setViewportSize(VIEWPORTS.desktop);

    // Date sorts oldest first on a click
    await page.click('[data-testid=sort-date] button');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=webhook-log-status]')?.textContent === 'Success',
    );

    await page.click('[data-testid=sort-date] button');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=webhook-log-status]')?.textContent === 'Failed',
    );
    await page.locator('[data-testid=webhook-log-more]').first().click();
    await page.waitForSelector('[data-testid=webhook-log-attempt]');
    await expect(page.textContent('[data-testid=webhook-log-url]')).resolves.toBe(`${receiver.url}/hook`);
    const headers = await page.textContent('[data-testid=webhook-log-headers]');
    expect(headers).toContain('webhook-id: msg_');
    await expect(page.textContent('[data-testid=webhook-log-payload]')).resolves.toContain('"event": "test"');
    await expect(page.textContent('[data-testid=webhook-log-attempt]')).resolves.toContain('HTTP 500');
    await expect(page.textContent('[data-testid=webhook-log-response]')).resolves.toBe('<b id="injected">nope</b>');
    await expect(page.locator('#injected').count()).resolves.toBe(0);
    await checkNarrow(page, 'webhook-logs-more-info');
    await page.setViewportSize(VIEWPORTS.desktop);

    // right after Replay the entry says it was replayed and queued (nothing failed); the
    // receiver holds its answer until the test has seen that, then the new attempt's result shows
    // in the row and in More info without a reload
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    receiver.respond = () => ({ status: 200, body: 'ok', hold: held });
    receiver.received.length = 0;
    await page.evaluate(() => ((window as Window & { notReloaded?: boolean }).notReloaded = true));
    await page.click('[data-testid=webhook-log-replay]');
    await page.waitForSelector('.notification.is-success[data-testid=alert]');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=webhook-log-detail-status]')?.textContent === 'Replayed, queued',
    );
    await expect(page.locator('[data-testid=webhook-log-status]').first().textContent()).resolves.toBe(
      'Replayed, queued',
    );
    await expect(page.locator('[data-testid=webhook-log-status]').first().getAttribute('class')).resolves.not.toContain(
      'is-warning',
    );
    // only a screenshot while held: the worker gives up on an answer after 10 s (a failure, then
    // 'Retrying'), and axe on a loaded machine can take longer; the page is checked after the answer
    await screenshot(page, 'webhook-logs-replayed-1440');
    answer();
    await page.waitForFunction(
      () => document.querySelectorAll('[data-testid=webhook-log-attempt]').length === 2,
      undefined,
      { timeout: 15_000 },
    );
    await expect(page.textContent('[data-testid=webhook-log-detail-status]')).resolves.toBe('Success');
    await page.click('[data-testid=webhook-log-modal] .delete');
    await expect(page.locator('[data-testid=webhook-log-status]').allTextContents()).resolves.toEqual([
      'Success',
      'Success',
    ]);
    expect(await page.evaluate(() => (window as Window & { notReloaded?: boolean }).notReloaded)).toBe(true);
    await checkPage(page, 'webhook-logs-replay-done-1440');
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0].headers['webhook-id']).toMatch(/^msg_/);
    await page.context().close();
  }, 240_000); // eleven page checks

  it('renders the first page on the server: the same rows with JavaScript off as on, no hydration error (issue ' +
    '19)', async () => {
    const page = await signedIn();
    const rows = (p: Page) =>
      p.$$eval('[data-testid=webhook-log-row]', (trs) => trs.map((tr) => tr.textContent!.trim()));
    const storage = await page.context().storageState();
    await page.context().close();
    const errors: string[] = [];
    const seen: Record<string, string[]> = {};
    for (const javaScriptEnabled of [false, true]) {
      const { page: viewer, context } = await openPage(browser, server.baseUrl, {
        storageState: storage,
        javaScriptEnabled,
        timezoneId: 'America/New_York',
        locale: 'de-DE',
        viewport: VIEWPORTS.desktop,
      });
      viewer.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      viewer.on('pageerror', (e) => errors.push(e.message));
      await viewer.goto(`${server.baseUrl}/webhook-logs`);
      if (javaScriptEnabled) await hydrated(viewer, '[data-testid=webhook-log-row]');
      seen[String(javaScriptEnabled)] = await rows(viewer);
      // axe runs as a script in the page: with JavaScript off only the screenshots (the DOM is the same)
      if (!javaScriptEnabled) {
        await screenshot(viewer, 'webhook-logs-no-js-1440');
        await viewer.setViewportSize(VIEWPORTS.phone);
        await viewer.reload(); // the side menu's slide needs no waiting on a fresh load at 390
        await screenshot(viewer, 'webhook-logs-no-js-390');
      }
      await context.close();
    }
    expect(seen.false).toHaveLength(2);
    expect(seen.false).toEqual(seen.true);
    expect(errors).toEqual([]);
  }, 120_000);

  it('says there is nothing logged for a customer without requests, also with JavaScript off', async () => {
    const page = await signedIn(EMPTY);
    const { page: viewer, context } = await openPage(browser, server.baseUrl, {
      storageState: await page.context().storageState(),
      javaScriptEnabled: false,
      viewport: VIEWPORTS.desktop,
    });
    await viewer.goto(`${server.baseUrl}/webhook-logs`);
    await expect(viewer.textContent('[data-testid=webhook-logs-empty]')).resolves.toBe('You have no logged events');
    await screenshot(viewer, 'webhook-logs-empty-no-js-1440');
    await context.close();
    await page.goto(`${server.baseUrl}/webhook-logs`);
    await hydrated(page, '[data-testid=webhook-logs-table]');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=webhook-logs-empty]')?.textContent === 'You have no logged events',
    );
    await page.setViewportSize(VIEWPORTS.desktop);
    await checkPage(page, 'webhook-logs-empty-1440');
    await checkNarrow(page, 'webhook-logs-empty');
    await page.context().close();
  });
});
