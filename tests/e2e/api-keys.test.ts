// Settings' API Keys card in Chromium (docs/console.md §2 Settings), at desktop and phone width:
// create a sending access key limited to a domain, see its token once with Copy, find it listed with
// its permission, delete it after a confirmation; axe-clean throughout, with screenshots.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  alertTexts,
  animationsDone,
  hydrated,
  launchBrowser,
  openPage,
  signInThroughForm,
} from '../helpers/browser.ts';
import { checkPage, VIEWPORTS } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';

const PASSWORD = 'user-password-123';
const EMAIL = 'sender@api-keys.test';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await prepareServer();
  const enterprise = createdId(await server.admin('enterprise', 'create', '--name', 'Keys Enterprise'), 'enterprise');
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Keys Shop');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Keys Shop',
    '--email',
    EMAIL,
    '--name',
    'Keys Sender',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', 'shop.example', '--customer', 'Keys Shop', '--verified');
  await server.start();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const rowNames = (page: Page) =>
  page.$$eval('[data-testid=api-key-row] strong', (cells) => cells.map((c) => c.textContent));

describe('API keys in Settings', () => {
  for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
    it(`at ${viewport.width} px: creates a key, shows its token once with Copy, lists it, deletes it`, {
      timeout: 120_000,
    }, async () => {
      const { page, context } = await openPage(browser, server.baseUrl, { viewport });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
      await signInThroughForm(page, server.baseUrl, EMAIL, PASSWORD);
      await page.goto(`${server.baseUrl}/settings`);
      await hydrated(page, '[data-testid=api-key-create]');
      await page.waitForSelector('[data-testid=api-keys-table][aria-busy=false]');
      const before = await rowNames(page);
      await page.locator('[data-testid=api-keys-card]').scrollIntoViewIfNeeded();
      await animationsDone(page);
      await checkPage(page, `api-keys-card-${viewport.width}`, ['[data-testid=api-key-create]']);

      // the form: a name, sending access, the account's domain
      await page.click('[data-testid=api-key-create]');
      await page.waitForSelector('[data-testid=api-key-modal] [data-testid=api-key-name]');
      const name = `Shop ${viewport.width}`;
      await page.fill('[data-testid=api-key-name]', name);
      await page.selectOption('[data-testid=api-key-permission-select]', 'sending_access');
      await page.waitForSelector('[data-testid=api-key-domain] option:has-text("shop.example")', { state: 'attached' });
      await page.selectOption('[data-testid=api-key-domain]', { label: 'shop.example' });
      await animationsDone(page);
      await checkPage(page, `api-keys-create-${viewport.width}`, ['[data-testid=api-key-submit]']);
      await page.click('[data-testid=api-key-submit]');

      // the token, once, with Copy
      const token = await page.locator('[data-testid=api-key-token-input]').inputValue();
      expect(token).toMatch(/^tsn_[A-Za-z0-9_-]{43}$/);
      await expect(page.textContent('[data-testid=api-key-once]')).resolves.toMatch(/will not be shown again/);
      await animationsDone(page);
      await checkPage(page, `api-keys-token-${viewport.width}`, ['[data-testid=api-key-token-input]']);
      await page.click('[data-testid=api-key-token-copy]');
      await expect.poll(() => page.textContent('[data-testid=api-key-token-copy]')).toBe('Copied');
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(token);
      await page.click('[data-testid=api-key-done]');
      await page.waitForSelector('[data-testid=api-key-modal]', { state: 'detached' });

      // listed with its permission, never its token
      await expect.poll(() => rowNames(page)).toEqual([name, ...before]);
      await expect(page.textContent('[data-testid=api-key-permission]')).resolves.toBe('Sending access (shop.example)');
      expect(await page.content()).not.toContain(token);
      await animationsDone(page);
      await checkPage(page, `api-keys-listed-${viewport.width}`, ['[data-testid=api-key-delete]']);

      // the key works until it is deleted
      const send = () =>
        page.evaluate(async (key) => {
          const res = await fetch('/v1/mail', {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              from: 'orders@shop.example',
              to: 'ada@customer.example',
              subject: 'Hi',
              text: 'Hi',
            }),
          });
          return res.status;
        }, token);
      expect(await send()).toBe(202);

      // Delete asks first
      await page.click('[data-testid=api-key-delete]');
      await page.waitForSelector('[data-testid=api-key-delete-modal]');
      await animationsDone(page);
      await checkPage(page, `api-keys-delete-${viewport.width}`, ['[data-testid=api-key-delete-confirm]']);
      await page.click('[data-testid=api-key-delete-confirm]');
      await page.waitForSelector('[data-testid=api-key-delete-modal]', { state: 'detached' });
      await expect.poll(() => rowNames(page)).toEqual(before);
      await expect.poll(() => alertTexts(page)).toContain('The API key was deleted.');
      expect(await send()).toBe(401);
      await context.close();
    });
  }
});
