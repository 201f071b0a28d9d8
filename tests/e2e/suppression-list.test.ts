// The Suppression List page in Chromium (docs/console-reports.md §2 "Suppression List", §4, §5, §8; docs/console.md
// §6 and §9): the table newest first with paging, the origin filter buttons, the debounced
// search, the delete icon that acts on exactly one checked row, the 'Add Recipients' modal with
// its success and failure messages, 'No data.', and the redirect of users who may not send.
import type { Browser, Page } from 'playwright-core';
import { checkPage } from '../helpers/page-checks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SuppressionOrigin } from '../../src/server/db/schema.ts';
import {
  alertTexts,
  animationsDone,
  PARENT,
  hydrated,
  launchBrowser,
  location,
  openPage,
  screenshot as saveScreenshot,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';

const PASSWORD = 'user-password-123';
const BROWSER = 'browse@suppression.test'; // a seeded list, only read
const EDITOR = 'edit@suppression.test'; // a seeded list that the tests change
const EMPTY = 'empty@suppression.test'; // a customer with an empty list
const VIEWER = 'viewer@suppression.test'; // may not send transactions

// 12 entries, one a minute from 2024-03-01 10:00; the last is the newest
const ORIGINS: SuppressionOrigin[] = ['user', 'bounce', 'unsubscribe'];
const SEEDED = Array.from({ length: 12 }, (_, i) => ({
  email: `person${String(i).padStart(2, '0')}@example.org`,
  origin: ORIGINS[i % 3],
  at: new Date(Date.UTC(2024, 2, 1, 10, i)).toISOString(),
}));
const NEWEST_FIRST = [...SEEDED].reverse().map((e) => e.email);

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  server = await prepareServer();
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Suppression Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  const customers: number[] = [];
  for (const [name, email] of [
    ['Browse Customer', BROWSER],
    ['Edit Customer', EDITOR],
    ['Empty Customer', EMPTY],
  ]) {
    customers.push(
      createdId(
        await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', name),
        'customer',
      ),
    );
    await server.admin(
      'user',
      'create',
      '--customer',
      name,
      '--email',
      email,
      '--name',
      name.replace('Customer', 'User'),
      '--password',
      PASSWORD,
    );
  }
  await server.admin(
    'user',
    'create',
    '--customer',
    'Browse Customer',
    '--email',
    VIEWER,
    '--name',
    'Viewer',
    '--password',
    PASSWORD,
    '--no-send',
  );
  // bounce and unsubscribe entries come from mail flows; seed them directly before the service
  // holds the (embedded) database
  const db = await server.database();
  for (const customerId of customers.slice(0, 2)) {
    await db
      .insertInto('suppressions')
      .values(SEEDED.map((e) => ({ customer_id: customerId, email: e.email, origin: e.origin, created_at: e.at })))
      .execute();
  }
  await server.start();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** Signs in and opens /suppression-list with its islands hydrated and the first page loaded. */
async function openList(email: string): Promise<TestPage> {
  const opened = await openPage(browser, server.baseUrl);
  await signInThroughForm(opened.page, server.baseUrl, email, PASSWORD);
  await opened.page.goto(`${server.baseUrl}/suppression-list`);
  await hydrated(opened.page, '[data-testid=suppression-table]');
  await hydrated(opened.page, '[data-testid=suppression-search]');
  await hydrated(opened.page, '[data-testid=add-recipients]');
  await settled(opened.page);
  return opened;
}

/** A screenshot once CSS transitions (Bulma's buttons fade between colours) have finished. */
async function screenshot(page: Page, name: string): Promise<void> {
  await animationsDone(page);
  await saveScreenshot(page, name);
}

/** Waits until no search is in flight. */
async function settled(page: Page): Promise<void> {
  await page.waitForSelector('.suppression-table[aria-busy=false]');
}

const shownEmails = (page: Page) =>
  page.$$eval('[data-testid=suppression-email]', (cells) => cells.map((c) => c.textContent));
const range = (page: Page) => page.textContent('[data-testid=suppression-range]');

/** The customer's whole list as the server holds it, read through the page's own session. */
async function serverList(page: Page): Promise<{ email: string; origin: string }[]> {
  return page.evaluate(async () => {
    const entries: { email: string; origin: string }[] = [];
    for (let n = 1; ; n++) {
      const res = await fetch('/v1/suppression/search', {
        method: 'POST',
        headers: { 'Request-Type': 'ui', 'Content-Type': 'application/json' },
        body: JSON.stringify({ page: n, email: '', suppressed_origin: 'all' }),
      });
      const answer = (await res.json()) as { data: { email: string; origin: string }[]; meta: { last_page: number } };
      entries.push(...answer.data.map(({ email, origin }) => ({ email, origin })));
      if (n >= answer.meta.last_page) return entries;
    }
  });
}

/** Records the bodies of the page's POST /v1/suppression/search calls, with when they left. */
function recordSearches(page: Page): { body: Record<string, unknown>; at: number }[] {
  const seen: { body: Record<string, unknown>; at: number }[] = [];
  page.on('request', (req) => {
    if (req.method() === 'POST' && new URL(req.url()).pathname === '/v1/suppression/search')
      seen.push({ body: req.postDataJSON(), at: Date.now() });
  });
  return seen;
}

describe('Suppression List page', () => {
  it('shows the list newest first with its origins, and pages through it', async () => {
    const { context, page, foreign } = await openList(BROWSER);
    await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Suppression List');
    await expect(page.title()).resolves.toBe('Suppression List · Transactional');
    await expect(page.getAttribute('[data-menu=suppression-list]', 'class')).resolves.toContain('is-active');
    await expect(
      page.$$eval('[data-testid=suppression-table] thead th', (ths) => ths.map((th) => th.textContent)),
    ).resolves.toEqual(['', 'Email', 'Origin', 'Date']);
    expect(await shownEmails(page)).toEqual(NEWEST_FIRST.slice(0, 10));
    const firstRow = page.locator('[data-testid=suppression-row]').first();
    await expect(firstRow.locator('[data-testid=suppression-origin]').textContent()).resolves.toBe('Unsubscribe');
    // 'D MMM YYYY - HH:mm' in UTC (the same in every browser); the date is the seeded one
    await expect(firstRow.locator('time').getAttribute('datetime')).resolves.toBe(SEEDED[11].at);
    await expect(firstRow.locator('time').textContent()).resolves.toBe('1 Mar 2024 - 10:11');
    await expect(range(page)).resolves.toBe('Displaying 1-10 of 12');
    await expect(page.getAttribute('[data-testid=origin-all]', 'aria-pressed')).resolves.toBe('true');
    await screenshot(page, 'suppression-list');

    await page.getByRole('button', { name: 'Page 2' }).click();
    await expect.poll(() => shownEmails(page)).toEqual(NEWEST_FIRST.slice(10));
    await expect(range(page)).resolves.toBe('Displaying 11-12 of 12');
    await page.getByRole('button', { name: 'Previous' }).click();
    await expect.poll(() => shownEmails(page)).toEqual(NEWEST_FIRST.slice(0, 10));
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('filters by origin from page 1, and All shows every origin again', async () => {
    const { context, page } = await openList(BROWSER);
    const searches = recordSearches(page);
    await page.getByRole('button', { name: 'Page 2' }).click();
    await expect.poll(() => shownEmails(page)).toEqual(NEWEST_FIRST.slice(10));

    await page.click('[data-testid=origin-bounce]');
    const bounces = SEEDED.filter((e) => e.origin === 'bounce')
      .reverse()
      .map((e) => e.email);
    await expect.poll(() => shownEmails(page)).toEqual(bounces);
    expect(searches.at(-1)!.body).toEqual({ page: 1, email: '', suppressed_origin: 'bounce' });
    await expect(
      page.$$eval('[data-testid=suppression-origin]', (tags) => [...new Set(tags.map((t) => t.textContent))]),
    ).resolves.toEqual(['Bounce']);
    await expect(page.getAttribute('[data-testid=origin-bounce]', 'aria-pressed')).resolves.toBe('true');
    await expect(page.getAttribute('[data-testid=origin-all]', 'aria-pressed')).resolves.toBe('false');
    await expect(range(page)).resolves.toBe('Displaying 1-4 of 4');
    await screenshot(page, 'suppression-list-bounce');

    await page.click('[data-testid=origin-user]');
    await expect
      .poll(() => shownEmails(page))
      .toEqual(
        SEEDED.filter((e) => e.origin === 'user')
          .reverse()
          .map((e) => e.email),
      );
    await page.click('[data-testid=origin-unsubscribe]');
    await expect
      .poll(() => shownEmails(page))
      .toEqual(
        SEEDED.filter((e) => e.origin === 'unsubscribe')
          .reverse()
          .map((e) => e.email),
      );
    await page.click('[data-testid=origin-all]');
    await expect.poll(() => shownEmails(page)).toEqual(NEWEST_FIRST.slice(0, 10));
    expect(searches.at(-1)!.body).toEqual({ page: 1, email: '', suppressed_origin: 'all' });
    await context.close();
  });

  it(
    'searches by part of the address once typing has paused ' + 'for 1000 ms, and shows No data. when nothing matches',
    async () => {
      const { context, page } = await openList(BROWSER);
      const searches = recordSearches(page);
      // when the box last changed, by the page's clock (the same machine's as ours)
      await page.$eval('[data-testid=suppression-search]', (input) =>
        input.addEventListener('input', () => ((window as unknown as { lastInput: number }).lastInput = Date.now())),
      );
      // keystrokes 150 ms apart: none of them may trigger a search on its own
      await page.locator('[data-testid=suppression-search]').pressSequentially('SON1', { delay: 150 });
      const typed = await page.evaluate(() => (window as unknown as { lastInput: number }).lastInput);
      await expect.poll(() => searches.length, { timeout: 3_000 }).toBe(1);
      expect(searches[0].body).toEqual({ page: 1, email: 'SON1', suppressed_origin: 'all' });
      expect(searches[0].at - typed).toBeGreaterThanOrEqual(950);
      await expect.poll(() => shownEmails(page)).toEqual(['person11@example.org', 'person10@example.org']);
      // one search in all, 950 ms or more after the last keystroke: no keystroke searched on its own
      expect(searches).toHaveLength(1);
      await expect(range(page)).resolves.toBe('Displaying 1-2 of 2');
      await screenshot(page, 'suppression-list-search');

      await page.fill('[data-testid=suppression-search]', 'nobody-here');
      await page.waitForSelector('[data-testid=suppression-empty]');
      await expect(page.textContent('[data-testid=suppression-empty]')).resolves.toBe('No data.');
      await expect(page.locator('[data-testid=suppression-row]').count()).resolves.toBe(0);
      await screenshot(page, 'suppression-list-no-match');
      expect(searches).toHaveLength(2);

      // the origin filter keeps the search text
      await page.fill('[data-testid=suppression-search]', 'person0');
      await expect
        .poll(() => shownEmails(page), { timeout: 3_000 })
        .toEqual(NEWEST_FIRST.filter((e) => e.startsWith('person0')));
      await page.click('[data-testid=origin-bounce]');
      await expect
        .poll(() => shownEmails(page))
        .toEqual(['person07@example.org', 'person04@example.org', 'person01@example.org']);
      await context.close();
    },
  );

  it('deletes exactly one checked row: the other checkboxes are disabled while one is checked', async () => {
    const { context, page } = await openList(EDITOR);
    const checks = page.locator('[data-testid=suppression-check]');
    const deleteButton = page.locator('[data-testid=delete-suppression]');
    await expect(deleteButton.isDisabled()).resolves.toBe(true);

    await checks.nth(1).check();
    await expect(deleteButton.isEnabled()).resolves.toBe(true);
    const states = await checks.evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).disabled));
    expect(states).toEqual(states.map((_, i) => i !== 1));
    await screenshot(page, 'suppression-list-checked');
    await checks.nth(1).uncheck();
    await expect(deleteButton.isDisabled()).resolves.toBe(true);
    await expect(checks.evaluateAll((boxes) => boxes.every((b) => !(b as HTMLInputElement).disabled))).resolves.toBe(
      true,
    );

    const target = NEWEST_FIRST[1];
    await page.getByLabel(`Select ${target}`).check();
    // Delete asks first; Keep it changes nothing
    await deleteButton.click();
    await expect(page.textContent('[data-testid=delete-suppression-question]')).resolves.toBe(
      `Take ${target} off the suppression list? Mail to this address will be sent again.`,
    );
    await checkPage(page, 'suppression-list-delete-confirm', ['[data-testid=delete-suppression-confirm]']);
    await page.click('[data-testid=delete-suppression-modal] button:has-text("Keep it")');
    await page.waitForSelector('[data-testid=delete-suppression-modal]', { state: 'detached' });
    expect(await shownEmails(page)).toContain(target);
    await deleteButton.click();
    await page.click('[data-testid=delete-suppression-confirm]');
    expect(await alertTexts(page, '[data-testid=alert].is-success')).toEqual(['Suppression Deleted Successfully']);
    await expect.poll(() => shownEmails(page)).toEqual(NEWEST_FIRST.filter((e) => e !== target).slice(0, 10));
    await expect(range(page)).resolves.toBe('Displaying 1-10 of 11');
    await expect(
      checks.evaluateAll((boxes) =>
        boxes.every((b) => !(b as HTMLInputElement).checked && !(b as HTMLInputElement).disabled),
      ),
    ).resolves.toBe(true);
    expect((await serverList(page)).map((e) => e.email)).not.toContain(target);
    await screenshot(page, 'suppression-list-deleted');
    await context.close();
  });

  it('adds recipients through the modal, lists the invalid lines, and reloads the list', async () => {
    const { context, page } = await openList(EDITOR);
    // the list is filtered when the add happens: the reload shows it as a fresh page would
    await page.click('[data-testid=origin-bounce]');
    await expect.poll(() => page.getAttribute('[data-testid=origin-bounce]', 'aria-pressed')).toBe('true');
    await settled(page);

    await page.click('[data-testid=add-recipients]');
    const modal = page.locator('[data-testid=add-recipients-modal]');
    await modal.waitFor({ state: 'visible' });
    await expect(modal.locator('.modal-card-title').textContent()).resolves.toBe('Add Recipients');
    await expect(page.locator('[data-testid=add-recipients-submit]').isDisabled()).resolves.toBe(true);
    await page.fill(
      '[data-testid=add-recipients-textarea]',
      '  New.One@Example.COM\n\nnot-an-address\n\nnew-two@example.com\n',
    );
    await page.click('[data-testid=add-recipients-submit]');

    expect(await alertTexts(page, '[data-testid=alert].is-success')).toEqual(['Suppression successfully added.']);
    // the added lines leave the textarea: the refused one stays, alone, by its number there
    await expect(page.inputValue('[data-testid=add-recipients-textarea]')).resolves.toBe('not-an-address');
    await expect(page.textContent('[data-testid=add-recipients-rejected]')).resolves.toBe(
      "Line 1: 'not-an-address' is not a valid email address",
    );
    await expect(page.textContent('[data-testid=add-recipients-summary]')).resolves.toContain(
      '2 addresses added, 0 already on the list',
    );
    await screenshot(page, 'suppression-add-invalid-line');
    await page.click('[data-testid=add-recipients-modal] button:has-text("Cancel")');
    await expect(modal.count()).resolves.toBe(0);

    await expect.poll(() => page.getAttribute('[data-testid=origin-all]', 'aria-pressed')).toBe('true');
    await expect
      .poll(async () => (await shownEmails(page)).slice(0, 2).sort())
      .toEqual(['New.One@example.com', 'new-two@example.com']);
    await expect(
      page.locator('[data-testid=suppression-row]').first().locator('[data-testid=suppression-origin]').textContent(),
    ).resolves.toBe('User');
    const stored = await serverList(page);
    expect(stored.filter((e) => e.email.startsWith('New.One') || e.email.startsWith('new-two'))).toEqual(
      expect.arrayContaining([
        { email: 'New.One@example.com', origin: 'user' },
        { email: 'new-two@example.com', origin: 'user' },
      ]),
    );

    // every line valid: the modal closes by itself
    await page.click('[data-testid=add-recipients]');
    await page.fill('[data-testid=add-recipients-textarea]', 'third@example.com\nnew-two@example.com');
    await page.click('[data-testid=add-recipients-submit]');
    await modal.waitFor({ state: 'detached' });
    // the list reloads after the modal closed: a bound for a loaded machine, the wait ends with the row
    await expect.poll(() => shownEmails(page), { timeout: 30_000 }).toContain('third@example.com');
    await context.close();
  });

  it('shows the server message when no line is a valid address, and keeps the modal open', async () => {
    const { context, page } = await openList(EDITOR);
    const before = await serverList(page);
    await page.click('[data-testid=add-recipients]');
    await page.fill('[data-testid=add-recipients-textarea]', 'first wrong\nsecond@wrong');
    await page.click('[data-testid=add-recipients-submit]');
    expect(await alertTexts(page, '[data-testid=alert].is-danger')).toEqual([
      "No address was added: 'first wrong' is not a valid email address (and 1 more invalid line)",
    ]);
    await expect(page.textContent('[data-testid=add-recipients-error]')).resolves.toContain('No address was added');
    await expect(
      page.$$eval('[data-testid=add-recipients-rejected] li', (lis) => lis.map((li) => li.textContent)),
    ).resolves.toEqual([
      "Line 1: 'first wrong' is not a valid email address",
      "Line 2: 'second@wrong' is not a valid email address",
    ]);
    await screenshot(page, 'suppression-add-failed');
    expect(await serverList(page)).toEqual(before);
    await context.close();
  });

  it('shows No data. for an empty list', async () => {
    const { context, page } = await openList(EMPTY);
    await expect(page.textContent('[data-testid=suppression-empty]')).resolves.toBe('No data.');
    // nothing to page through: no range text, no pager
    await expect(page.locator('[data-testid=suppression-range]').count()).resolves.toBe(0);
    await expect(page.locator('.pagination').count()).resolves.toBe(0);
    await screenshot(page, 'suppression-list-empty');
    await context.close();
  });

  it('sends a user who may not send transactions to the dashboard, without a Suppression List entry', async () => {
    const opened = await openPage(browser, server.baseUrl);
    await signInThroughForm(opened.page, server.baseUrl, VIEWER, PASSWORD);
    await opened.page.goto(`${server.baseUrl}/suppression-list`);
    expect(location(opened.page)).toBe('/');
    await expect(opened.page.locator('[data-menu=suppression-list]').count()).resolves.toBe(0);
    await opened.context.close();
  });
});
