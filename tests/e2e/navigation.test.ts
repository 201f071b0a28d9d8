// The console shell per user (docs/console.md §2 Shell, §6 Roles and permissions): the enterprise's
// branding in the header, the top-navigation entries each permission unlocks, the side menu for
// users who may or may not send, and logout to the enterprise's parent platform. Accounts are
// seeded with the admin CLI before the service starts.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PARENT,
  hydrated,
  launchBrowser,
  location,
  navigationIds,
  openPage,
  screenshot,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';

const PASSWORD = 'user-password-123';
const USERS = {
  admin: { email: 'admin@acme.test', name: 'Acme Admin', customer: 'Acme Customer', flags: ['--admin'] },
  viewer: { email: 'viewer@acme.test', name: 'Acme Viewer', customer: 'Acme Customer', flags: ['--no-send'] },
  smsEditor: {
    email: 'sms@acme.test',
    name: 'Acme SMS Editor',
    customer: 'Acme Customer',
    flags: ['--permissions', 'sms_edit'],
  },
  sender: { email: 'sender@acme.test', name: 'Acme Sender', customer: 'Acme Customer', flags: [] },
  smsEditorNoSms: {
    email: 'sms@plain.test',
    name: 'Plain SMS Editor',
    customer: 'Plain Customer',
    flags: ['--permissions', 'sms_edit'],
  },
} as const;
type UserKey = keyof typeof USERS;

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await prepareServer();
  const acme = createdId(
    await server.admin(
      'enterprise',
      'create',
      '--name',
      'Acme Enterprise',
      '--parent-url',
      PARENT,
      '--colour',
      '#8a2be2',
      '--logo',
      `${PARENT}/logo.svg`,
      '--sms',
    ),
    'enterprise',
  );
  // a parent platform too, so a missing SMS entry is not just a missing top navigation
  const plain = createdId(
    await server.admin('enterprise', 'create', '--name', 'Plain Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  await server.admin('customer', 'create', '--enterprise', String(acme), '--name', 'Acme Customer');
  await server.admin('customer', 'create', '--enterprise', String(plain), '--name', 'Plain Customer');
  for (const user of Object.values(USERS)) {
    await server.admin(
      'user',
      'create',
      '--customer',
      user.customer,
      '--email',
      user.email,
      '--name',
      user.name,
      '--password',
      PASSWORD,
      ...user.flags,
    );
  }
  await server.start();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function signedIn(key: UserKey): Promise<TestPage> {
  const opened = await openPage(browser, server.baseUrl);
  await signInThroughForm(opened.page, server.baseUrl, USERS[key].email, PASSWORD);
  expect(location(opened.page)).toBe('/');
  return opened;
}

const SIDE_ALL = [
  'dashboard',
  'groups',
  'inbound',
  'suppression-list',
  'templates',
  'online-attachments',
  'webhook-logs',
  'settings',
];
const SENDING_ONLY = ['suppression-list', 'templates', 'settings'];

describe('console shell per permissions', () => {
  it('shows an administrator every entry and the enterprise branding', async () => {
    const { context, page, foreign } = await signedIn('admin');
    const { top, side } = await navigationIds(page);
    expect(top).toEqual(
      expect.arrayContaining([
        'customer-profile',
        'branding',
        'my-customers',
        'enterprise-profile',
        'domains',
        'account-logs',
        'enterprise-templates',
        'transactional-sms',
      ]),
    );
    expect(side).toEqual(SIDE_ALL);
    await expect(page.getAttribute('a[data-nav=branding]', 'href')).resolves.toBe(`${PARENT}/account/branding`);

    const header = page.locator('[data-testid=header]');
    await expect(header.evaluate((el) => getComputedStyle(el).backgroundColor)).resolves.toBe('rgb(138, 43, 226)');
    await expect(page.textContent('[data-testid=customer-name]')).resolves.toBe('Acme Customer');
    await expect(page.textContent('[data-testid=user-name]')).resolves.toBe('Acme Admin');
    const logo = page.locator('[data-testid=enterprise-logo]');
    await expect(logo.getAttribute('src')).resolves.toBe(`${PARENT}/logo.svg`);
    await expect(
      logo.evaluate((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0),
    ).resolves.toBe(true);
    expect(foreign).toEqual([]);

    await page.hover('[data-nav-group=account] button');
    const branding = page.locator('a[data-nav=branding]');
    await branding.waitFor({ state: 'visible' });
    // readable: not the colour of the menu behind it
    const [text, behind] = await branding.evaluate((a) => [
      getComputedStyle(a).color,
      getComputedStyle(a.closest('.dropdown-content')!).backgroundColor,
    ]);
    expect(text).not.toBe(behind);
    await screenshot(page, 'nav-admin-account-menu');
    await context.close();
  });

  it('hides sending pages and permission-bound links from a user with no permissions', async () => {
    const { context, page } = await signedIn('viewer');
    const { top, side } = await navigationIds(page);
    expect(side).toEqual(SIDE_ALL.filter((id) => !SENDING_ONLY.includes(id)));
    // the top navigation is there (the enterprise has a parent platform) ...
    expect(top).toEqual(expect.arrayContaining(['users-access', 'transactional-email', 'support']));
    // ... without what needs a permission
    for (const id of [
      'customer-profile',
      'branding',
      'domains',
      'account-logs',
      'transactional-sms',
      'my-customers',
      'enterprise-profile',
      'enterprise-templates',
    ]) {
      expect(top, id).not.toContain(id);
    }
    await screenshot(page, 'nav-no-permissions');
    await context.close();
  });

  it('shows Transactional SMS only to an SMS editor of an enterprise with SMS', async () => {
    const smsTop = async (key: UserKey) => {
      const { context, page } = await signedIn(key);
      const { top } = await navigationIds(page);
      await context.close();
      expect(top, key).toContain('transactional-email'); // the top navigation is rendered
      return top.includes('transactional-sms');
    };
    await expect(smsTop('smsEditor')).resolves.toBe(true);
    await expect(smsTop('smsEditorNoSms')).resolves.toBe(false);
    await expect(smsTop('sender')).resolves.toBe(false);
  });
});

describe('logout', () => {
  it('sends a user of an enterprise with a parent platform there, and ends the session', async () => {
    const { context, page, foreign } = await signedIn('sender');
    await context.route(`${PARENT}/**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'parent' }),
    );
    await hydrated(page, '[data-testid=logout]');
    await Promise.all([page.waitForURL(`${PARENT}/`), page.click('[data-testid=logout]')]);
    await expect(page.textContent('body')).resolves.toBe('parent');
    expect(foreign).toEqual([]);
    await page.goto(`${server.baseUrl}/`);
    expect(location(page)).toBe('/login');
    await context.close();
  });
});
