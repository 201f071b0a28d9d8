// The console's sign-in, route guard (docs/console-reports.md §2), side-menu collapse and logout (docs/console.md §2
// Shell) for the first administrator, whose enterprise ("Transact", made on first start) has no
// parent platform address.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hydrated,
  launchBrowser,
  location,
  openPage,
  screenshot,
  signInThroughForm,
  submitLoginForm,
} from '../helpers/browser.ts';
import { prepareServer, type RunningServer } from '../helpers/server.ts';
import { SESSION_COOKIE } from '../../src/server/http/session-cookie.ts';

const ADMIN = { email: 'admin@example.com', password: 'admin-password-123' };

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

describe('signing in at /login', () => {
  it('keeps a wrong password on /login with the inline message, and takes the right one to /', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    await page.goto(`${server.baseUrl}/`);
    expect(location(page)).toBe('/login');
    await screenshot(page, 'sign-in-form');

    await page.fill('#email', ADMIN.email);
    await page.fill('#password', 'not-the-password');
    await page.click('button[type=submit]');
    const error = page.locator('[data-testid=login-error]');
    await error.waitFor({ state: 'visible' });
    await expect(error.textContent()).resolves.toBe('Email or password is incorrect');
    expect(location(page)).toBe('/login');
    expect((await context.cookies()).map((c) => c.name)).not.toContain(SESSION_COOKIE);
    await screenshot(page, 'sign-in-wrong-password');

    await page.fill('#password', ADMIN.password);
    await Promise.all([page.waitForURL(`${server.baseUrl}/`), page.click('button[type=submit]')]);
    expect((await context.cookies()).find((c) => c.name === SESSION_COOKIE)).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
    });
    // a new account has no verified domain yet, so home is the getting-started page (docs/console.md §4)
    await expect(page.textContent('[data-testid=page-title]')).resolves.toBe("Let's get started");
    await expect(page.textContent('[data-testid=user-name]')).resolves.toBe('Administrator');
    await expect(page.textContent('[data-testid=customer-name]')).resolves.toBe('My Company');
    await screenshot(page, 'sign-in-home');
    await context.close();
  });
});

describe('route guard', () => {
  it(
    'sends a signed-out visitor of /unauthorized to ' + '/login?url=unauthorized and back there after sign-in',
    async () => {
      const { context, page } = await openPage(browser, server.baseUrl);
      await page.goto(`${server.baseUrl}/unauthorized`);
      expect(location(page)).toBe('/login?url=unauthorized');
      await submitLoginForm(page, ADMIN.email, ADMIN.password);
      expect(location(page)).toBe('/unauthorized');
      await expect(page.textContent('[data-testid=unauthorized]')).resolves.toBe('Unauthorized');
      await screenshot(page, 'guard-unauthorized-after-sign-in');
      await context.close();
    },
  );

  it('sends a signed-out visitor of /settings to /login?url=settings and back to /settings', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    await page.goto(`${server.baseUrl}/settings`);
    expect(location(page)).toBe('/login?url=settings');
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/settings'),
      submitLoginForm(page, ADMIN.email, ADMIN.password),
    ]);
    expect(location(page)).toBe('/settings');
    expect(response.status()).toBe(200);
    await expect(page.textContent('[data-testid=user-name]')).resolves.toBe('Administrator');
    await context.close();
  });

  it(
    'sends a signed-out visitor of a page that does not exist (/no-such-page) back there after sign-in: 404 in the ' +
      'shell',
    async () => {
      const { context, page } = await openPage(browser, server.baseUrl);
      await page.goto(`${server.baseUrl}/no-such-page`);
      expect(location(page)).toBe('/login?url=no-such-page');
      const [response] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === '/no-such-page'),
        submitLoginForm(page, ADMIN.email, ADMIN.password),
      ]);
      expect(location(page)).toBe('/no-such-page');
      expect(response.status()).toBe(404);
      await expect(page.textContent('[data-testid=not-found]')).resolves.toBe('Not Found');
      await expect(page.textContent('[data-testid=user-name]')).resolves.toBe('Administrator');
      await screenshot(page, 'guard-not-found');
      await context.close();
    },
  );

  it('keeps the query of the original page in the url parameter', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    await page.goto(`${server.baseUrl}/unauthorized?from=report`);
    expect(new URL(page.url()).searchParams.get('url')).toBe('unauthorized?from=report');
    await submitLoginForm(page, ADMIN.email, ADMIN.password);
    expect(location(page)).toBe('/unauthorized?from=report');
    await context.close();
  });

  it('sends a signed-in user from /login to /, or to /{url}', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    await signInThroughForm(page, server.baseUrl, ADMIN.email, ADMIN.password);
    await page.goto(`${server.baseUrl}/login`);
    expect(location(page)).toBe('/');
    await page.goto(`${server.baseUrl}/login?url=unauthorized`);
    expect(location(page)).toBe('/unauthorized');
    await context.close();
  });

  it('never leaves the site for a url parameter naming another site', async () => {
    const evil = ['//evil.example', 'https://evil.example/x', '/\\evil.example', 'javascript:alert(1)'];
    const { context, page, foreign } = await openPage(browser, server.baseUrl);
    // signed out: the form follows the parameter after sign-in
    await page.goto(`${server.baseUrl}/login?url=${encodeURIComponent(evil[0])}`);
    await submitLoginForm(page, ADMIN.email, ADMIN.password);
    expect(new URL(page.url()).origin).toBe(server.baseUrl);
    // signed in: the guard follows it at once
    for (const url of evil) {
      await page.goto(`${server.baseUrl}/login?url=${encodeURIComponent(url)}`);
      expect(new URL(page.url()).origin, url).toBe(server.baseUrl);
    }
    expect(foreign).toEqual([]);
    await context.close();
  });
});

describe('side menu collapse', () => {
  it('collapses, stays collapsed on the next page (rendered by the server), and expands again', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    await signInThroughForm(page, server.baseUrl, ADMIN.email, ADMIN.password);
    const collapsed = () => page.evaluate(() => document.body.classList.contains('menu-collapsed'));
    const menuCookie = async () => (await context.cookies()).find((c) => c.name === 'transact_menu')?.value;
    await hydrated(page, '[data-testid=menu-toggle]');
    const wideMenu = (await page.locator('[data-testid=side-menu]').boundingBox())!.width;
    await expect(collapsed()).resolves.toBe(false);

    await page.click('[data-testid=menu-toggle]');
    await expect(collapsed()).resolves.toBe(true);
    await expect(menuCookie()).resolves.toBe('collapsed');
    // narrower, and its width transition over
    await page.waitForFunction((wide) => {
      const menu = document.querySelector('[data-testid=side-menu]')!;
      return menu.getBoundingClientRect().width < wide && menu.getAnimations().length === 0;
    }, wideMenu);
    const narrowMenu = (await page.locator('[data-testid=side-menu]').boundingBox())!.width;
    await screenshot(page, 'menu-collapsed');

    // the server renders the class: check the HTML as sent, before any script runs
    const response = await page.goto(`${server.baseUrl}/unauthorized`);
    const html = await response!.text();
    expect(html).toMatch(/<body[^>]*class="menu-collapsed"/);
    expect(html).toMatch(/aria-expanded="false"[^>]*data-testid="menu-toggle"/);
    await hydrated(page, '[data-testid=menu-toggle]');
    await expect(collapsed()).resolves.toBe(true);
    await expect(page.getAttribute('[data-testid=menu-toggle]', 'aria-expanded')).resolves.toBe('false');
    expect((await page.locator('[data-testid=side-menu]').boundingBox())!.width).toBe(narrowMenu);
    await screenshot(page, 'menu-collapsed-unauthorized');

    await page.click('[data-testid=menu-toggle]');
    await expect(collapsed()).resolves.toBe(false);
    await expect(menuCookie()).resolves.toBe('expanded');
    await page.reload();
    await expect(collapsed()).resolves.toBe(false);
    await expect(page.getAttribute('[data-testid=menu-toggle]', 'aria-expanded')).resolves.toBe('true');
    await context.close();
  });
});

describe('logout', () => {
  it('sends the administrator of an enterprise without a parent platform to /login and ends the session', async () => {
    const { context, page } = await openPage(browser, server.baseUrl);
    await signInThroughForm(page, server.baseUrl, ADMIN.email, ADMIN.password);
    await hydrated(page, '[data-testid=logout]');
    const [logout] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/logout'),
      page.waitForURL(`${server.baseUrl}/login`),
      page.click('[data-testid=logout]'),
    ]);
    // the button also falls back to /login when the call fails, so the call itself must succeed
    expect(logout.request().method()).toBe('POST');
    expect(logout.status()).toBe(200);
    await screenshot(page, 'logout-to-login');
    await page.goto(`${server.baseUrl}/`);
    expect(location(page)).toBe('/login');
    await context.close();
  });
});
