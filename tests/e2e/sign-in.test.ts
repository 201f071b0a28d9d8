import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signInThroughForm } from '../helpers/browser.ts';
import { prepareServer, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await prepareServer();
  await server.start();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('signing in to the console', () => {
  it('takes the administrator from /login to the dashboard shell', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await screenshot(page, 'sign-in-form');
    await signInThroughForm(page, server.baseUrl, 'admin@example.com', 'admin-password-123');
    expect(new URL(page.url()).pathname).toBe('/');
    await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Transactional Dashboard');
    await screenshot(page, 'sign-in-home');
    await page.close();
  });
});
