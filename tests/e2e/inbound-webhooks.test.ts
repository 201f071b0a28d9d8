// Received mail and webhooks in Chromium (docs/receiving.md "To a webhook", docs/console.md §2 "Inbound"):
// a Resend webhook asking for the whole message, made with POST /resend/webhooks, gets a message put in
// through the real MX listener by nodemailer; the message's page lists that request in its Webhook
// requests card (rendered on the server: URL, status, the HTTP status, attempts), and Replay sends it
// again, the row then saying how the new attempt went. Settings' Webhook modal shows and changes what
// email.received carries. axe and the layout at 1440 and 390 px; screenshots in test-results/.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  alertTexts,
  animationsDone,
  PARENT,
  hydrated,
  hydratedInView,
  launchBrowser,
  openPage,
  signInThroughForm,
} from '../helpers/browser.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { idOf, mxSender } from '../helpers/mx-sender.ts';
import { VIEWPORTS, checkPage } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { setDomainReceiving } from '../../src/server/domains/domains.service.ts';

const PASSWORD = 'user-password-123';
const READER = 'reader@inbound-webhooks.test';
/** The server's work (the MX, the webhook worker) within this: a bound for a hang, not a delay. */
const DONE = { timeout: 30_000, interval: 200 };

let dns: DnsTestServer;
let server: RunningServer;
let browser: Browser;
let hook: WebhookReceiver;
let messageId: string;
const sender = mxSender();

beforeAll(async () => {
  dns = await startDnsServer();
  sender.publishSpf(dns);
  hook = await startWebhookReceiver();
  server = await prepareServer({ DNS_SERVERS: dns.address, WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Hook Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  const customer = createdId(
    await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Hook Shop'),
    'customer',
  );
  await server.admin(
    'user',
    'create',
    '--customer',
    'Hook Shop',
    '--email',
    READER,
    '--name',
    'Reader',
    '--password',
    PASSWORD,
  );
  const added = await server.admin('domain', 'add', 'shop.example', '--customer', 'Hook Shop', '--verified');
  const domainId = Number(/^domain (\d+) added/m.exec(added)![1]);
  await setDomainReceiving({ db: await server.database() }, customer, domainId, { receiving: true });
  const apiKey = /^api key:\s+(\S+)$/m.exec(await server.admin('credentials', 'show', '--customer', 'Hook Shop'))![1];
  await server.start();

  const created = await fetch(`${server.baseUrl}/resend/webhooks`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ endpoint: `${hook.url}/in`, events: ['email.received'], received_content: 'full' }),
  });
  expect(created.status).toBe(201);
  const info = await sender.transport(Number(server.env.BOUNCE_SMTP_PORT)).sendMail({
    from: 'Zoë <zoe@sender.example>',
    to: 'support@shop.example',
    subject: 'Ticket 21',
    text: 'Where is my parcel?',
    attachments: [{ filename: 'receipt.txt', content: 'order 21' }],
  });
  messageId = idOf(info.response);
  await vi.waitFor(() => expect(hook.received).toHaveLength(1), DONE);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await hook?.close();
  await dns?.close();
});

async function signedIn(viewport: { width: number; height: number } = VIEWPORTS.desktop): Promise<Page> {
  const { page } = await openPage(browser, server.baseUrl, { viewport });
  await signInThroughForm(page, server.baseUrl, READER, PASSWORD);
  return page;
}

/** The message's requests as the console's call answers them. */
const requests = (page: Page) =>
  page.evaluate(async (id) => {
    const res = await fetch(`/v1/inbound/${id}/webhook-requests`);
    return (await res.json()).data as { progress: string; attempts: number }[];
  }, messageId);

const cells = (page: Page, testId: string) =>
  page.$$eval(`[data-testid=${testId}]`, (nodes) => nodes.map((n) => n.textContent?.trim()));

describe('A received message’s webhook requests', () => {
  it('lists the request with its status and attempts, and Replay sends it again', async () => {
    const page = await signedIn();
    // the worker writes its results in batches: the success is recorded a moment after the answer
    await expect.poll(async () => (await requests(page))[0]?.progress, DONE).toBe('success');
    await page.goto(`${server.baseUrl}/inbound/${messageId}`);
    await expect(cells(page, 'inbound-webhook-url')).resolves.toEqual([`${hook.url}/in`]);
    await expect(cells(page, 'inbound-webhook-status')).resolves.toEqual(['Success']);
    await expect(cells(page, 'inbound-webhook-code')).resolves.toEqual(['HTTP 200']);
    await expect(cells(page, 'inbound-webhook-attempts')).resolves.toEqual(['1']);
    await hydratedInView(page, '[data-testid=inbound-webhook-replay]');
    await animationsDone(page);
    await checkPage(page, 'inbound-webhooks-1-card-1440', ['[data-testid=inbound-webhooks-table]']);

    await page.click('[data-testid=inbound-webhook-replay]');
    await page.waitForSelector('[data-testid=inbound-webhook-replay-status]');
    await expect
      .poll(() => page.textContent('[data-testid=inbound-webhook-replay-status]'), DONE)
      .toBe('New attempt: answered 200. Success.');
    expect(hook.received).toHaveLength(2);
    expect(hook.received[1].body).toBe(hook.received[0].body);
    await checkPage(page, 'inbound-webhooks-2-replayed-1440', ['[data-testid=inbound-webhook-replay-status]']);
    await page.reload();
    await expect(cells(page, 'inbound-webhook-attempts')).resolves.toEqual(['2']);
    await page.context().close();
  });

  it('at 390 px: the card fits, the URL under the date and the attempts under the status', async () => {
    const page = await signedIn(VIEWPORTS.phone);
    await page.goto(`${server.baseUrl}/inbound/${messageId}`);
    await hydratedInView(page, '[data-testid=inbound-webhook-replay]');
    await animationsDone(page);
    await expect(page.isVisible('[data-testid=inbound-webhook-url]')).resolves.toBe(false);
    await expect(page.isVisible('[data-testid=inbound-webhook-attempts]')).resolves.toBe(false);
    await expect(page.textContent('.inbound-webhook-attempts-below')).resolves.toMatch(/^\s*\d+ attempts?\s*$/);
    await checkPage(page, 'inbound-webhooks-3-card-390', ['[data-testid=inbound-webhook-replay]']);
    await page.context().close();
  });
});

describe('The Webhook modal’s received-mail choice', () => {
  for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
    it(`at ${viewport.width} px: shows what email.received carries and saves a new inline limit`, async () => {
      const page = await signedIn(viewport);
      await page.goto(`${server.baseUrl}/settings`);
      await hydrated(page, '[data-testid=webhook-item-edit]');
      await page.click('[data-testid=webhook-item-edit]');
      await page.waitForSelector('[data-testid=webhook-modal]');
      await expect(page.inputValue('[data-testid=webhook-received-content]')).resolves.toBe('full');
      // 256 KiB unless set; the desktop run below sets 128
      if (viewport === VIEWPORTS.desktop)
        await expect(page.inputValue('[data-testid=webhook-received-inline]')).resolves.toBe('256');
      await page.locator('[data-testid=webhook-received-content]').scrollIntoViewIfNeeded();
      await animationsDone(page);
      await checkPage(page, `inbound-webhooks-4-modal-${viewport.width}`, ['[data-testid=webhook-received]']);
      if (viewport === VIEWPORTS.phone) {
        await page.selectOption('[data-testid=webhook-received-content]', 'metadata');
        await expect(page.locator('[data-testid=webhook-received-inline]').count()).resolves.toBe(0);
        await page.context().close();
        return;
      }
      await page.fill('[data-testid=webhook-received-inline]', '128');
      await page.click('[data-testid=webhook-save]');
      await expect.poll(() => alertTexts(page), DONE).toContain('Webhook saved successfully.');
      const saved = await page.evaluate(async () => (await (await fetch('/v1/webhooks')).json()).data[0]);
      expect(saved).toMatchObject({ received_content: 'full', received_inline_max_bytes: 131_072 });
      await page.context().close();
    });
  }
});
