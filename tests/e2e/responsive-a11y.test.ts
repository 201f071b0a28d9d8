// Every existing page at desktop, tablet and phone size: no sideways scrolling of the
// document, the page's main controls shown, no serious or critical axe-core violation, and a
// screenshot test-results/a11y-<page>-<viewport>.png to look at; then the off-canvas menu behind the
// burger (mouse, keyboard, Escape, a link) and the desktop side menu's collapse toggle. Data comes
// from `npm run demo` (a small run) and a customer that is still getting started, whose domain
// verification mail the local SMTP sink catches for the public /verify-domain page.
import { simpleParser } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chartsDrawn,
  PARENT,
  hydrated,
  hydratedInView,
  launchBrowser,
  location,
  openPage,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { createExpiredLink } from '../helpers/expired-link.ts';
import { VIEWPORTS, checkPage } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';

const DEMO_EMAIL = 'demo@demo-shop.example';
const NEWCOMER = { email: 'owner@acme-shop.test', password: 'owner-password-123' };
const NEW_DOMAIN = 'acme-shop.example';
/** A customer that has sent one message: its overview chart's y-axis must still count in whole numbers. */
const SOLO = {
  email: 'solo@solo-shop.test',
  password: 'solo-password-123',
  customer: 'Solo Shop',
  domain: 'solo-shop.example',
};

let server: RunningServer;
let sink: SmtpSink;
let receiver: WebhookReceiver;
let browser: Browser;
/** Signed in to the demo account (dashboard with data). */
let demo: TestPage;
/** Signed in as an administrator of a customer without a verified domain (getting started, top navigation). */
let newcomer: TestPage;
/** No session: the public pages. */
let visitor: TestPage;
let demoDomainId = 0;
let transactionUuid = '';
let verifyLink = '';
/**
 * The demo's online attachment links: one to list, edit and open, one expired, one downloaded to its limit.
 */
let attachmentId = 0;
const publicLinks = { normal: '', expired: '', exhausted: '' };

interface AttachmentGroup {
  id: number;
  preview_link: string;
  assets: { id: number }[];
}

/**
 * Creates an online attachment link with one small file, as the editor's first upload does (multipart 'group' then
 * 'asset').
 */
function createAttachment(
  page: Page,
  name: string,
  options: { expiry_timestamp?: number; access_limit?: number },
): Promise<AttachmentGroup> {
  return page.evaluate(
    async ({ name, options }) => {
      const form = new FormData();
      form.append('group', JSON.stringify({ name, options }));
      form.append('asset', new Blob(['quarterly figures\n'], { type: 'text/plain' }), 'report-q1.txt');
      const res = await fetch('/v1/tracked-attachments/groups', {
        method: 'POST',
        headers: { 'Request-Type': 'ui' },
        body: form,
      });
      if (res.status !== 201) throw new Error(`POST groups: ${res.status} ${await res.text()}`);
      return res.json();
    },
    { name, options },
  );
}

/** A console call from a signed-in page, as its islands make them. */
function api<T>(page: Page, method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const res = await fetch(path, {
        method,
        headers: { 'Request-Type': 'ui', 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    { method, path, body },
  );
}

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = await startWebhookReceiver();
  // the webhook's test event goes to the local receiver, which is on a loopback address
  server = await prepareServer({
    SMTP_RELAY_URL: sink.url,
    SYSTEM_FROM: 'Transact <no-reply@transact.test>',
    SMTP_ALLOW_INSECURE_AUTH: 'true',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  });
  const out = await server.admin('demo', '--transactions', '300');
  const demoPassword = /password:\s+(\S+)/.exec(out)?.[1];
  if (!demoPassword) throw new Error(`no password in the demo's output:\n${out}`);
  // an enterprise with a parent platform and a logo, so the header carries the top navigation
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
  await server.admin(
    'customer',
    'create',
    '--enterprise',
    String(acme),
    '--name',
    'Acme Shop With A Rather Long Customer Name',
  );
  await server.admin(
    'user',
    'create',
    '--customer',
    'Acme Shop With A Rather Long Customer Name',
    '--email',
    NEWCOMER.email,
    '--name',
    'Olivia Owner',
    '--password',
    NEWCOMER.password,
    '--admin',
  );
  await server.admin('customer', 'create', '--enterprise', String(acme), '--name', SOLO.customer);
  await server.admin(
    'user',
    'create',
    '--customer',
    SOLO.customer,
    '--email',
    SOLO.email,
    '--name',
    'Solo Sender',
    '--password',
    SOLO.password,
  );
  await server.admin('domain', 'add', SOLO.domain, '--customer', SOLO.customer, '--verified');
  const soloKey = /api key:\s+(\S+)/.exec(await server.admin('credentials', 'show', '--customer', SOLO.customer))![1];
  await server.start();
  browser = await launchBrowser();

  demo = await openPage(browser, server.baseUrl);
  await signInThroughForm(demo.page, server.baseUrl, DEMO_EMAIL, demoPassword);
  const { domains } = await api<{ domains: { domain_id: number }[] }>(demo.page, 'GET', '/v1/domains');
  demoDomainId = domains[0].domain_id;
  // a webhook with one logged request (its test event) for /settings and /webhook-logs
  await api(demo.page, 'POST', '/v1/webhooks', {
    url: `${receiver.url}/hook`,
    verb: 'post',
    status: 'enabled',
    auth_type: null,
    event_types: ['sent', 'bounce'],
    field_set: 'standard',
  });
  await api(demo.page, 'POST', '/v1/webhooks/test');
  // online attachment links: a normal one, an expired one (made to expire shortly, then waited out),
  // one whose single download is used up
  const normal = await createAttachment(demo.page, 'Quarterly reports for the board meeting', { access_limit: 5 });
  attachmentId = normal.id;
  publicLinks.normal = normal.preview_link;
  publicLinks.expired = (
    await createExpiredLink((expiry_timestamp) => createAttachment(demo.page, 'Last year', { expiry_timestamp }))
  ).preview_link;
  const exhausted = await createAttachment(demo.page, 'Once only', { access_limit: 1 });
  publicLinks.exhausted = exhausted.preview_link;
  const download = await fetch(`${exhausted.preview_link}/files/${exhausted.assets[0].id}`, { method: 'POST' });
  if (!download.ok) throw new Error(`download: ${download.status}`);
  await download.arrayBuffer();

  newcomer = await openPage(browser, server.baseUrl);
  await signInThroughForm(newcomer.page, server.baseUrl, NEWCOMER.email, NEWCOMER.password);
  await api(newcomer.page, 'POST', '/v1/domains', {
    domain_url: NEW_DOMAIN,
    domain_verification_email: `postmaster@${NEW_DOMAIN}`,
  });
  const [mail] = await sink.waitFor(1, 30_000);
  verifyLink = /https?:\/\/\S+\/verify-domain\/\d+\/[\w-]+/.exec((await simpleParser(mail.raw)).text ?? '')?.[0] ?? '';
  if (!verifyLink) throw new Error('no verification link in the mail');

  const sent = await fetch(`${server.baseUrl}/v1/mail`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${soloKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: `Solo <hi@${SOLO.domain}>`,
      to: 'one@people.example',
      subject: 'The only one',
      html: '<p>Hello</p>',
      group: 'Solo',
    }),
  });
  if (sent.status !== 202) throw new Error(`POST /v1/mail: ${sent.status} ${await sent.text()}`);

  visitor = await openPage(browser, server.baseUrl);
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
  await receiver?.close();
});

async function openDashboard(page: Page): Promise<void> {
  await page.goto(`${server.baseUrl}/`);
  await hydratedInView(page, '[data-testid=transaction-table]');
  await page.waitForSelector('[data-testid=transaction-table][aria-busy=false] [data-testid=transaction-row]');
  await page.waitForSelector('[data-testid=overview-chart][data-drawn] svg');
  await page.waitForSelector('[data-testid=breakdown-chart] .donut-slice');
}

const TITLE = '[data-testid=page-title]';

for (const [size, viewport] of Object.entries(VIEWPORTS)) {
  describe(`every page at ${viewport.width}×${viewport.height}`, () => {
    beforeAll(async () => {
      for (const tab of [demo, newcomer, visitor]) await tab.page.setViewportSize(viewport);
    });

    it('dashboard with data, and the Transaction Info modal', async () => {
      const { page } = demo;
      await openDashboard(page);
      await chartsDrawn(page);
      await checkPage(page, `a11y-dashboard-${size}`, [
        TITLE,
        '[data-testid=date-range]',
        '[data-testid=quota-card]',
        '[data-testid=overview-chart] svg',
        '[data-testid=breakdown-chart]',
        '[data-testid=transaction-table] table',
        '[data-testid=more-info]',
      ]);
      // a count axis counts in whole numbers
      const ticks = await page.$$eval('[data-testid=overview-chart] .y.axis text', (texts) =>
        texts.map((t) => t.textContent ?? ''),
      );
      expect(ticks.length).toBeGreaterThan(1);
      for (const tick of ticks) expect(tick, tick).toMatch(/^\d[\d,]*$/);
      transactionUuid ||= (await page.getAttribute('[data-testid=transaction-row]', 'data-uuid'))!;

      await page.click('[data-testid=more-info]');
      await page.waitForSelector('[data-testid=timeline]');
      await checkPage(page, `a11y-transaction-info-${size}`, [
        '[data-testid=transaction-info] .modal-card-title',
        '[data-testid=timeline]',
        '[data-testid=info-close]',
      ]);
      await page.click('[data-testid=info-close]');
    });

    it('getting started (no verified domain) with the top navigation, and its domain modal', async () => {
      const { page } = newcomer;
      await page.goto(`${server.baseUrl}/`);
      await hydrated(page, '[data-testid=domains-card]');
      await page.waitForSelector('[data-testid=domain-row]');
      await checkPage(page, `a11y-getting-started-${size}`, [
        TITLE,
        '[data-testid=domains-card]',
        '[data-testid=configure-card]',
        '[data-testid=header] .brand',
      ]);
      await page.click('[data-testid=add-domain]');
      await page.waitForSelector('[data-testid=domain-modal]');
      await page.fill('[data-testid=domain-input]', 'second-shop.example'); // the local part's field follows
      await checkPage(page, `a11y-domain-modal-${size}`, [
        '#domain-modal-title',
        '[data-testid=domain-input]',
        '[data-testid=local-input]',
        '[data-testid=send-verification]',
      ]);
      await page.click('[data-testid=domain-modal] >> text=Back');
      await page.waitForSelector('[data-testid=domain-modal]', { state: 'detached' });
    });

    it('/groups, both tabs', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/groups`);
      await hydrated(page, '[data-testid=group-table]');
      await page.waitForSelector('[data-testid=group-table][aria-busy=false] [data-testid=group-row]');
      await checkPage(page, `a11y-groups-${size}`, [
        TITLE,
        '[data-testid=tab-groups]',
        '[data-testid=tab-recipients]',
        '[data-testid=group-table] table',
      ]);
      await page.click('[data-testid=tab-recipients]');
      await page.waitForSelector(
        '[data-testid=recipients-panel] [data-testid=transaction-table][aria-busy=false] [data-testid=transaction-row]',
      );
      await checkPage(page, `a11y-groups-recipients-${size}`, [
        TITLE,
        '[data-testid=recipients-panel] [data-testid=transaction-table] table',
      ]);
    });

    it('/settings', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/settings`);
      await hydrated(page, '[data-testid=toggle-track_opens]');
      await page.waitForSelector('[data-testid=toggle-track_opens]:enabled');
      await page.waitForSelector('[data-testid=api-key-input]');
      await checkPage(page, `a11y-settings-${size}`, [
        TITLE,
        '[data-testid=sending-options-card]',
        '[data-testid=webhooks-card]',
        '[data-testid=api-credentials-card]',
        '[data-testid=smtp-credentials-card]',
      ]);
    });

    it('/suppression-list, and its Add Recipients modal', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/suppression-list`);
      await hydrated(page, '[data-testid=suppression-table]');
      await page.waitForSelector('[data-testid=suppression-card] [aria-busy=false]');
      await checkPage(page, `a11y-suppression-list-${size}`, [
        TITLE,
        '[data-testid=add-recipients]',
        '[data-testid=suppression-search]',
        '[data-testid=suppression-table]',
      ]);
      await hydrated(page, '[data-testid=add-recipients]');
      await page.click('[data-testid=add-recipients]');
      await page.waitForSelector('[data-testid=add-recipients-modal]');
      await checkPage(page, `a11y-add-recipients-${size}`, [
        '#add-recipients-title',
        '[data-testid=add-recipients-modal] textarea',
        '[data-testid=add-recipients-modal] .modal-card-foot .button',
      ]);
      await page.keyboard.press('Escape');
    });

    it('/settings with the Webhook modal open', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/settings`);
      await hydrated(page, '[data-testid=webhook-edit]');
      await page.waitForSelector('[data-testid=webhook-edit]:enabled');
      await page.click('[data-testid=webhook-edit]');
      await page.waitForSelector('[data-testid=webhook-modal]');
      await chartsDrawn(page);
      await checkPage(page, `a11y-webhook-modal-${size}`, [
        '[data-testid=webhook-modal] .modal-card-title',
        '[data-testid=webhook-url-input]',
        '[data-testid=webhook-event-sent]',
        '[data-testid=webhook-save]',
      ]);
      await page.keyboard.press('Escape');
    });

    it('/inbound with nothing received yet (with mail: tests/e2e/inbound.test.ts)', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/inbound`);
      await hydrated(page, '[data-testid=inbound-nothing]');
      await checkPage(page, `a11y-inbound-empty-${size}`, [TITLE, '[data-testid=inbound-domain-link]']);
    });

    it('/webhook-logs with rows, with More info open, and empty', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/webhook-logs`);
      await hydrated(page, '[data-testid=webhook-log-row]');
      await checkPage(page, `a11y-webhook-logs-${size}`, [
        TITLE,
        '[data-testid=webhook-setup-link]',
        '[data-testid=webhook-logs-table]',
        '[data-testid=webhook-log-more]',
      ]);
      await page.locator('[data-testid=webhook-log-more]').first().click();
      await page.waitForSelector('[data-testid=webhook-log-attempt]');
      await chartsDrawn(page);
      await checkPage(page, `a11y-webhook-log-info-${size}`, [
        '[data-testid=webhook-log-modal] .modal-card-title',
        '[data-testid=webhook-log-payload]',
        '[data-testid=webhook-log-replay]',
      ]);
      await page.keyboard.press('Escape');
      const solo = await openPage(browser, server.baseUrl);
      await solo.page.setViewportSize(viewport);
      await signInThroughForm(solo.page, server.baseUrl, SOLO.email, SOLO.password);
      await solo.page.goto(`${server.baseUrl}/webhook-logs`);
      await hydrated(solo.page, '[data-testid=webhook-logs-table]');
      await solo.page.waitForSelector('[data-testid=webhook-logs-empty]');
      await checkPage(solo.page, `a11y-webhook-logs-empty-${size}`, [TITLE, '[data-testid=webhook-logs-empty]']);
      await solo.page.goto(`${server.baseUrl}/online-attachments`);
      await hydrated(solo.page, '[data-testid=attachment-table]');
      await solo.page.waitForSelector('[data-testid=attachment-empty]');
      await checkPage(solo.page, `a11y-attachments-empty-${size}`, [
        TITLE,
        '[data-testid=create-link]',
        '[data-testid=attachment-empty]',
      ]);
      await solo.context.close();
    });

    it('/online-attachments with rows and the preview pane, and the Branding modal', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/online-attachments`);
      await hydrated(page, '[data-testid=attachment-table]');
      await page.waitForSelector('[data-testid=attachment-row].is-selected');
      await page.waitForSelector('[data-testid=attachment-pane] [data-testid=pane-title]');
      await checkPage(page, `a11y-attachments-${size}`, [
        TITLE,
        '[data-testid=create-link]',
        '[data-testid=attachment-search]',
        '[data-testid=attachment-table]',
        '[data-testid=attachment-pane]',
      ]);
      await hydrated(page, '[data-testid=branding-open]');
      await page.click('[data-testid=branding-open]');
      await page.waitForSelector('[data-testid=branding-modal]');
      await chartsDrawn(page);
      await checkPage(page, `a11y-branding-modal-${size}`, [
        '[data-testid=branding-modal] .modal-card-title',
        '[data-testid=branding-page-colour]',
        '[data-testid=branding-update]',
      ]);
      await page.keyboard.press('Escape');
    });

    it('/online-attachments/create, /online-attachments/{id}/edit (both tabs) and /review', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/online-attachments/create`);
      await hydrated(page, '[data-testid=attachment-editor]');
      await checkPage(page, `a11y-attachment-create-${size}`, [
        '[data-testid=attachment-name]',
        '[data-testid=tab-files]',
        '[data-testid=dropzone]',
        '[data-testid=attachment-save-exit]',
      ]);
      await page.goto(`${server.baseUrl}/online-attachments/${attachmentId}/edit`);
      await hydrated(page, '[data-testid=attachment-editor]');
      await page.waitForSelector('[data-testid=file-row]');
      await checkPage(page, `a11y-attachment-edit-files-${size}`, [
        '[data-testid=attachment-name]',
        '[data-testid=file-row]',
        '[data-testid=attachment-save]',
      ]);
      await page.click('[data-testid=tab-settings]');
      await page.waitForSelector('[data-testid=attachment-limit]');
      await checkPage(page, `a11y-attachment-edit-settings-${size}`, [
        '[data-testid=expiry-toggle]',
        '[data-testid=limit-toggle]',
        '[data-testid=attachment-limit]',
      ]);
      await page.goto(`${server.baseUrl}/online-attachments/${attachmentId}/review`);
      await hydrated(page, '[data-testid=attachment-review]');
      await page.waitForFunction(
        () =>
          document.querySelector('[data-testid=review-name]')?.textContent ===
          'Quarterly reports for the board meeting',
      );
      await checkPage(page, `a11y-attachment-review-${size}`, [
        TITLE,
        '[data-testid=review-name]',
        '[data-testid=review-save]',
      ]);
    });

    it('the public download page: normal, expired (410), downloaded to its limit (410)', async () => {
      const { page } = visitor;
      expect((await page.goto(publicLinks.normal))?.status()).toBe(200);
      await checkPage(page, `a11y-download-page-${size}`, ['h1', 'button[aria-label="Download report-q1.txt"]']);
      expect((await page.goto(publicLinks.expired))?.status()).toBe(410);
      await expect(page.textContent('h1')).resolves.toBe('This link has expired');
      await checkPage(page, `a11y-download-expired-${size}`, ['h1']);
      expect((await page.goto(publicLinks.exhausted))?.status()).toBe(410);
      await expect(page.textContent('h1')).resolves.toBe('Download limit reached');
      await checkPage(page, `a11y-download-exhausted-${size}`, ['h1']);
    });

    it('/domains/{id}', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/domains/${demoDomainId}`);
      await hydrated(page, '[data-testid=verification-state]');
      await checkPage(page, `a11y-domain-${size}`, [
        TITLE,
        '[data-testid=verification-state]',
        '[data-testid=dns-record]',
      ]);
    });

    it('/unauthorized', async () => {
      const { page } = demo;
      await page.goto(`${server.baseUrl}/unauthorized`);
      await checkPage(page, `a11y-unauthorized-${size}`, ['[data-testid=unauthorized]']);
    });

    it('the public pages: /login, /unsubscribe, /header-unsubscribe, /verify-domain', async () => {
      const { page } = visitor;
      await page.goto(`${server.baseUrl}/login`);
      await checkPage(page, `a11y-login-${size}`, [
        '[data-testid=login-form] #email',
        '[data-testid=login-form] #password',
        '[data-testid=login-form] button[type=submit]',
        '[data-testid=version]',
      ]);
      await page.goto(`${server.baseUrl}/unsubscribe/${transactionUuid}`);
      await page.waitForLoadState('load');
      await checkPage(page, `a11y-unsubscribe-${size}`, [
        '[data-testid=subscription]',
        '[data-testid=subscription] .button',
      ]);
      await page.goto(`${server.baseUrl}/header-unsubscribe/${transactionUuid}`);
      await page.waitForLoadState('load');
      await checkPage(page, `a11y-header-unsubscribe-${size}`, ['[data-testid=subscription]']);
      await page.goto(verifyLink);
      await checkPage(page, `a11y-verify-domain-${size}`, [
        '[data-testid=verify-domain] h1',
        '[data-testid=confirm-domain]',
      ]);
    });

    if (viewport.width < 1024) {
      it('the burger menu open, with the top navigation in it', async () => {
        const { page } = newcomer;
        await page.goto(`${server.baseUrl}/settings`);
        await page.waitForLoadState('load');
        await page.click('[data-testid=burger]');
        await page.locator('[data-testid=drawer-nav] summary').first().click();
        await chartsDrawn(page);
        await checkPage(page, `a11y-burger-open-${size}`, [
          '[data-testid=side-menu] [data-menu=groups]',
          '[data-testid=drawer-nav] [data-nav-group=account] a',
          '[data-testid=burger]',
        ]);
        await page.keyboard.press('Escape');
      });
    }
  });
}

/** Whether the side menu is on screen (off-canvas it is hidden and moved out of view). */
const menuShown = (page: Page) => page.locator('[data-testid=side-menu] [data-menu=dashboard]').isVisible();
const burgerExpanded = (page: Page) => page.getAttribute('[data-testid=burger]', 'aria-expanded');
const focusedInMenu = (page: Page) =>
  page.evaluate(() => document.getElementById('side-menu')!.contains(document.activeElement));
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id);

describe('the burger menu at 390×844', () => {
  beforeAll(async () => {
    await newcomer.page.setViewportSize(VIEWPORTS.phone);
  });

  it('is a named button that opens on click, and Escape closes it and gives focus back', async () => {
    const { page } = newcomer;
    await page.goto(`${server.baseUrl}/groups`);
    await page.waitForLoadState('load');
    expect(await menuShown(page)).toBe(false);
    expect(await page.getAttribute('[data-testid=burger]', 'aria-label')).toBe('Menu');
    expect(await page.getAttribute('[data-testid=burger]', 'aria-controls')).toBe('side-menu');
    expect(await burgerExpanded(page)).toBe('false');
    // the content has the full width
    const main = await page.locator('main').boundingBox();
    expect(main?.x).toBe(0);
    expect(main?.width).toBe(VIEWPORTS.phone.width);

    await page.click('[data-testid=burger]');
    await page.waitForFunction(() => document.body.classList.contains('menu-open'));
    expect(await burgerExpanded(page)).toBe('true');
    expect(await menuShown(page)).toBe(true);
    expect(await focusedInMenu(page)).toBe(true);
    // the page behind takes no focus while the menu is open
    expect(await page.locator('main').getAttribute('inert')).not.toBeNull();

    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.body.classList.contains('menu-open'));
    expect(await burgerExpanded(page)).toBe('false');
    await page.locator('[data-testid=side-menu] [data-menu=dashboard]').waitFor({ state: 'hidden' });
    expect(await focusedId(page)).toBe('menu-burger');
    expect(await page.locator('main').getAttribute('inert')).toBeNull();
  });

  it('opens with Enter and with Space from the keyboard', async () => {
    const { page } = newcomer;
    await page.goto(`${server.baseUrl}/groups`);
    await page.waitForLoadState('load');
    for (const key of ['Enter', 'Space']) {
      await page.focus('[data-testid=burger]');
      await page.keyboard.press(key);
      await page.waitForFunction(() => document.body.classList.contains('menu-open'));
      expect(await focusedInMenu(page), key).toBe(true);
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.body.classList.contains('menu-open'));
      expect(await focusedId(page), key).toBe('menu-burger');
    }
  });

  it('a link in the menu navigates, and the next page starts with the menu closed', async () => {
    const { page } = newcomer;
    await page.goto(`${server.baseUrl}/groups`);
    await page.waitForLoadState('load');
    await page.click('[data-testid=burger]');
    await page.locator('[data-testid=side-menu] [data-menu=settings]').waitFor({ state: 'visible' });
    await Promise.all([
      page.waitForURL(`${server.baseUrl}/settings`),
      page.click('[data-testid=side-menu] [data-menu=settings]'),
    ]);
    expect(location(page)).toBe('/settings');
    await page.waitForLoadState('load');
    expect(await burgerExpanded(page)).toBe('false');
    expect(await menuShown(page)).toBe(false);
    // back to the previous page (possibly from the back-forward cache): closed there too
    await page.goBack();
    await page.waitForLoadState('load');
    expect(location(page)).toBe('/groups');
    expect(await burgerExpanded(page)).toBe('false');
    expect(await menuShown(page)).toBe(false);
  });

  it('clicking beside the open menu closes it', async () => {
    const { page } = newcomer;
    await page.click('[data-testid=burger]');
    await page.waitForFunction(() => document.body.classList.contains('menu-open'));
    await page.mouse.click(VIEWPORTS.phone.width - 10, 400);
    await page.waitForFunction(() => !document.body.classList.contains('menu-open'));
    await page.locator('[data-testid=side-menu] [data-menu=dashboard]').waitFor({ state: 'hidden' });
    expect(await focusedId(page)).toBe('menu-burger');
  });
});

describe('the side menu at 1440×900', () => {
  it('shows no burger, the whole labels, and still collapses and expands', async () => {
    const { page } = newcomer;
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.goto(`${server.baseUrl}/groups`);
    await hydrated(page, '[data-testid=menu-toggle]');
    expect(await page.locator('[data-testid=burger]').isVisible()).toBe(false);
    expect(await menuShown(page)).toBe(true);
    expect(await page.locator('[data-testid=top-nav]').isVisible()).toBe(true);
    expect(await page.locator('[data-testid=drawer-nav]').isVisible()).toBe(false);
    // 'Transactional Groups Reports' is not cut
    const label = page.locator('[data-menu=groups] .menu-label');
    expect(await label.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await label.textContent()).toBe('Transactional Groups Reports');

    const menuWidth = () => page.locator('[data-testid=side-menu]').evaluate((el) => el.getBoundingClientRect().width);
    const wide = await menuWidth();
    await page.click('[data-testid=menu-toggle]');
    await page.waitForFunction(() => document.body.classList.contains('menu-collapsed'));
    await page.waitForFunction(
      (w) => document.getElementById('side-menu')!.getBoundingClientRect().width < w / 2,
      wide,
    );
    expect(await label.isVisible()).toBe(false);
    await page.click('[data-testid=menu-toggle]');
    await page.waitForFunction(() => !document.body.classList.contains('menu-collapsed'));
    await page.waitForFunction((w) => document.getElementById('side-menu')!.getBoundingClientRect().width === w, wide);
    expect(await label.isVisible()).toBe(true);
  });
});

describe('the dashboard charts', () => {
  it('follow their card when the window narrows', async () => {
    const { page } = demo;
    await page.setViewportSize(VIEWPORTS.desktop);
    await openDashboard(page);
    const chartWidth = () =>
      page
        .locator('[data-testid=overview-chart] svg')
        .first()
        .evaluate((svg) => svg.getBoundingClientRect().width);
    const holderWidth = () =>
      page.locator('[data-testid=overview-chart]').evaluate((el) => el.getBoundingClientRect().width);
    const wide = await chartWidth();
    // frappe-charts sizes its svg from the holder's offsetWidth, rounded to whole pixels
    expect(wide).toBeLessThanOrEqual((await holderWidth()) + 1);
    await page.setViewportSize(VIEWPORTS.phone);
    await page.waitForFunction(
      (before) =>
        document.querySelector('[data-testid=overview-chart] svg')!.getBoundingClientRect().width < before / 2,
      wide,
    );
    expect(await chartWidth()).toBeLessThanOrEqual((await holderWidth()) + 1);
    expect(await holderWidth()).toBeLessThan(VIEWPORTS.phone.width);
  });

  it('count in whole numbers on the y-axis with one message (not 0.25 steps)', async () => {
    const solo = await openPage(browser, server.baseUrl);
    await solo.page.setViewportSize(VIEWPORTS.desktop);
    await signInThroughForm(solo.page, server.baseUrl, SOLO.email, SOLO.password);
    await solo.page.waitForSelector('[data-testid=overview-chart][data-drawn] svg');
    const ticks = await solo.page.$$eval('[data-testid=overview-chart] .y.axis text', (texts) =>
      texts.map((t) => t.textContent),
    );
    expect(ticks).toEqual(['0', '1']);
    await solo.context.close();
  });
});
