// Several webhooks in Chromium (docs/webhooks.md "Several webhooks"): Settings lists every webhook of
// the account, rendered on the server, each with its Edit opening the Webhook modal on that one (a
// Resend webhook with Resend's events), Add webhook opening a new one; Webhook Logs shows every
// webhook's requests and its Webhook select shows one webhook's. Checked with axe and screenshots at
// 1440 and 390 px. The server reaches the local receiver through WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animationsDone, hydrated, launchBrowser, openPage, PARENT, signInThroughForm } from '../helpers/browser.ts';
import { checkPage, VIEWPORTS } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const PASSWORD = 'user-password-123';
const SENDER = 'sender@several.test';

let server: RunningServer;
let browser: Browser;
let receiver: WebhookReceiver;
let page: Page;
const ids: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  server = await prepareServer({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Several Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Several Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Several Customer',
    '--email',
    SENDER,
    '--name',
    'Several Sender',
    '--password',
    PASSWORD,
  );
  await server.start();
  browser = await launchBrowser();
  page = (await openPage(browser, server.baseUrl)).page;
  await signInThroughForm(page, server.baseUrl, SENDER, PASSWORD);
  // two webhooks through the console's own calls: the Settings one, and one with Resend's events
  const save = (body: Record<string, unknown>) =>
    page.evaluate(async (b) => {
      const res = await fetch('/v1/webhooks', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Request-Type': 'ui' },
        body: JSON.stringify(b),
      });
      return (await res.json()).data.id as string;
    }, body);
  const common = { verb: 'post', status: 'enabled', auth_type: null };
  ids.push(await save({ ...common, url: `${receiver.url}/orders`, event_types: ['sent'], field_set: 'standard' }));
  ids.push(
    await save({
      ...common,
      add: true,
      url: `${receiver.url}/resend-hook`,
      event_types: ['email.delivered', 'email.bounced'],
      field_set: 'resend',
    }),
  );
  // a test event to each, so Webhook Logs has a request of both
  for (const id of ids)
    await page.evaluate(async (which) => {
      await fetch(`/v1/webhooks/test?id=${which}`, { method: 'POST', headers: { 'Request-Type': 'ui' } });
    }, id);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await receiver?.close();
});

async function atBothWidths(name: string, shown: string[] = []): Promise<void> {
  await page.setViewportSize(VIEWPORTS.desktop);
  await animationsDone(page);
  await checkPage(page, `${name}-1440`, shown);
  await page.setViewportSize(VIEWPORTS.phone);
  await animationsDone(page);
  await checkPage(page, `${name}-390`, shown);
  await page.setViewportSize(VIEWPORTS.desktop);
}

describe('Settings with several webhooks', () => {
  it('lists each webhook from the server; Edit opens the modal on it; Add webhook opens a new one', async () => {
    // rendered on the server: there before any script runs
    const html = await (await page.request.get(`${server.baseUrl}/settings`)).text();
    expect(html).toContain(`${receiver.url}/orders`);
    expect(html).toContain(`${receiver.url}/resend-hook`);
    expect(html).not.toMatch(/whsec_/);

    await page.goto(`${server.baseUrl}/settings`);
    await hydrated(page, '[data-testid=webhook-list]');
    await page.waitForSelector('[data-testid=webhook-item-edit]:enabled');
    await expect(page.locator('[data-testid=webhook-item]').count()).resolves.toBe(2);
    await expect(page.locator('[data-testid=webhook-url]').allTextContents()).resolves.toEqual([
      `${receiver.url}/orders`,
      `${receiver.url}/resend-hook`,
    ]);
    await expect(page.locator('[data-testid=webhook-field-set]').allTextContents()).resolves.toEqual([
      'Standard',
      'Resend',
    ]);
    await atBothWidths('webhooks-several-settings', ['[data-testid=webhook-add]']);

    // the second one's Edit: its URL, the Resend field set and Resend's events
    await page.locator('[data-testid=webhook-item-edit]').nth(1).click();
    await page.waitForSelector('[data-testid=webhook-modal]');
    await expect(page.inputValue('[data-testid=webhook-url-input]')).resolves.toBe(`${receiver.url}/resend-hook`);
    await expect(page.isChecked('[data-testid=webhook-field-set-resend]')).resolves.toBe(true);
    await expect(page.isChecked('[data-testid="webhook-event-email.delivered"]')).resolves.toBe(true);
    await expect(page.isChecked('[data-testid="webhook-event-email.opened"]')).resolves.toBe(false);
    await expect(page.inputValue('[data-testid=webhook-secret-input]')).resolves.toMatch(/^whsec_/);
    await atBothWidths('webhooks-several-edit-resend', ['[data-testid="webhook-event-email.suppressed"]']);
    // a change saved goes to that webhook alone
    await page.check('[data-testid="webhook-event-email.opened"]');
    const reloaded = page.waitForEvent('load', { timeout: 10_000 });
    await page.click('[data-testid=webhook-save]');
    await reloaded;
    await hydrated(page, '[data-testid=webhook-list]');
    await expect(page.locator('[data-testid=webhook-events]').nth(1).textContent()).resolves.toContain('email.opened');
    await expect(page.locator('[data-testid=webhook-events]').nth(0).textContent()).resolves.toBe('sent');

    // Add webhook: a new, empty modal with the defaults
    await page.waitForSelector('[data-testid=webhook-add]:enabled');
    await page.click('[data-testid=webhook-add]');
    await page.waitForSelector('[data-testid=webhook-modal]');
    await expect(page.textContent('[data-testid=webhook-modal] .modal-card-title')).resolves.toBe('New webhook');
    await expect(page.inputValue('[data-testid=webhook-url-input]')).resolves.toBe('');
    // choosing Resend's payloads offers Resend's events, all ticked
    await page.check('[data-testid=webhook-field-set-resend]');
    await expect(page.isChecked('[data-testid="webhook-event-email.sent"]')).resolves.toBe(true);
    await expect(page.locator('[data-testid=webhook-event-sent]').count()).resolves.toBe(0);
    await atBothWidths('webhooks-several-add', ['[data-testid=webhook-url-input]']);
  });
});

describe('Webhook Logs with several webhooks', () => {
  it('shows every webhook’s requests and filters by one with the Webhook select', async () => {
    await page.goto(`${server.baseUrl}/webhook-logs`);
    await hydrated(page, '[data-testid=webhook-logs-filter]');
    await expect(page.locator('[data-testid=webhook-log-row]').count()).resolves.toBe(2);
    await expect(page.locator('[data-testid=webhook-logs-filter] option').allTextContents()).resolves.toEqual([
      'All webhooks',
      `${receiver.url}/orders`,
      `${receiver.url}/resend-hook`,
    ]);
    await atBothWidths('webhooks-several-logs', ['[data-testid=webhook-logs-filter]']);

    await page.selectOption('[data-testid=webhook-logs-filter]', ids[1]);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=webhook-log-row]').length === 1);
    await expect(page.textContent('[data-testid=webhook-log-row] .webhook-log-url')).resolves.toBe(
      `${receiver.url}/resend-hook`,
    );
    await atBothWidths('webhooks-several-logs-filtered', ['[data-testid=webhook-logs-filter]']);
    await page.selectOption('[data-testid=webhook-logs-filter]', '');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=webhook-log-row]').length === 2);
  });
});

describe('Settings: a second webhook like the first, and Delete', () => {
  it('refuses a webhook with the URL and events of another, saying why, and deletes one after asking', async () => {
    await page.goto(`${server.baseUrl}/settings`);
    await hydrated(page, '[data-testid=webhook-list]');
    await page.waitForSelector('[data-testid=webhook-add]:enabled');
    // the same URL, field set and events as the first: every event would be posted twice
    await page.click('[data-testid=webhook-add]');
    await page.waitForSelector('[data-testid=webhook-modal]');
    await page.fill('[data-testid=webhook-url-input]', `${receiver.url}/orders`);
    await page.check('[data-testid=webhook-field-set-standard]');
    for (const box of await page.locator('[data-testid^=webhook-event-]').all()) await box.uncheck();
    await page.check('[data-testid=webhook-event-sent]');
    await page.click('[data-testid=webhook-save]');
    await expect
      .poll(() => page.locator('[data-testid=alert]').allTextContents())
      .toContain('Another webhook already sends these events to this URL: each event would be posted twice.');
    await page.click('[data-testid=webhook-modal] >> text=Cancel');
    await expect(page.locator('[data-testid=webhook-item]').count()).resolves.toBe(2);

    // Delete asks first; Keep it changes nothing
    await page.locator('[data-testid=webhook-item-edit]').nth(0).click();
    await page.waitForSelector('[data-testid=webhook-modal]');
    await page.click('[data-testid=webhook-delete]');
    await expect(page.textContent('[data-testid=webhook-delete-question]')).resolves.toContain('Delete this webhook?');
    await atBothWidths('webhooks-delete-confirm', ['[data-testid=webhook-delete-confirm]']);
    await page.click('[data-testid=webhook-delete-keep]');
    await page.waitForSelector('[data-testid=webhook-save]');
    await page.click('[data-testid=webhook-delete]');
    const reloaded = page.waitForEvent('load', { timeout: 10_000 });
    await page.click('[data-testid=webhook-delete-confirm]');
    await reloaded;
    await hydrated(page, '[data-testid=webhook-list]');
    await expect(page.locator('[data-testid=webhook-url]').allTextContents()).resolves.toEqual([
      `${receiver.url}/resend-hook`,
    ]);
    // its requests stay in the log; another account's or a malformed id is 404
    for (const id of [ids[0], 'not-a-uuid'])
      await expect(
        page.evaluate(
          async (which) =>
            (await fetch(`/v1/webhooks/${which}`, { method: 'DELETE', headers: { 'Request-Type': 'ui' } })).status,
          id,
        ),
      ).resolves.toBe(404);
  });
});
