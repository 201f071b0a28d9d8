// A scheduled message in the console, against the built service: sent with the resend SDK's
// `scheduled_at` through /resend/emails, it shows Scheduled in the dashboard's table, and More Info
// says when it goes and offers Cancel Sending; canceled, the row and the timeline say Canceled and
// the API reads it back so. In Chromium at desktop and phone widths, with axe.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { animationsDone, hydratedInView, launchBrowser, openPage, signInThroughForm } from '../helpers/browser.ts';
import { checkPage, VIEWPORTS } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const EMAIL = 'scheduled@shop.example';
const PASSWORD = 'scheduled-password-123';

let server: RunningServer;
let sink: SmtpSink;
let browser: Browser;
let apiKey: string;

/** Sends one message scheduled two hours ahead, as Resend's API takes it; answers its id and recipient. */
async function sendScheduled(): Promise<{ id: string; to: string }> {
  const to = `later-${randomUUID().slice(0, 6)}@customer.example`;
  const res = await fetch(`${server.baseUrl}/resend/emails`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: 'Shop <orders@shop.example>',
      to: [to],
      subject: 'Your order ships tomorrow',
      text: 'It ships tomorrow.',
      scheduled_at: 'in 2 hours',
    }),
  });
  expect(res.status).toBe(200);
  return { id: ((await res.json()) as { id: string }).id, to };
}

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await prepareServer({ SMTP_RELAY_URL: sink.url });
  const enterprise = createdId(await server.admin('enterprise', 'create', '--name', 'Scheduled Ent'), 'enterprise');
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Scheduled Shop');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Scheduled Shop',
    '--email',
    EMAIL,
    '--name',
    'Scheduled User',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', 'shop.example', '--customer', 'Scheduled Shop', '--verified');
  const show = await server.admin('credentials', 'show', '--customer', 'Scheduled Shop');
  apiKey = /^api key:\s+(\S+)$/m.exec(show)![1];
  await server.start();
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
});

const row = (id: string) => `[data-testid=transaction-row][data-uuid="${id}"]`;
const statusOf = (page: Page, id: string) => page.textContent(`${row(id)} [data-testid=transaction-status]`);

describe('a scheduled message in the console', () => {
  for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
    it(`at ${viewport.width} px: Scheduled in the table, More Info's time and Cancel Sending`, {
      timeout: 180_000,
    }, async () => {
      const sent = await sendScheduled();
      const { page, context } = await openPage(browser, server.baseUrl, { viewport });
      await signInThroughForm(page, server.baseUrl, EMAIL, PASSWORD);
      await page.goto(`${server.baseUrl}/`);
      await hydratedInView(page, `${row(sent.id)} [data-testid=more-info]`);
      await expect(statusOf(page, sent.id)).resolves.toBe('Scheduled');

      await page.click(`${row(sent.id)} [data-testid=more-info]`);
      await page.waitForSelector('[data-testid=timeline-event][data-type=scheduled]');
      await expect(page.textContent('[data-testid=info-sent]')).resolves.toBe('Scheduled, not sent yet');
      await expect(
        page.textContent('[data-testid=timeline-event][data-type=scheduled] [data-testid=timeline-detail]'),
      ).resolves.toMatch(/^To be sent /);
      await page.locator('[data-testid=info-cancel]').scrollIntoViewIfNeeded();
      await animationsDone(page);
      await checkPage(page, `scheduled-more-info-${viewport.width}`, ['[data-testid=info-cancel]']);

      await page.click('[data-testid=info-cancel]');
      await page.waitForSelector('[data-testid=timeline-event][data-type=canceled]');
      await page.waitForSelector('[data-testid=info-cancel]', { state: 'detached' });
      await expect(page.textContent('[data-testid=info-sent]')).resolves.toBe('Canceled: not sent');
      await page.locator('[data-testid=timeline-event][data-type=canceled]').scrollIntoViewIfNeeded();
      await checkPage(page, `scheduled-canceled-${viewport.width}`, [
        '[data-testid=timeline-event][data-type=canceled]',
      ]);
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
      await expect.poll(() => statusOf(page, sent.id), { timeout: 30_000 }).toBe('Canceled');

      const read = await fetch(`${server.baseUrl}/resend/emails/${sent.id}`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(await read.json()).toMatchObject({ id: sent.id, last_event: 'canceled' });
      expect(sink.messages.filter((m) => m.to.includes(sent.to))).toEqual([]);
      await context.close();
    });
  }
});
