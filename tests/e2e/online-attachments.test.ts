// Online attachments in Chromium (docs/console-reports.md §2, §4, §5, §8): the empty list, the
// Branding modal (a disguised SVG refused in the browser, then a real PNG logo and colours), a new
// link with two files uploaded through a throttled connection (the progress bar seen moving), expiry
// and access limit, Save & Exit back to the list and its preview pane, the public page in that
// branding, a mail sent with the integration ID whose link downloads and shows a `download` event
// in More Info, downloads until the limit, the review page, the load failure and the delete.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SCREENSHOTS,
  animationsDone,
  PARENT,
  hydrated,
  launchBrowser,
  location,
  openPage,
  screenshot,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { createExpiredLink } from '../helpers/expired-link.ts';
import { VIEWPORTS, checkPage } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const PASSWORD = 'attachments-password-1';
const EMAIL = 'files@attachments.test';
const PAGE_BG = '#1e3a5f';
const PAGE_TEXT = '#ffffff';
const BUTTON_BG = '#ffd166';
const BUTTON_TEXT = '#000000';

let server: RunningServer;
let sink: SmtpSink;
let browser: Browser;
let tab: TestPage;
let apiKey: string;
let dir: string;
let groupId: number;
let previewLink: string;
let integrationId: string;
let expirySeconds: number;

/** A real w×h PNG of one colour (so the logo renders). */
function png(w: number, h: number, rgb: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.concat(Array.from({ length: w }, () => Buffer.from(rgb)))]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'transact-attachments-e2e-'));
  sink = await startSmtpSink();
  server = await prepareServer({ SMTP_RELAY_URL: sink.url });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Files Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Files Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Files Customer',
    '--email',
    EMAIL,
    '--name',
    'Files User',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', 'files.example', '--customer', 'Files Customer', '--verified');
  apiKey = /tsk_[A-Za-z0-9_-]+/.exec(await server.admin('credentials', 'show', '--customer', 'Files Customer'))![0];
  await server.start();
  browser = await launchBrowser();
  tab = await openPage(browser, server.baseUrl);
  await tab.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
  await signInThroughForm(tab.page, server.baseUrl, EMAIL, PASSWORD);
}, 300_000); // five CLI runs and a server start: slow on a loaded machine
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
});

/**
 * checkPage at desktop, tablet and phone sizes (the whole page, shell included), back to desktop afterwards.
 */
async function checkBoth(page: Page, name: string): Promise<void> {
  for (const [viewport, suffix] of [
    [VIEWPORTS.desktop, '1440'],
    [VIEWPORTS.tablet, '768'],
    [VIEWPORTS.phone, '390'],
  ] as const) {
    await page.setViewportSize(viewport);
    // under 1024 px the side menu slides off-canvas: the screenshot waits until it is gone
    await animationsDone(page);
    await checkPage(page, `${name}-${suffix}`);
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

const alertText = (page: Page, text: string) => page.waitForSelector(`[data-testid=alert]:has-text("${text}")`);

describe('online attachments', () => {
  it('shows the empty list with its buttons', async () => {
    const { page } = tab;
    await page.goto(`${server.baseUrl}/online-attachments`);
    await hydrated(page, '[data-testid=attachment-table]');
    await page.waitForSelector('[data-testid=attachment-empty]');
    await expect(page.textContent('[data-testid=attachment-empty]')).resolves.toBe('No links available');
    await expect(page.getAttribute('[data-testid=create-link]', 'href')).resolves.toBe('/online-attachments/create');
    await expect(page.getAttribute('[data-testid=attachment-search]', 'placeholder')).resolves.toBe('Search');
    expect(
      await page.$$eval('.side-menu a, nav a', (links) =>
        links.some((a) => a.getAttribute('href') === '/online-attachments'),
      ),
    ).toBe(true);
    await checkBoth(page, 'attachments-1-empty');
  });

  it('refuses a disguised SVG in the browser, then saves a PNG logo and colours', async () => {
    const { page } = tab;
    await hydrated(page, '[data-testid=branding-open]');
    await page.click('[data-testid=branding-open]');
    await page.waitForSelector('[data-testid=branding-modal]');
    const fake = path.join(dir, 'logo.png');
    writeFileSync(fake, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    await page.setInputFiles('[data-testid=branding-logo]', fake);
    await expect(page.waitForSelector('[data-testid=branding-logo-error]').then((e) => e.textContent())).resolves.toBe(
      "File type 'svg' not allowed",
    );
    expect(await page.isDisabled('[data-testid=branding-update]')).toBe(true);
    const logo = path.join(dir, 'brand.png');
    writeFileSync(logo, png(96, 40, [230, 57, 70]));
    await page.setInputFiles('[data-testid=branding-logo]', logo);
    await page.waitForSelector('[data-testid=branding-logo-error]', { state: 'detached' });
    await page.fill('[data-testid=branding-page-colour]', PAGE_BG);
    await page.fill('[data-testid=branding-page-text_colour]', PAGE_TEXT);
    await page.fill('[data-testid=branding-button-colour]', BUTTON_BG);
    await page.fill('[data-testid=branding-button-text_colour]', BUTTON_TEXT);
    await expect(page.textContent('[data-testid=branding-modal]')).resolves.toContain('Global Settings');
    await checkBoth(page, 'attachments-2-branding');
    await page.click('[data-testid=branding-update]');
    await alertText(page, 'Branding settings saved successful');
    await page.waitForSelector('[data-testid=branding-modal]', { state: 'detached' });
  });

  it('creates a link: name, two files uploaded with a visible progress bar, expiry and limit, Save & ' +
    'Exit', async () => {
    const { page } = tab;
    await page.click('[data-testid=create-link]');
    await page.waitForURL('**/online-attachments/create');
    await hydrated(page, '[data-testid=attachment-editor]');
    await expect(page.textContent('[data-testid=attachment-name]')).resolves.toBe('Untitled');
    await expect(page.textContent('h1')).resolves.toBe('Create Download Link');
    await checkBoth(page, 'attachments-3-create');
    // the name confirmed with Enter is the name the first upload creates the link with
    await page.click('[data-testid=attachment-name-edit]');
    // in name-edit mode the page still has its heading
    await expect(page.locator('h1').allTextContents()).resolves.toEqual(['Create Download Link']);
    await checkPage(page, 'attachments-3-create-name-edit-1440');
    await page.setViewportSize(VIEWPORTS.phone);
    await animationsDone(page);
    await checkPage(page, 'attachments-3-create-name-edit-390');
    await page.setViewportSize(VIEWPORTS.desktop);
    await page.fill('[data-testid=attachment-name-input]', 'Quarterly reports');
    await page.press('[data-testid=attachment-name-input]', 'Enter');
    await expect(page.textContent('[data-testid=attachment-name]')).resolves.toBe('Quarterly reports');

    // a slow uplink, so the upload takes a few seconds and its progress shows
    const cdp = await tab.context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 20,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    });
    const first = path.join(dir, 'report-q1.pdf');
    const second = path.join(dir, 'report-q2.csv');
    writeFileSync(first, Buffer.alloc(600 * 1024, 65));
    writeFileSync(second, Buffer.alloc(300 * 1024, 66));
    await page.setInputFiles('[data-testid=file-input]', [first, second]);
    await page.waitForSelector('[data-testid=upload-progress]');
    await page.waitForFunction(() => {
      const bar = document.querySelector('[data-testid=upload-progress]') as HTMLProgressElement | null;
      return bar !== null && bar.value > 0 && bar.value < 100;
    });
    await page.screenshot({ path: path.join('test-results', 'attachments-4-uploading.png') });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=file-row]').length === 2, undefined, {
      timeout: 30_000,
    });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await expect(page.textContent('[data-testid=files-count]')).resolves.toBe('2 file(s) uploaded');
    const sizes = await page.$$eval('[data-testid=file-row] .file-size', (cells) => cells.map((c) => c.textContent));
    expect(sizes).toEqual(['600 KB', '300 KB']);
    // the first upload created the link: the address names it now
    expect(location(page)).toMatch(/^\/online-attachments\/\d+\/edit$/);
    groupId = Number(/\/online-attachments\/(\d+)\/edit/.exec(location(page))![1]);
    // stored under that name by the upload alone, before any Save
    const stored = await page.evaluate(async () =>
      (await (await fetch('/v1/tracked-attachments/groups')).json()).data.map((g: { name: string }) => g.name),
    );
    expect(stored).toEqual(['Quarterly reports']);

    await page.click('[data-testid=tab-settings]');
    // a zone ahead of UTC, where 20:00 UTC is already the next day: the picker must still show UTC
    await cdp.send('Emulation.setTimezoneOverride', { timezoneId: 'Asia/Kolkata' });
    await page.click('[data-testid=expiry-toggle]');
    await page.waitForFunction(() =>
      Boolean(
        (document.querySelector('[data-testid=attachment-expiry]') as HTMLInputElement & { _flatpickr?: unknown })
          ?._flatpickr,
      ),
    );
    const expiry = new Date(Date.now() + 10 * 86_400_000);
    expiry.setUTCHours(20, 0, 0, 0);
    expirySeconds = expiry.getTime() / 1000;
    // the picker shows UTC: its text is the moment's UTC date and time
    const text = expiry.toISOString().slice(0, 19).replace('T', ' ');
    await page.evaluate((value) => {
      const input = document.querySelector('[data-testid=attachment-expiry]') as HTMLInputElement & {
        _flatpickr: { setDate(d: string, fire: boolean): void };
      };
      input._flatpickr.setDate(value, true);
    }, text);
    await expect(page.inputValue('[data-testid=attachment-expiry]')).resolves.toBe(text);
    const longDate = expiry.toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    });
    await expect(page.textContent('[data-testid=preview-expiry]')).resolves.toBe(`Expiry date: ${longDate}`);
    await page.click('[data-testid=limit-toggle]');
    await page.fill('[data-testid=attachment-limit]', '3');
    await checkBoth(page, 'attachments-5-settings');
    await page.click('[data-testid=integration-id-copy]');
    integrationId = await page.evaluate(() => navigator.clipboard.readText());
    expect(integrationId).toMatch(/^oa_/);

    await page.click('[data-testid=attachment-save-exit]');
    await alertText(page, 'Save successful');
    await page.waitForURL('**/online-attachments', { timeout: 10_000 });
  }, 120_000); // a throttled upload and nine page checks

  it('lists the link, selects the first row and previews it', async () => {
    const { page } = tab;
    await hydrated(page, '[data-testid=attachment-table]');
    await page.waitForSelector('[data-testid=attachment-row].is-selected');
    await expect(page.textContent('[data-testid=attachment-name]')).resolves.toBe('Quarterly reports');
    await expect(page.textContent('[data-testid=attachment-files]')).resolves.toBe('2');
    await expect(page.textContent('[data-testid=attachment-expires]')).resolves.not.toBe('Never');
    await expect(page.textContent('[data-testid=pane-title]')).resolves.toBe('Quarterly reports');
    previewLink = (await page.getAttribute('[data-testid=preview-page-link]', 'href'))!;
    expect(previewLink).toMatch(/\/a\/[A-Za-z0-9_-]{22}$/);
    await expect(page.textContent('[data-testid=attachment-pane]')).resolves.toContain('report-q2.csv');
    // what was stored is the UTC moment picked, whatever the browser's zone
    const stored = await page.evaluate(
      async (id) => (await (await fetch(`/v1/tracked-attachments/groups/${id}`)).json()).options,
      groupId,
    );
    expect(stored).toEqual({ expiry_timestamp: expirySeconds, access_limit: 3 });
    await checkBoth(page, 'attachments-6-list');
  });

  it('shows the public page in the branding', async () => {
    const visitor = await openPage(browser, server.baseUrl);
    const { page } = visitor;
    await page.goto(previewLink);
    await expect(page.evaluate(() => getComputedStyle(document.body).backgroundColor)).resolves.toBe('rgb(30, 58, 95)');
    await expect(
      page.evaluate(() => getComputedStyle(document.querySelector('button')!).backgroundColor),
    ).resolves.toBe('rgb(255, 209, 102)');
    await expect(
      page.evaluate(() => (document.querySelector('img.logo') as HTMLImageElement).naturalWidth),
    ).resolves.toBe(96);
    // the preview's heading, the link's name and who shares it under it
    await expect(page.textContent('h1')).resolves.toBe('Online Attachments');
    await expect(page.textContent('[data-testid=link-name]')).resolves.toBe('Quarterly reports');
    await expect(page.textContent('[data-testid=sender]')).resolves.toBe('Shared by Files Customer');
    await expect(page.textContent('[data-testid=expiry]')).resolves.toMatch(/^Expiry date: \d+ \w+ \d{4}$/);
    expect(await page.evaluate(() => document.scripts.length)).toBe(0);
    await checkBoth(page, 'attachments-7-public');
    await visitor.context.close();
  });

  it("downloads through a mail's link and shows the download event in More Info", async () => {
    const res = await fetch(`${server.baseUrl}/v1/mail`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        from: 'reports@files.example',
        to: 'reader@customer.example',
        subject: 'Your reports',
        html: '<p>Here they are.</p>',
        online_attachment_id: integrationId,
      }),
    });
    expect(res.status).toBe(202);
    const uuid = (await res.json()).data[0].trans_uuid as string;
    await expect
      .poll(() => sink.messages.some((m) => m.from.includes(uuid.replace(/-/g, ''))), { timeout: 20_000 })
      .toBe(true);
    const raw = sink.messages
      .find((m) => m.from.includes(uuid.replace(/-/g, '')))!
      .raw.toString('latin1')
      .replace(/=\r\n/g, '')
      .replace(/=3D/g, '=');
    const link = new RegExp(
      `${server.baseUrl.replace(/[.:/]/g, '\\$&')}/a/[A-Za-z0-9_-]{22}\\?r=[0-9a-f-]{36}\\.[A-Za-z0-9_-]{22}`,
    ).exec(raw)![0];

    const reader = await openPage(browser, server.baseUrl);
    await reader.page.goto(link);
    const [download] = await Promise.all([
      reader.page.waitForEvent('download'),
      reader.page.click('button[aria-label="Download report-q1.pdf"]'),
    ]);
    expect(download.suggestedFilename()).toBe('report-q1.pdf');
    // saved through the connection: the run's shared Chromium keeps its downloads to itself
    const saved = `${SCREENSHOTS}/online-attachment-download.pdf`;
    await download.saveAs(saved);
    expect(readFileSync(saved).length).toBe(600 * 1024);
    await reader.context.close();

    const { page } = tab;
    await page.goto(`${server.baseUrl}/groups#recipients`);
    await hydrated(page, `[data-testid=transaction-row][data-uuid="${uuid}"] [data-testid=more-info]`);
    await page.click(`[data-testid=transaction-row][data-uuid="${uuid}"] [data-testid=more-info]`);
    await page.waitForSelector('[data-testid=timeline-event][data-type=download]');
    await expect(page.textContent('[data-testid=timeline-event][data-type=download]')).resolves.toContain(
      'report-q1.pdf',
    );
  });

  it('downloads until the access limit, then refuses with a page', async () => {
    const visitor = await openPage(browser, server.baseUrl);
    const { page } = visitor;
    await page.goto(previewLink);
    for (let i = 0; i < 2; i++) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click('button[aria-label="Download report-q2.csv"]'),
      ]);
      expect(download.suggestedFilename()).toBe('report-q2.csv');
    }
    // the third download of this page is the fourth of the link (one came through the mail)
    await Promise.all([page.waitForURL(/\/files\//), page.click('button[aria-label="Download report-q2.csv"]')]);
    await expect(page.textContent('h1')).resolves.toBe('Download limit reached');
    await checkBoth(page, 'attachments-8-limit-reached');
    // the page of a used-up link keeps the customer's branding, whether reached by the refused
    // download or by opening the link again
    for (const reached of ['download', 'link']) {
      if (reached === 'link') {
        const answer = await page.goto(previewLink);
        expect(answer?.status()).toBe(410);
        await checkBoth(page, 'attachments-8-limit-reached-link');
      }
      await expect(page.textContent('h1'), reached).resolves.toBe('Download limit reached');
      await expect(page.textContent('[data-testid=link-name]')).resolves.toBe('Quarterly reports');
      await expect(page.evaluate(() => getComputedStyle(document.body).backgroundColor)).resolves.toBe(
        'rgb(30, 58, 95)',
      );
      await expect(page.evaluate(() => getComputedStyle(document.body).color)).resolves.toBe('rgb(255, 255, 255)');
      await page.waitForFunction(
        () => (document.querySelector('img.logo') as HTMLImageElement | null)?.complete === true,
      );
      await expect(
        page.evaluate(() => (document.querySelector('img.logo') as HTMLImageElement).naturalWidth),
      ).resolves.toBe(96);
      await expect(page.locator('button').count()).resolves.toBe(0);
    }
    await visitor.context.close();
  });

  it('shows the used-up link as such in the list and its preview', async () => {
    const { page } = tab;
    await page.goto(`${server.baseUrl}/online-attachments`);
    await hydrated(page, '[data-testid=attachment-table]');
    await page.waitForSelector('[data-testid=attachment-row].is-selected');
    await expect(page.getAttribute('[data-testid=attachment-row]', 'data-state')).resolves.toBe('exhausted');
    await expect(page.textContent('[data-testid=attachment-state]')).resolves.toBe('Download limit reached');
    await expect(page.textContent('[data-testid=attachment-downloads]')).resolves.toBe('0 of 3 left');
    await expect(page.textContent('[data-testid=pane-state]')).resolves.toBe('Download limit reached · 0 of 3 left');
    // the preview is what recipients now see: the notice, no Download buttons
    await expect(page.textContent('[data-testid=preview-title]')).resolves.toBe('Download limit reached');
    await expect(page.locator('[data-testid=attachment-pane] .preview-download').count()).resolves.toBe(0);
    await expect(page.textContent('[data-testid=preview-notice]')).resolves.toContain('Ask the sender for a new link.');
    await checkBoth(page, 'attachments-8-list-exhausted');
  });

  it('reviews the link and saves, back to the list after 3 s', async () => {
    const { page } = tab;
    await page.goto(`${server.baseUrl}/online-attachments/${groupId}/review`);
    await hydrated(page, '[data-testid=attachment-review]');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=review-name]')?.textContent === 'Quarterly reports',
    );
    await expect(page.textContent('[data-testid=review-limit]')).resolves.toBe('3');
    await checkBoth(page, 'attachments-9-review');
    await page.click('[data-testid=review-save]');
    await alertText(page, 'Save successful');
    await page.waitForURL('**/online-attachments', { timeout: 10_000 });
  });

  it("says 'Unable to get attachments' for a link that cannot be loaded and returns to the list", async () => {
    const { page } = tab;
    await page.goto(`${server.baseUrl}/online-attachments/999999/edit`);
    await alertText(page, 'Unable to get attachments');
    expect(await page.isDisabled('[data-testid=attachment-save]')).toBe(true);
    await page.waitForURL('**/online-attachments', { timeout: 10_000 });
  });

  it('deletes the selected link', async () => {
    const { page } = tab;
    await hydrated(page, '[data-testid=attachment-delete]');
    await page.click('[data-testid=attachment-delete]');
    await alertText(page, 'Template deleted successfully');
    await page.waitForSelector('[data-testid=attachment-empty]');
  });
});

describe('online attachments: expiry, link states and the list without JavaScript', () => {
  const WEEK = 7 * 86_400;
  /** Creates a link through the API from the signed-in page (one small file). */
  const createLink = (name: string, options: Record<string, number>) =>
    tab.page.evaluate(
      async ({ name, options }) => {
        const form = new FormData();
        form.append('group', JSON.stringify({ name, options }));
        form.append('asset', new Blob(['figures\n'], { type: 'text/plain' }), 'figures.txt');
        const res = await fetch('/v1/tracked-attachments/groups', {
          method: 'POST',
          headers: { 'Request-Type': 'ui' },
          body: form,
        });
        return { status: res.status, body: await res.json() };
      },
      { name, options },
    );
  const storedGroups = () =>
    tab.page.evaluate(
      async () =>
        (await (await fetch('/v1/tracked-attachments/groups')).json()).data as {
          name: string;
          state: string;
          options: { expiry_timestamp: number | null };
        }[],
    );

  it('ticking "The link expires" and saving makes a live link a week ahead', async () => {
    const { page } = tab;
    await page.goto(`${server.baseUrl}/online-attachments/create`);
    await hydrated(page, '[data-testid=attachment-editor]');
    await page.click('[data-testid=attachment-name-edit]');
    await page.fill('[data-testid=attachment-name-input]', 'Weekly figures');
    await page.press('[data-testid=attachment-name-input]', 'Enter');
    await page.click('[data-testid=tab-settings]');
    const before = Math.floor(Date.now() / 1000);
    await page.click('[data-testid=expiry-toggle]');
    await page.waitForFunction(() =>
      Boolean(
        (document.querySelector('[data-testid=attachment-expiry]') as HTMLInputElement & { _flatpickr?: unknown })
          ?._flatpickr,
      ),
    );
    const shown = await page.inputValue('[data-testid=attachment-expiry]');
    const proposed = Date.parse(`${shown.replace(' ', 'T')}Z`) / 1000;
    expect(proposed).toBeGreaterThanOrEqual(before + WEEK);
    expect(proposed).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + WEEK);
    await page.click('[data-testid=attachment-save]');
    await page.waitForURL(/\/online-attachments\/\d+\/edit$/);
    const saved = (await storedGroups()).find((g) => g.name === 'Weekly figures')!;
    expect(saved).toMatchObject({ state: 'live', options: { expiry_timestamp: proposed } });
    // the edit page in name-edit mode has its heading
    await hydrated(page, '[data-testid=attachment-editor]');
    await page.waitForFunction(
      () => document.querySelector('[data-testid=attachment-name]')?.textContent === 'Weekly figures',
    );
    await page.click('[data-testid=attachment-name-edit]');
    await expect(page.locator('h1').allTextContents()).resolves.toEqual(['Edit Download Link']);
    await checkBoth(page, 'attachments-10-edit-name-edit');
  });

  it('refuses at the field a time that is no longer in the future, and saves nothing', async () => {
    const clocked = await openPage(browser, server.baseUrl, { storageState: await tab.context.storageState() });
    const { page } = clocked;
    // the browser's clock, so the page can be left open until the picked time has passed
    await page.clock.install();
    await page.goto(`${server.baseUrl}/online-attachments/create`);
    await hydrated(page, '[data-testid=attachment-editor]');
    await page.click('[data-testid=tab-settings]');
    await page.click('[data-testid=expiry-toggle]');
    await page.waitForFunction(() =>
      Boolean(
        (document.querySelector('[data-testid=attachment-expiry]') as HTMLInputElement & { _flatpickr?: unknown })
          ?._flatpickr,
      ),
    );
    const soon = new Date(Date.now() + 120_000).toISOString().slice(0, 19).replace('T', ' ');
    await page.evaluate((value) => {
      const input = document.querySelector('[data-testid=attachment-expiry]') as HTMLInputElement & {
        _flatpickr: { setDate(d: string, fire: boolean): void };
      };
      input._flatpickr.setDate(value, true);
    }, soon);
    await expect(page.inputValue('[data-testid=attachment-expiry]')).resolves.toBe(soon);
    await page.click('[data-testid=tab-files]');
    await page.clock.fastForward('05:00');
    const groupsBefore = (await storedGroups()).length;
    await page.click('[data-testid=attachment-save]');
    // the message is at the field, on the Settings tab the page switched to
    await expect(
      page.waitForSelector('[data-testid=attachment-expiry-error]').then((e) => e.textContent()),
    ).resolves.toBe('The expiry must be in the future');
    await expect(page.getAttribute('[data-testid=attachment-expiry]', 'aria-invalid')).resolves.toBe('true');
    await checkBoth(page, 'attachments-11-expiry-refused');
    expect(location(page)).toBe('/online-attachments/create');
    expect(await storedGroups()).toHaveLength(groupsBefore);
    await clocked.context.close();
  });

  it('shows the same first rows with JavaScript off as with it on, with states and without a hydration ' +
    'error', async () => {
    const expired = await createExpiredLink(async (expiry_timestamp) => {
      const made = await createLink('Last year', { expiry_timestamp });
      if (made.status !== 201) throw new Error(`POST groups: ${made.status} ${JSON.stringify(made.body)}`);
      return made.body;
    });
    expect((await storedGroups()).find((g) => g.name === 'Last year')?.state).toBe('expired');
    const expiryDay = new Date(expired.options.expiry_timestamp * 1000).toLocaleDateString('en-GB', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    });
    const expiredOn = `Expired on ${expiryDay}`;
    const limited = await createLink('Two downloads', { access_limit: 2 });
    expect(limited.status).toBe(201);

    const rows = (page: Page) =>
      page.$$eval('[data-testid=attachment-row]', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].slice(1).map((td) => td.textContent!.trim())),
      );
    const storage = await tab.context.storageState();
    const views: Record<string, { rows: string[][]; pane: string }> = {};
    for (const javaScriptEnabled of [false, true]) {
      const viewer = await openPage(browser, server.baseUrl, {
        storageState: storage,
        javaScriptEnabled,
        timezoneId: 'America/New_York',
        locale: 'de-DE',
        viewport: VIEWPORTS.desktop,
      });
      const { page } = viewer;
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${server.baseUrl}/online-attachments`);
      if (javaScriptEnabled) await hydrated(page, '[data-testid=attachment-table]');
      await page.waitForSelector('[data-testid=attachment-row].is-selected');
      views[String(javaScriptEnabled)] = {
        rows: await rows(page),
        pane: (await page.textContent('[data-testid=attachment-pane]'))!.trim(),
      };
      const name = `attachments-12-list-js-${javaScriptEnabled ? 'on' : 'off'}`;
      // axe runs as a script in the page: with JavaScript off only the screenshots (the DOM is the same)
      const check = javaScriptEnabled ? checkPage : screenshot;
      await check(page, `${name}-1440`);
      await page.setViewportSize(VIEWPORTS.phone);
      // the side menu slides off-canvas; without a script to wait for that, the page loads again at 390
      if (javaScriptEnabled) await animationsDone(page);
      else await page.reload();
      await check(page, `${name}-390`);
      expect(errors, `JavaScript ${javaScriptEnabled ? 'on' : 'off'}`).toEqual([]);
      await viewer.context.close();
    }
    expect(views.false).toEqual(views.true);
    const byName = Object.fromEntries(views.true.rows.map((r) => [r[0].split('Created on')[0], r]));
    expect(byName['Two downloads']).toEqual([
      expect.stringMatching(/^Two downloadsCreated on /),
      '1',
      '2 of 2 left',
      'Never',
    ]);
    expect(byName['Last year'][0]).toContain(expiredOn);
    expect(byName['Last year'][3]).toBe(expiredOn);
    expect(byName['Weekly figures'][2]).toBe('No limit');

    // the public page of the expired link: it says so, in the customer's branding (as a used-up one does)
    const visitor = await openPage(browser, server.baseUrl);
    const answer = await visitor.page.goto(expired.preview_link);
    expect(answer?.status()).toBe(410);
    await expect(visitor.page.textContent('h1')).resolves.toBe('This link has expired');
    await expect(visitor.page.textContent('[data-testid=link-name]')).resolves.toBe('Last year');
    await expect(visitor.page.evaluate(() => getComputedStyle(document.body).backgroundColor)).resolves.toBe(
      'rgb(30, 58, 95)',
    );
    await visitor.page.waitForFunction(
      () => (document.querySelector('img.logo') as HTMLImageElement | null)?.complete === true,
    );
    await expect(
      visitor.page.evaluate(() => (document.querySelector('img.logo') as HTMLImageElement).naturalWidth),
    ).resolves.toBe(96);
    await expect(visitor.page.locator('button').count()).resolves.toBe(0);
    await checkBoth(visitor.page, 'attachments-13-expired-link');
    await visitor.context.close();
  }, 180_000);

  it(
    "uses the console's one primary blue, not indigo " + "(the attachment pages used Bulma's default #485fc7)",
    async () => {
      const { page } = tab;
      const colours = () =>
        page.evaluate(() =>
          [...document.querySelectorAll('main *')].flatMap((el) => {
            const style = getComputedStyle(el);
            return [style.color, style.backgroundColor, style.borderTopColor];
          }),
        );
      await page.goto(`${server.baseUrl}/templates`);
      const primary = await page.evaluate(
        () => getComputedStyle(document.querySelector('[data-testid=create-template]')!).backgroundColor,
      );
      await page.goto(`${server.baseUrl}/online-attachments`);
      await hydrated(page, '[data-testid=attachment-table]');
      expect(
        await page.evaluate(
          () => getComputedStyle(document.querySelector('[data-testid=create-link]')!).backgroundColor,
        ),
      ).toBe(primary);
      expect(await colours()).not.toContain('rgb(72, 95, 199)');
      await page.goto(`${server.baseUrl}/online-attachments/create`);
      await hydrated(page, '[data-testid=attachment-save-exit]');
      expect(
        await page.evaluate(
          () => getComputedStyle(document.querySelector('[data-testid=attachment-save-exit]')!).backgroundColor,
        ),
      ).toBe(primary);
      expect(await colours()).not.toContain('rgb(72, 95, 199)');
      await checkBoth(page, 'attachments-14-create-primary');
    },
  );

  it('renders the empty list on the server for an account without links', async () => {
    for (const g of await tab.page.evaluate(
      async () => (await (await fetch('/v1/tracked-attachments/groups?limit=100')).json()).data as { id: number }[],
    )) {
      const gone = await tab.page.evaluate(
        async (id) =>
          (await fetch(`/v1/tracked-attachments/groups/${id}`, { method: 'DELETE', headers: { 'Request-Type': 'ui' } }))
            .status,
        g.id,
      );
      expect(gone).toBe(200);
    }
    const viewer = await openPage(browser, server.baseUrl, {
      storageState: await tab.context.storageState(),
      javaScriptEnabled: false,
    });
    await viewer.page.goto(`${server.baseUrl}/online-attachments`);
    await expect(viewer.page.textContent('[data-testid=attachment-empty]')).resolves.toBe('No links available');
    await viewer.context.close();
  });
});

describe('online attachments: leaving the name field on the edit page', () => {
  /** A link made through the API from the signed-in page; its id. */
  const newLink = (name: string) =>
    tab.page.evaluate(async (name) => {
      const form = new FormData();
      form.append('group', JSON.stringify({ name }));
      const res = await fetch('/v1/tracked-attachments/groups', {
        method: 'POST',
        headers: { 'Request-Type': 'ui' },
        body: form,
      });
      return ((await res.json()) as { id: number }).id;
    }, name);
  const storedName = (id: number) =>
    tab.page.evaluate(
      async (id) => ((await (await fetch(`/v1/tracked-attachments/groups/${id}`)).json()) as { name: string }).name,
      id,
    );
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);

  /** The edit page of link `id` at `viewport`, its name field open with `name` typed in it. */
  async function typeName(page: Page, id: number, viewport: { width: number; height: number }, name: string) {
    await page.setViewportSize(viewport);
    await page.goto(`${server.baseUrl}/online-attachments/${id}/edit`);
    await hydrated(page, '[data-testid=attachment-editor]');
    await page.waitForSelector('[data-testid=attachment-editor][aria-busy=false]');
    await animationsDone(page);
    await page.click('[data-testid=attachment-name-edit]');
    await page.fill('[data-testid=attachment-name-input]', name);
  }

  /** The name is the page's heading under its title, and the field is closed. */
  async function expectHeading(page: Page, name: string) {
    await expect(page.getByRole('heading', { name, exact: true }).getAttribute('data-testid')).resolves.toBe(
      'attachment-name',
    );
    await expect(page.locator('h1').allTextContents()).resolves.toEqual(['Edit Download Link']);
    expect(await page.locator('[data-testid=attachment-name-input]').count()).toBe(0);
  }

  it('Tab commits the name: the heading shows it, the keyboard is on Edit, and Save stores it', async () => {
    const { page } = tab;
    const id = await newLink('Board pack');
    for (const [viewport, width] of [
      [VIEWPORTS.desktop, '1440'],
      [VIEWPORTS.phone, '390'],
    ] as const) {
      const name = `Board pack, tabbed at ${width}`;
      await typeName(page, id, viewport, name);
      await page.keyboard.press('Tab');
      await expectHeading(page, name);
      await expect(focused(page)).resolves.toBe('attachment-name-edit');
      await checkPage(page, `attachments-15-name-tab-${width}`);
      await page.click('[data-testid=attachment-save]');
      await alertText(page, 'Save successful');
      await expect(storedName(id)).resolves.toBe(name);
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  });

  it('a click elsewhere commits the name: the heading shows it, and Save stores it', async () => {
    const { page } = tab;
    const id = await newLink('Minutes');
    for (const [viewport, width] of [
      [VIEWPORTS.desktop, '1440'],
      [VIEWPORTS.phone, '390'],
    ] as const) {
      const name = `Minutes, clicked away at ${width}`;
      await typeName(page, id, viewport, name);
      await page.click('[data-testid=files-count]');
      await expectHeading(page, name);
      // the click put the focus where it landed, not back on Edit
      await expect(focused(page)).resolves.not.toBe('attachment-name-edit');
      await checkPage(page, `attachments-16-name-click-${width}`);
      await page.click('[data-testid=attachment-save]');
      await alertText(page, 'Save successful');
      await expect(storedName(id)).resolves.toBe(name);
    }
    await page.setViewportSize(VIEWPORTS.desktop);
  });
});
