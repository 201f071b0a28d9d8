// The Settings page in Chromium (docs/console.md §2 Settings, §4): sending option toggles that are
// disabled while saving and flip only after a successful save, the webhook summary ('Not setup'),
// and the API and SMTP credentials, masked, revealable and copyable; the Domains card, each domain
// linking to its page, and Add Domain.
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertTexts,
  PARENT,
  hydrated,
  launchBrowser,
  location,
  openPage,
  screenshot,
  signInThroughForm,
  type TestPage,
  animationsDone,
  expectShownFor,
} from '../helpers/browser.ts';
import { MODAL_SUCCESS_CLOSE_MS } from '../../src/lib/timings.ts';
import { VIEWPORTS, checkPage, expectAccessible } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';

const PASSWORD = 'user-password-123';
const SENDER = 'sender@settings.test';
const VIEWER = 'viewer@settings.test';
const OPTIONS = ['track_opens', 'track_links', 'disable_suppression'] as const;

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await prepareServer();
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Settings Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Settings Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Settings Customer',
    '--email',
    SENDER,
    '--name',
    'Settings Sender',
    '--password',
    PASSWORD,
  );
  await server.admin(
    'user',
    'create',
    '--customer',
    'Settings Customer',
    '--email',
    VIEWER,
    '--name',
    'Settings Viewer',
    '--password',
    PASSWORD,
    '--no-send',
  );
  await server.admin('domain', 'add', 'settings.example', '--customer', 'Settings Customer', '--verified');
  await server.start();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Signs in and opens /settings with its islands hydrated and the settings loaded. */
async function openSettings(email = SENDER): Promise<TestPage & { settingsFetches: () => number }> {
  const opened = await openPage(browser, server.baseUrl);
  await signInThroughForm(opened.page, server.baseUrl, email, PASSWORD);
  let fetches = 0;
  opened.page.on('request', (req) => {
    if (req.method() === 'GET' && new URL(req.url()).pathname === '/v1/ui-settings') fetches++;
  });
  await opened.page.goto(`${server.baseUrl}/settings`);
  await settingsLoaded(opened.page);
  return { ...opened, settingsFetches: () => fetches };
}

async function settingsLoaded(page: Page): Promise<void> {
  await hydrated(page, '[data-testid=toggle-track_opens]');
  await page.waitForSelector('[data-testid=toggle-track_opens]:enabled');
  await page.waitForSelector('[data-testid=api-key-input]');
}

/** What the server holds, read through the page's own session. */
async function serverSettings(page: Page) {
  return page.evaluate(async () => {
    const res = await fetch('/v1/ui-settings', { headers: { 'Request-Type': 'ui' } });
    return (await res.json()) as {
      settings: Record<string, boolean>;
      credentials: {
        apiCredentials: { username: string; apiKey: string; url: string };
        smtpCredentials: { password: string };
      };
    };
  });
}

const toggle = (page: Page, option: string) => page.locator(`[data-testid=toggle-${option}]`);

/** Holds POST /v1/ui-settings until the returned function is called. */
async function holdSaves(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/v1/ui-settings', async (route: Route) => {
    if (route.request().method() === 'POST') await released;
    await route.continue();
  });
  return release;
}

describe('Settings page', () => {
  it('shows the sending options, Not setup for the webhook, and masked credentials', async () => {
    const { context, page, foreign, settingsFetches } = await openSettings();
    await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Settings');
    // three islands, one shared GET /v1/ui-settings
    await page.waitForSelector('[data-testid=smtp-password-input]');
    expect(settingsFetches()).toBe(1);
    await expect(page.getAttribute('[data-menu=settings]', 'class')).resolves.toContain('is-active');
    for (const title of ['Sending Options', 'Webhooks', 'API Credentials', 'SMTP Credentials']) {
      await expect(page.locator('.card-header-title', { hasText: title }).count()).resolves.toBe(1);
    }
    // migration 002: tracking on and suppression honoured for a new customer
    await expect(toggle(page, 'track_opens').isChecked()).resolves.toBe(true);
    await expect(toggle(page, 'track_links').isChecked()).resolves.toBe(true);
    await expect(toggle(page, 'disable_suppression').isChecked()).resolves.toBe(false);
    await expect(page.textContent('[data-testid=tracking-per-domain]')).resolves.toMatch(
      /^\s*Track Opens and Track Link Clicks are the default for each sending domain; a domain\s+given its own/,
    );
    await page.waitForSelector('[data-testid=webhook-not-setup]');
    await expect(page.textContent('[data-testid=webhook-not-setup]')).resolves.toBe('Not setup');

    const { credentials } = await serverSettings(page);
    const apiKey = page.locator('[data-testid=api-key-input]');
    await expect(apiKey.getAttribute('type')).resolves.toBe('password');
    await expect(apiKey.inputValue()).resolves.toBe(credentials.apiCredentials.apiKey);
    await expect(page.getAttribute('[data-testid=smtp-password-input]', 'type')).resolves.toBe('password');
    await expect(page.getAttribute('[data-testid=api-username-input]', 'type')).resolves.toBe('text');
    await expect(page.inputValue('[data-testid=api-endpoint-input]')).resolves.toBe(`${server.baseUrl}/v1/mail`);
    await expect(page.inputValue('[data-testid=smtp-port-input]')).resolves.toBe(server.env.SMTP_PORT);
    await expect(page.getAttribute('[data-testid=api-docs-link]', 'href')).resolves.toBe(`${PARENT}/api-docs`);
    // the accessible names tie each field to its label
    await expect(page.getByLabel('API Key', { exact: true }).inputValue()).resolves.toBe(
      credentials.apiCredentials.apiKey,
    );
    await screenshot(page, 'settings-page');

    await page.getByRole('button', { name: 'Show API Key' }).click();
    await expect(apiKey.getAttribute('type')).resolves.toBe('text');
    await expect(page.getAttribute('[data-testid=api-key-reveal]', 'aria-pressed')).resolves.toBe('true');
    await screenshot(page, 'settings-api-key-revealed');
    await page.getByRole('button', { name: 'Hide API Key' }).click();
    await expect(apiKey.getAttribute('type')).resolves.toBe('password');
    expect(foreign).toEqual([]);
    await context.close();
  });

  it(
    'saves each toggle, disabled while saving and flipped ' + 'only after the save, and keeps it after reload',
    async () => {
      const { context, page } = await openSettings();
      const before = (await serverSettings(page)).settings;
      for (const option of OPTIONS) {
        const wire = `tsetting_${option}`;
        const was = before[wire];
        const release = await holdSaves(page);
        await toggle(page, option).click();
        await expect.poll(() => toggle(page, option).isDisabled()).toBe(true);
        await expect(toggle(page, option).isChecked()).resolves.toBe(was);
        // the others stay usable
        for (const other of OPTIONS.filter((o) => o !== option))
          await expect(toggle(page, other).isDisabled()).resolves.toBe(false);
        if (option === 'track_opens') await screenshot(page, 'settings-toggle-saving');
        release();
        await expect.poll(() => toggle(page, option).isChecked()).toBe(!was);
        await expect.poll(() => toggle(page, option).isDisabled()).toBe(false);
        await page.unroute('**/v1/ui-settings');
        await expect.poll(async () => (await serverSettings(page)).settings[wire]).toBe(!was);
      }

      await page.reload();
      await settingsLoaded(page);
      for (const option of OPTIONS)
        await expect(toggle(page, option).isChecked(), option).resolves.toBe(!before[`tsetting_${option}`]);
      await screenshot(page, 'settings-toggled');

      // and back, so the page ends as it began
      for (const option of OPTIONS) {
        await toggle(page, option).click();
        await expect.poll(() => toggle(page, option).isChecked()).toBe(before[`tsetting_${option}`]);
      }
      await context.close();
    },
  );

  it('leaves a toggle as it was and shows a danger alert when the save fails', async () => {
    const { context, page } = await openSettings();
    await page.route('**/v1/ui-settings', (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 500,
            contentType: 'application/json',
            body: JSON.stringify({ error: { code: 'internal', message: 'Internal server error' } }),
          })
        : route.continue(),
    );
    const was = await toggle(page, 'track_links').isChecked();
    await toggle(page, 'track_links').click();
    expect(await alertTexts(page, '[data-testid=alert].is-danger')).toEqual([
      expect.stringContaining('Internal server error'),
    ]);
    await screenshot(page, 'settings-save-failed');
    await expect.poll(() => toggle(page, 'track_links').isDisabled()).toBe(false);
    await expect(toggle(page, 'track_links').isChecked()).resolves.toBe(was);
    await page.unroute('**/v1/ui-settings');
    expect((await serverSettings(page)).settings.tsetting_track_links).toBe(was);
    await context.close();
  });

  it('copies credentials to the clipboard, masked ones too', async () => {
    const { context, page } = await openSettings();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    const { credentials } = await serverSettings(page);
    const copied = async (testId: string) => {
      await page.click(`[data-testid=${testId}-copy]`);
      await expect.poll(() => page.textContent(`[data-testid=${testId}-copy]`)).toBe('Copied');
      return page.evaluate(() => navigator.clipboard.readText());
    };
    await expect(copied('api-key')).resolves.toBe(credentials.apiCredentials.apiKey);
    await expect(page.getAttribute('[data-testid=api-key-input]', 'type')).resolves.toBe('password');
    await expect(copied('api-username')).resolves.toBe(credentials.apiCredentials.username);
    await expect(copied('smtp-password')).resolves.toBe(credentials.smtpCredentials.password);
    await screenshot(page, 'settings-copied');
    await context.close();
  });

  it('sends a user who may not send transactions to the dashboard, without a Settings entry', async () => {
    const opened = await openPage(browser, server.baseUrl);
    await signInThroughForm(opened.page, server.baseUrl, VIEWER, PASSWORD);
    await opened.page.goto(`${server.baseUrl}/settings`);
    expect(location(opened.page)).toBe('/');
    await expect(opened.page.locator('[data-menu=settings]').count()).resolves.toBe(0);
    await opened.context.close();
  });

  it('lists the domains with their state, each linking to its page, and adds one with Add Domain', async () => {
    const { page, context } = await openSettings();
    try {
      // rendered on the server: the way back to a domain once the dashboard replaced getting started
      const html = await (await page.request.get(`${server.baseUrl}/settings`)).text();
      expect(html).toContain('settings.example');
      await page.locator('[data-testid=domain-row][data-domain="settings.example"]').scrollIntoViewIfNeeded();
      await hydrated(page, '[data-testid=add-domain]');
      await expect(
        page.getAttribute('[data-testid=domain-row][data-domain="settings.example"]', 'data-verified'),
      ).resolves.toBe('yes');
      const href = await page.getAttribute('[data-testid=domain-row][data-domain="settings.example"] a', 'href');
      expect(href).toMatch(/^\/domains\/\d+$/);
      await checkPage(page, 'settings-domains-1440', ['[data-testid=add-domain]']);
      await page.setViewportSize(VIEWPORTS.phone);
      await animationsDone(page); // the side menu's slide away from the narrower page
      await checkPage(page, 'settings-domains-390', ['[data-testid=add-domain]']);
      await page.setViewportSize(VIEWPORTS.desktop);

      await page.click('[data-testid=add-domain]');
      await page.waitForSelector('[data-testid=domain-input]');
      await expectAccessible(page, 'Settings: the Add Domain modal');
      await page.fill('[data-testid=domain-input]', 'second.example');
      await page.fill('[data-testid=local-input]', 'postmaster');
      await page.clock.install();
      await expectShownFor(page, MODAL_SUCCESS_CLOSE_MS, '[data-testid=domain-modal]', async () => {
        await page.click('[data-testid=send-verification]');
        await page.waitForSelector('[data-testid=domain-success]');
      });
      const added = await page.waitForSelector('[data-testid=domain-row][data-domain="second.example"]');
      expect(await added.getAttribute('data-verified')).toBe('no');
      await page.click('[data-testid=domain-row][data-domain="second.example"] a');
      await page.waitForURL(/\/domains\/\d+$/);
      await expect(page.textContent('[data-testid=page-title]')).resolves.toContain('second.example');
    } finally {
      await context.close();
    }
  });
});
