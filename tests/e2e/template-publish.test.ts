// The template editor and list in Chromium against the built service: publishing an empty template is
// refused at each field (and nothing is published); a draft whose HTML does not compile is saved,
// its error shown beside the editor with the line marked in CodeMirror's gutter; the HTML field is
// a plain textarea until CodeMirror arrives and CodeMirror takes over its text; the from domain
// ('demo-shop.example') is not cut off at 1440, 768 or 390 px; the Templates list shows the same
// first rows with JavaScript off and on, with no hydration error. axe and screenshots via checkPage.
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  animationsDone,
  hydrated,
  launchBrowser,
  openPage,
  screenshot,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { checkPage, expectFitsViewport, expectShown, VIEWPORTS } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';

const EMAIL = 'publisher@template-publish.test';
const PASSWORD = 'template-publish-password-1';
const DOMAIN = 'demo-shop.example';
const EMPTY_EMAIL = 'empty@template-publish.test';

let server: RunningServer;
let browser: Browser;
let tab: TestPage;
const pageErrors: string[] = [];

beforeAll(async () => {
  server = await prepareServer();
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Publish Enterprise'),
    'enterprise',
  );
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Publish Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Publish Customer',
    '--email',
    EMAIL,
    '--name',
    'Publisher',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', DOMAIN, '--customer', 'Publish Customer', '--verified');
  // a second account that has no templates
  const empty = createdId(await server.admin('enterprise', 'create', '--name', 'Empty Enterprise'), 'enterprise');
  await server.admin('customer', 'create', '--enterprise', String(empty), '--name', 'Empty Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Empty Customer',
    '--email',
    EMPTY_EMAIL,
    '--name',
    'Empty',
    '--password',
    PASSWORD,
  );
  await server.start();
  browser = await launchBrowser();
  tab = await openPage(browser, server.baseUrl);
  tab.page.on('pageerror', (e) => pageErrors.push(e.message));
  tab.page.on('console', (m) => m.type() === 'error' && pageErrors.push(m.text()));
  await signInThroughForm(tab.page, server.baseUrl, EMAIL, PASSWORD);
}, 400_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** A console call from the signed-in browser context (its session cookie, the console's headers). */
async function consoleCall<T>(
  method: 'POST' | 'PUT',
  path: string,
  body: unknown,
): Promise<{ status: number; body: T }> {
  const res = await tab.context.request.fetch(`${server.baseUrl}${path}`, {
    method,
    data: body,
    headers: { 'Request-Type': 'ui', Origin: server.baseUrl },
  });
  return { status: res.status(), body: (await res.json()) as T };
}

async function atSizes(
  page: Page,
  name: string,
  controls: readonly string[],
  sizes: readonly (readonly ['1440' | '768' | '390', { readonly width: number; readonly height: number }])[],
) {
  try {
    for (const [label, size] of sizes) {
      await page.setViewportSize(size);
      await animationsDone(page);
      await checkPage(page, `${name}-${label}`, controls);
    }
  } finally {
    await page.setViewportSize(VIEWPORTS.desktop);
  }
}
const DESKTOP_AND_PHONE = [
  ['1440', VIEWPORTS.desktop],
  ['390', VIEWPORTS.phone],
] as const;
const ALL_SIZES = [
  ['1440', VIEWPORTS.desktop],
  ['768', VIEWPORTS.tablet],
  ['390', VIEWPORTS.phone],
] as const;

/**
 * checkPage without axe, for a page with JavaScript off: axe runs as script in the page, which such
 * a context refuses (it waits for ever). The same page with JavaScript on gets the whole checkPage.
 */
async function checkWithoutScript(page: Page, name: string, controls: readonly string[]) {
  await screenshot(page, name);
  await expectFitsViewport(page, name);
  await expectShown(page, name, controls);
}

async function openBlankEditor() {
  await tab.page.goto(`${server.baseUrl}/templates/create/new`);
  await hydrated(tab.page, '[data-testid=template-editor]');
}

describe('Publish needs a name, a from address and a subject', () => {
  it('publishing an empty template is refused at each field; nothing is published', async () => {
    await openBlankEditor();
    await tab.page.fill('[data-testid=field-name]', '');
    await tab.page.click('[data-testid=publish]');
    await tab.page.waitForSelector('[data-testid=error-name]');
    expect(await tab.page.textContent('[data-testid=error-name]')).toBe('Give the template a name to publish it');
    expect(await tab.page.textContent('[data-testid=error-from-email]')).toBe(
      'Choose a from address at one of your verified domains',
    );
    expect(await tab.page.textContent('[data-testid=error-subject]')).toBe('Give the template a subject to publish it');
    expect(await tab.page.getAttribute('[data-testid=field-name]', 'aria-invalid')).toBe('true');
    expect(new URL(tab.page.url()).pathname).toBe('/templates/create/new');
    await atSizes(
      tab.page,
      'template-publish-refused',
      ['[data-testid=error-name]', '[data-testid=error-subject]', '[data-testid=publish]'],
      DESKTOP_AND_PHONE,
    );
    const { body } = await consoleCall<{ meta: { total: number } }>('POST', '/v1/templates/search', { page: 1 });
    expect(body.meta.total).toBe(0);

    // filled in, the same template publishes and goes back to the list
    await tab.page.fill('[data-testid=field-name]', 'Order receipt');
    expect(await tab.page.$('[data-testid=error-name]')).toBeNull();
    await tab.page.fill('[data-testid=from-local]', 'orders');
    await tab.page.fill('[data-testid=field-subject]', 'Your receipt');
    await tab.page.click('[data-testid=publish]');
    await tab.page.waitForURL(`${server.baseUrl}/templates`, { timeout: 15_000 });
    await tab.page.waitForSelector('[data-testid=template-row]:has-text("Order receipt")');
  });

  it('the server refuses the same publish from an API call (422 naming the fields)', async () => {
    const { status, body } = await consoleCall<{ error: { details: { path: string }[] } }>('POST', '/v1/templates', {
      name: '',
      content_html: '<p>x</p>',
      status: 'published',
    });
    expect(status).toBe(422);
    expect(body.error.details.map((d) => d.path)).toEqual(['name', 'from_email', 'subject']);
  });
});

describe('drafts that do not compile', () => {
  it('Save keeps the draft; the whole error is shown beside the editor and its line is marked', async () => {
    await openBlankEditor();
    await tab.page.waitForSelector('[data-testid=code-editor][data-ready=yes]');
    await tab.page.fill('[data-testid=field-name]', 'Half done');
    await tab.page.click('.cm-content');
    await tab.page.keyboard.insertText('<p>Hello</p>\n<p>{{first_name}</p>\n<p>Bye</p>');
    const error = await tab.page.waitForSelector('[data-testid=error-html]', { timeout: 15_000 });
    expect(await error.textContent()).toMatch(
      /^The HTML does not compile \(line 2, column 16: parse error: expecting .*'CLOSE'.*, got 'INVALID'\)/,
    );
    // the lint gutter marks line 2, and the text from the column to the line's end
    await tab.page.waitForSelector('.cm-gutter-lint .cm-lint-marker-error');
    expect(await tab.page.textContent('.cm-lintRange-error')).toBe('}</p>');

    await tab.page.click('[data-testid=save]');
    await tab.page.waitForSelector('text=Save complete', { timeout: 10_000 });
    await tab.page.waitForFunction(() => window.location.pathname.startsWith('/templates/edit/'));
    expect(await tab.page.textContent('[data-testid=template-status]')).toBe('Draft');
    expect(await tab.page.$('[data-testid=error-html]')).not.toBeNull();
    await atSizes(
      tab.page,
      'template-compile-error',
      ['[data-testid=error-html]', '[data-testid=code-editor]', '[data-testid=save]'],
      DESKTOP_AND_PHONE,
    );

    // reloaded, the draft is there as typed, its error shown again
    await tab.page.reload();
    await hydrated(tab.page, '[data-testid=template-editor]');
    await tab.page.waitForSelector('[data-testid=error-html]', { timeout: 15_000 });
    await tab.page.waitForSelector('[data-testid=code-editor][data-ready=yes]');
    expect(await tab.page.textContent('.cm-content')).toContain('{{first_name}</p>');
  });
});

describe('the HTML field before CodeMirror', () => {
  it('is a plain textarea, usable at once; CodeMirror, loaded after the first paint, takes over its text', async () => {
    // hold CodeMirror's chunks until the textarea has been used
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const held = async (route: Route) => {
      const response = await route.fetch();
      const body = await response.text();
      if (body.includes('.cm-content')) await released;
      await route.fulfill({ response, body });
    };
    await tab.page.route('**/_astro/*.js', held);
    try {
      await openBlankEditor();
      const plain = await tab.page.waitForSelector('[data-testid=code-editor-plain]');
      expect(await tab.page.getAttribute('[data-testid=code-editor]', 'data-ready')).toBe('no');
      await plain.fill('<p>Typed early</p>\n{{#if}}');
      // the compile error names its line while there is no gutter to mark it
      await tab.page.waitForSelector('[data-testid=error-html]:has-text("line 2")', { timeout: 15_000 });
      await atSizes(
        tab.page,
        'template-editor-plain',
        ['[data-testid=code-editor-plain]', '[data-testid=error-html]'],
        DESKTOP_AND_PHONE,
      );
      release();
      await tab.page.waitForSelector('[data-testid=code-editor][data-ready=yes]', { timeout: 15_000 });
      expect(await tab.page.$('[data-testid=code-editor-plain]')).toBeNull();
      expect(await tab.page.textContent('.cm-content')).toBe('<p>Typed early</p>{{#if}}');
      await tab.page.waitForSelector('.cm-gutter-lint .cm-lint-marker-error');
    } finally {
      release();
      await tab.page.unroute('**/_astro/*.js', held);
    }
  });
});

describe('the from domain', () => {
  it(`shows '${DOMAIN}' whole at 1440, 768 and 390`, async () => {
    await openBlankEditor();
    await tab.page.fill('[data-testid=from-local]', 'hello');
    try {
      for (const [label, size] of ALL_SIZES) {
        await tab.page.setViewportSize(size);
        await animationsDone(tab.page);
        // the option's text, in the select's font, fits inside the select between its paddings
        const fit = await tab.page.$eval('[data-testid=from-domain]', (el) => {
          const select = el as HTMLSelectElement;
          const style = getComputedStyle(select);
          const context = document.createElement('canvas').getContext('2d')!;
          context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
          const text = context.measureText(select.selectedOptions[0].text).width;
          return {
            text,
            room: select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight),
            value: select.value,
          };
        });
        expect(fit.value).toBe(DOMAIN);
        expect(fit.text, `at ${label}`).toBeLessThanOrEqual(fit.room);
        await checkPage(tab.page, `template-from-domain-${label}`, [
          '[data-testid=from-local]',
          '[data-testid=from-domain]',
        ]);
      }
    } finally {
      await tab.page.setViewportSize(VIEWPORTS.desktop);
    }
  }, 120_000);
});

describe('the Templates list rendered on the server', () => {
  it('shows the same first page with JavaScript off and on, without a hydration error', async () => {
    // 12 templates: the first page holds 10 of them, sorted by description, DESC
    for (let i = 0; i < 11; i++) {
      const { status } = await consoleCall('POST', '/v1/templates', {
        name: `Template ${String(i).padStart(2, '0')}`,
        description: `d${String(i).padStart(2, '0')}`,
        content_html: '<p>Hi</p>',
      });
      expect(status).toBe(201);
    }
    const { body } = await consoleCall<{ data: { name: string }[] }>('POST', '/v1/templates/search', { page: 1 });
    const expected = body.data.map((t) => t.name);
    expect(expected).toHaveLength(10);
    const rowNames = (page: Page) =>
      page.$$eval('[data-testid=template-row] [data-testid=template-name]', (cells) => cells.map((c) => c.textContent));

    // openPage: the same signed-in storage, and requests to other sites aborted (nothing external loads)
    const { context: noScript, page } = await openPage(browser, server.baseUrl, {
      storageState: await tab.context.storageState(),
      javaScriptEnabled: false,
      viewport: VIEWPORTS.desktop,
    });
    try {
      await page.goto(`${server.baseUrl}/templates`);
      expect(await rowNames(page)).toEqual(expected);
      await checkWithoutScript(page, 'templates-list-no-js-1440', ['[data-testid=template-table]']);
      await page.setViewportSize(VIEWPORTS.phone);
      await checkWithoutScript(page, 'templates-list-no-js-390', ['[data-testid=template-table]']);
    } finally {
      await noScript.close();
    }

    pageErrors.length = 0;
    await tab.page.goto(`${server.baseUrl}/templates`);
    // before and after the island takes over: the same rows
    expect(await rowNames(tab.page)).toEqual(expected);
    await hydrated(tab.page, '[data-testid=template-table]');
    await tab.page.waitForSelector('[data-testid=template-preview-panel] [data-testid=template-preview]');
    expect(await rowNames(tab.page)).toEqual(expected);
    expect(pageErrors.filter((e) => /#418|hydrat/i.test(e))).toEqual([]);
    // the island has it: sorting asks the server for the next order
    const byName = (
      await consoleCall<{ data: { name: string }[] }>('POST', '/v1/templates/search', { sort: 'name', page: 1 })
    ).body.data.map((t) => t.name);
    await tab.page.click('[data-testid=sort-name] button');
    await tab.page.waitForFunction(
      (first) =>
        document.querySelector('[data-testid=template-row] [data-testid=template-name]')?.textContent === first,
      byName[0],
    );
    expect(await rowNames(tab.page)).toEqual(byName);
    await atSizes(tab.page, 'templates-list-ssr', ['[data-testid=template-table]'], DESKTOP_AND_PHONE);
  }, 180_000);

  it('an empty list says so without JavaScript', async () => {
    const { context: other, page } = await openPage(browser, server.baseUrl, {
      javaScriptEnabled: false,
      viewport: VIEWPORTS.desktop,
    });
    try {
      // the account with no templates, signed in through the API (the context keeps its cookie)
      const login = await other.request.post(`${server.baseUrl}/v1/auth/login`, {
        data: { email: EMPTY_EMAIL, password: PASSWORD },
        headers: { 'Request-Type': 'ui', Origin: server.baseUrl },
      });
      expect(login.status()).toBe(200);
      await page.goto(`${server.baseUrl}/templates`);
      expect(await page.textContent('[data-testid=template-empty]')).toBe('No templates found');
      await checkWithoutScript(page, 'templates-empty-no-js-1440', ['[data-testid=template-empty]']);
    } finally {
      await other.close();
    }
  });
});
