// Templates in Chromium against the built service (docs/console-reports.md §2 "Templates", Select Template,
// the editor; §4, §8): the empty list → Select Template with both tabs → a gallery
// template in the editor → Save (the address becomes the edit form's) → Publish (back to the list
// after 1 s) → send it by id with the API key → the rendered message arrives at the SMTP sink.
// The preview frame never runs a template's script or javascript: link. Each page gets checkPage
// at 1440×900, 768×1024 and 390×844.
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOTS,
  animationsDone,
  hydrated,
  launchBrowser,
  location,
  openPage,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { checkPage, expectAccessible, VIEWPORTS } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const EMAIL = 'author@templates.test';
const PASSWORD = 'templates-password-123';

let server: RunningServer;
let sink: SmtpSink;
let browser: Browser;
let tab: TestPage;
let apiKey = '';

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await prepareServer({ SMTP_RELAY_URL: sink.url });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Template Enterprise'),
    'enterprise',
  );
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Template Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Template Customer',
    '--email',
    EMAIL,
    '--name',
    'Author',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', 'templates.example', '--customer', 'Template Customer', '--verified');
  const creds = await server.admin('credentials', 'show', '--customer', 'Template Customer');
  apiKey = /api key:\s+(\S+)/.exec(creds)![1];
  await server.start();
  browser = await launchBrowser();
  tab = await openPage(browser, server.baseUrl);
  tab.page.on('console', (m) => process.env.DEBUG_E2E && console.log('browser:', m.type(), m.text()));
  tab.page.on('pageerror', (e) => process.env.DEBUG_E2E && console.log('pageerror:', e.message));
  await signInThroughForm(tab.page, server.baseUrl, EMAIL, PASSWORD);
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
});

/** checkPage at 1440×900, 768×1024 and 390×844 (the responsive shell: burger under 1024 px). */
async function allSizes(page: Page, name: string, controls: readonly string[]) {
  try {
    for (const [label, size] of [
      ['1440', VIEWPORTS.desktop],
      ['768', VIEWPORTS.tablet],
      ['390', VIEWPORTS.phone],
    ] as const) {
      await page.setViewportSize(size);
      // the shell's side menu animates on a resize; look at the page once it has settled
      await animationsDone(page);
      await checkPage(page, `${name}-${label}`, controls);
    }
  } finally {
    await page.setViewportSize(VIEWPORTS.desktop);
  }
}

const LIST_CONTROLS = [
  '[data-testid=page-title]',
  '[data-testid=create-template]',
  '[data-testid=template-search]',
  '[data-testid=delete-template]',
];
const PICKER_CONTROLS = [
  '[data-testid=page-title]',
  '[data-testid=tab-user]',
  '[data-testid=tab-system]',
  '[data-testid=picker-search]',
];
const EDITOR_CONTROLS = [
  '[data-testid=field-name]',
  '[data-testid=from-local]',
  '[data-testid=field-subject]',
  '[data-testid=code-editor]',
  '[data-testid=template-preview]',
  '[data-testid=save]',
  '[data-testid=publish]',
];

describe('templates, from the gallery to a delivered message', () => {
  let templateId = '';

  it("shows 'No templates found' on an empty list", async () => {
    await tab.page.goto(`${server.baseUrl}/templates`);
    expect(await tab.page.textContent('[data-testid=page-title]')).toBe('Templates');
    await hydrated(tab.page, '[data-testid=template-table]');
    await tab.page.waitForSelector('[data-testid=template-empty]:has-text("No templates found")');
    await allSizes(tab.page, 'templates-empty', LIST_CONTROLS);
  });

  it(
    'Select Template: Blank Template first, My Templates ' + 'empty, the gallery with eight templates and search',
    async () => {
      await tab.page.click('[data-testid=create-template]');
      await tab.page.waitForURL('**/templates/create');
      expect(await tab.page.textContent('[data-testid=page-title]')).toBe('Select Template');
      await hydrated(tab.page, '[data-testid=template-cards]');
      const first = await tab.page.$('[data-testid=template-cards] > :first-child');
      expect(await first?.textContent()).toContain('Blank Template');
      expect(await (await first!.$('a'))!.getAttribute('href')).toBe('/templates/create/new');
      await allSizes(tab.page, 'templates-mine', PICKER_CONTROLS);
      await tab.page.click('[data-testid=tab-system]');
      await tab.page.waitForFunction(() => document.querySelectorAll('[data-testid=template-card]').length >= 8);
      await allSizes(tab.page, 'templates-gallery', PICKER_CONTROLS);
      // the fragment names the tab: the gallery's address, opened afresh, opens the gallery
      expect(new URL(tab.page.url()).hash).toBe('#system');
      await tab.page.goto(`${server.baseUrl}/templates`);
      await tab.page.goto(`${server.baseUrl}/templates/create#system`);
      await hydrated(tab.page, '[data-testid=template-cards]');
      await tab.page.waitForSelector('[data-testid=tab-system][aria-selected=true]');
      await tab.page.waitForFunction(() => document.querySelectorAll('[data-testid=template-card]').length >= 8);
      await tab.page.fill('[data-testid=picker-search]', 'welcome');
      await tab.page.waitForFunction(() => document.querySelectorAll('[data-testid=template-card]').length === 1);
      await tab.page.click('[data-testid=template-card] a');
      await tab.page.waitForURL('**/templates/create/*');
    },
  );

  it('the editor: a copy of the gallery template, the reply-to rules, the live preview', async () => {
    await hydrated(tab.page, '[data-testid=template-editor]');
    await tab.page.waitForSelector('[data-testid=code-editor][data-ready=yes]');
    expect(await tab.page.inputValue('[data-testid=field-name]')).toBe('Welcome');
    await tab.page.fill('[data-testid=field-name]', 'Our welcome');
    await tab.page.fill('[data-testid=from-local]', 'hello');
    expect(await tab.page.inputValue('[data-testid=field-reply-email]')).toBe('hello@templates.example');
    await tab.page.check('[data-testid=different-reply-to]');
    await tab.page.fill('[data-testid=field-reply-email]', 'help@templates.example');
    await tab.page.fill('[data-testid=from-local]', 'team');
    expect(await tab.page.inputValue('[data-testid=field-reply-email]')).toBe('help@templates.example');
    // the preview frame renders the gallery HTML with sample values
    const frame = await (await tab.page.waitForSelector('[data-testid=template-preview]')).contentFrame();
    await frame!.waitForSelector('text=Go to your account');
  });

  it('the editor fits desktop, tablet and phone', async () => {
    await allSizes(tab.page, 'templates-editor', EDITOR_CONTROLS);
    // a full-page capture leaves a frame below the first screen blank: the preview, scrolled to, on a phone
    try {
      await tab.page.setViewportSize(VIEWPORTS.phone);
      await animationsDone(tab.page);
      await tab.page.locator('[data-testid=template-preview]').scrollIntoViewIfNeeded();
      const frame = await (await tab.page.waitForSelector('[data-testid=template-preview]')).contentFrame();
      await frame!.waitForSelector('text=Go to your account');
      await tab.page.screenshot({ path: path.join(SCREENSHOTS, 'templates-editor-390-preview.png') });
    } finally {
      await tab.page.setViewportSize(VIEWPORTS.desktop);
    }
  }, 120_000);

  it('Save shows Save complete and moves to the edit address', async () => {
    await tab.page.click('[data-testid=save]');
    await tab.page.waitForSelector('text=Save complete', { timeout: 10_000 });
    await tab.page.waitForFunction(() => window.location.pathname.startsWith('/templates/edit/'), undefined, {
      timeout: 5_000,
    });
    templateId = location(tab.page).split('/').pop()!;
    expect(await tab.page.textContent('[data-testid=template-status]')).toBe('Draft');
  });

  it('Publish saves with status published and returns to the list after 1 s', async () => {
    await tab.page.click('[data-testid=publish]');
    const clicked = Date.now();
    await tab.page.waitForSelector('text=Save complete', { timeout: 10_000 });
    await tab.page.waitForURL(`${server.baseUrl}/templates`, { timeout: 10_000 });
    expect(Date.now() - clicked).toBeGreaterThanOrEqual(900);
    await hydrated(tab.page, '[data-testid=template-table]');
    await tab.page.waitForSelector('[data-testid=template-row]:has-text("Our welcome")');
    const frame = await (
      await tab.page.waitForSelector('[data-testid=template-preview-panel] [data-testid=template-preview]')
    ).contentFrame();
    await frame!.waitForSelector('text=Go to your account');
    expect(await tab.page.getAttribute('[data-testid=preview-recreate]', 'href')).toBe(
      `/templates/create/${templateId}`,
    );
    await allSizes(tab.page, 'templates-list', [
      ...LIST_CONTROLS,
      '[data-testid=template-table]',
      '[data-testid=template-preview-panel]',
    ]);
  });

  it('sends by template id with the API key; the rendered message arrives at the sink', async () => {
    const before = sink.messages.length;
    const res = await fetch(`${server.baseUrl}/v1/mail`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        to: 'ann@customer.example',
        template_id: templateId,
        variables: {
          first_name: 'Ann',
          company_name: 'Acme',
          company_address: '1 Road',
          email: 'ann@customer.example',
          action_url: 'https://acme.example/a',
        },
      }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const [message] = (await sink.waitFor(before + 1, 30_000)).slice(before);
    const mail = await simpleParser(message.raw);
    expect(mail.subject).toBe('Welcome to Acme, Ann');
    expect(mail.from?.value[0].address).toBe('team@templates.example');
    expect(mail.replyTo?.value[0].address).toBe('help@templates.example');
    expect(mail.html).toContain('Welcome, Ann');
    // the link is the click-tracking one (the account tracks clicks by default)
    expect(mail.text).toMatch(/Go to your account: http:\/\/\S+\/t\/c\//);
  });

  it("Re-create opens a draft '{name} (Copy)'", async () => {
    await tab.page.click('[data-testid=preview-recreate]');
    await hydrated(tab.page, '[data-testid=template-editor]');
    await tab.page.waitForSelector('[data-testid=code-editor][data-ready=yes]');
    expect(await tab.page.inputValue('[data-testid=field-name]')).toBe('Our welcome (Copy)');
    expect(await tab.page.textContent('[data-testid=template-status]')).toBe('Draft');
  });

  it('writes only what is typed (no closing tag of its own), and passes axe with the active line', async () => {
    await tab.page.goto(`${server.baseUrl}/templates/create/new`);
    await hydrated(tab.page, '[data-testid=template-editor]');
    await tab.page.waitForSelector('[data-testid=code-editor][data-ready=yes]');
    await tab.page.click('.cm-content');
    await tab.page.keyboard.press('ControlOrMeta+a');
    await tab.page.keyboard.press('Delete');
    const typed = '<h1>Thanks {{name}}</h1><p>Your order is on its way.</p>';
    await tab.page.keyboard.type(typed);
    await expect.poll(() => tab.page.evaluate(() => document.querySelector('.cm-content')?.textContent)).toBe(typed);
    await expectAccessible(tab.page, 'template editor, typing');
  });

  it('the preview frame never runs a template’s script or javascript: link', async () => {
    await tab.page.goto(`${server.baseUrl}/templates/create/new`);
    await hydrated(tab.page, '[data-testid=template-editor]');
    await tab.page.waitForSelector('[data-testid=code-editor][data-ready=yes]');
    await tab.page.click('.cm-content');
    const evil =
      '<p id="x">Hi</p><script>document.body.setAttribute("data-ran","yes");' +
      'try{parent.document.body.setAttribute("data-ran","yes")}catch(e){}</script>' +
      '<img src="x" onerror="document.body.setAttribute(\'data-ran\',\'img\')">' +
      '<a id="js" href="javascript:document.body.setAttribute(\'data-ran\',\'link\')">click</a>';
    await tab.page.keyboard.insertText(evil);
    const element = await tab.page.waitForSelector('[data-testid=template-preview]');
    expect(await element.getAttribute('sandbox')).toBe('');
    const frame = await element.contentFrame();
    await frame!.waitForSelector('#x', { timeout: 10_000 });
    await frame!.click('#js').catch(() => undefined);
    // a javascript: URL would run in a task the click queued: two frames later it has had its turn
    await animationsDone(tab.page);
    expect(await frame!.evaluate(() => document.body.getAttribute('data-ran'))).toBeNull();
    expect(await tab.page.evaluate(() => document.body.getAttribute('data-ran'))).toBeNull();
    expect(
      await frame!.evaluate(() =>
        document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content'),
      ),
    ).toMatch(/default-src 'none'/);
  });

  it('deletes the one checked template: Template deleted successfully', async () => {
    await tab.page.goto(`${server.baseUrl}/templates`);
    await hydrated(tab.page, '[data-testid=template-table]');
    await tab.page.check('[data-testid=template-row]:has-text("Our welcome") [data-testid=template-check]');
    await tab.page.click('[data-testid=delete-template]');
    await tab.page.waitForSelector(':text("Template deleted successfully")');
    await tab.page.waitForSelector('[data-testid=template-empty]:has-text("No templates found")');
  });
});
