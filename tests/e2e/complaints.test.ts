// A spam complaint in the console, against the built service: three messages sent through the API
// and delivered to a local sink, then a feedback loop's report (RFC 5965) about one of them mailed
// over SMTP to the service's bounce receiver at fbl@ the return-path domain. In Chromium at desktop
// and phone widths, with axe: the recipient under the Suppression List's Complaint filter, the
// complaint in More Info's timeline, and the complaint rate beside the bounces on the dashboard and
// in the group's report.
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arfAbout } from '../helpers/arf-fixture.ts';
import {
  animationsDone,
  hydrated,
  hydratedInView,
  launchBrowser,
  openPage,
  signInThroughForm,
} from '../helpers/browser.ts';
import { checkPage, VIEWPORTS } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';

const EMAIL = 'complaints@shop.example';
const PASSWORD = 'complaints-password-123';
const RETURN_PATH = 'rp.complaints.test';
const COMPLAINT_EVENT = '[data-testid=timeline-event][data-type=complaint]';

let server: RunningServer;
let sink: SmtpSink;
let browser: Browser;
/** The transaction complained about, and the other two. */
let complained: { uuid: string; to: string };
let others: string[];

async function sendAll(apiKey: string): Promise<{ uuid: string; to: string }[]> {
  const sent: { uuid: string; to: string }[] = [];
  for (const name of ['ann', 'bob', 'cid']) {
    const to = `${name}-${randomUUID().slice(0, 6)}@customer.example`;
    const res = await fetch(`${server.baseUrl}/v1/mail`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        from: 'Shop <orders@shop.example>',
        to,
        subject: 'Your order',
        text: 'Thanks for your order.',
        group: 'Orders',
      }),
    });
    expect(res.status).toBe(202);
    sent.push({ uuid: ((await res.json()) as { data: { trans_uuid: string }[] }).data[0].trans_uuid, to });
  }
  return sent;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await prepareServer({ SMTP_RELAY_URL: sink.url, RETURN_PATH_DOMAIN: RETURN_PATH });
  const enterprise = createdId(await server.admin('enterprise', 'create', '--name', 'Complaints Ent'), 'enterprise');
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Complaints Shop');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Complaints Shop',
    '--email',
    EMAIL,
    '--name',
    'Complaints User',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', 'shop.example', '--customer', 'Complaints Shop', '--verified');
  const show = await server.admin('credentials', 'show', '--customer', 'Complaints Shop');
  const apiKey = /^api key:\s+(\S+)$/m.exec(show)![1];
  await server.start();
  const sent = await sendAll(apiKey);
  [complained] = sent;
  others = sent.slice(1).map((s) => s.uuid);
  await sink.waitFor(3, 60_000);
  // the report a feedback loop sends about the message as the mailbox got it, to the address it is registered with
  const delivered = sink.messages.find((m) => m.to.includes(complained.to))!;
  const fbl = `fbl@${RETURN_PATH}`;
  const info = await nodemailer
    .createTransport({ host: '127.0.0.1', port: Number(server.env.BOUNCE_SMTP_PORT), secure: false, ignoreTLS: true })
    .sendMail({
      envelope: { from: '', to: [fbl] },
      raw: arfAbout(delivered.raw.toString('latin1'), { reportTo: fbl, returnPath: delivered.from }),
    });
  expect(info.response).toMatch(/^250 2\.0\.0 Report received/);
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
});

/** The dashboard once every delivery is recorded (the table's rows say Delivered), reloading until then. */
async function dashboard(page: Page): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.goto(`${server.baseUrl}/`);
        await hydratedInView(
          page,
          `[data-testid=transaction-row][data-uuid="${complained.uuid}"] [data-testid=more-info]`,
        );
        return page.$$eval('[data-testid=transaction-status]', (cells) => cells.map((c) => c.textContent));
      },
      { timeout: 60_000 },
    )
    .toEqual(['Delivered', 'Delivered', 'Delivered']);
}

describe('a spam complaint in the console', () => {
  for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
    it(`at ${viewport.width} px: Suppression List (Complaint), More Info, dashboard and group report`, {
      timeout: 180_000,
    }, async () => {
      const { page, context } = await openPage(browser, server.baseUrl, { viewport });
      await signInThroughForm(page, server.baseUrl, EMAIL, PASSWORD);

      // the Suppression List, filtered by the origin Complaint
      await page.goto(`${server.baseUrl}/suppression-list`);
      await hydrated(page, '[data-testid=origin-complaint]');
      await page.click('[data-testid=origin-complaint]');
      await page.waitForSelector('[data-testid=origin-complaint][aria-pressed=true]');
      await page.waitForSelector('.suppression-table[aria-busy=false]');
      const rows = await page.$$eval('[data-testid=suppression-row]', (trs) =>
        trs.map((tr) => [
          tr.querySelector('[data-testid=suppression-email]')?.textContent,
          tr.querySelector('[data-testid=suppression-origin]')?.textContent,
        ]),
      );
      expect(rows).toEqual([[complained.to, 'Complaint']]);
      await animationsDone(page);
      await checkPage(page, `complaints-suppression-list-${viewport.width}`, ['[data-testid=origin-complaint]']);

      // the dashboard: 1 complaint of 3 delivered, beside the bounces
      await dashboard(page);
      await page.waitForSelector('[data-testid=breakdown-complaints]');
      await expect(page.textContent('[data-testid=breakdown-complaints]')).resolves.toBe('1 33.33% of delivered');
      await checkPage(page, `complaints-dashboard-${viewport.width}`, ['[data-testid=breakdown-complaints]']);

      // More Info: the complaint in the timeline, the others without one
      await page.click(`[data-testid=transaction-row][data-uuid="${complained.uuid}"] [data-testid=more-info]`);
      await page.waitForSelector(COMPLAINT_EVENT);
      const complaint = await page.$$eval(
        `${COMPLAINT_EVENT} :is([data-testid=timeline-title], [data-testid=timeline-detail])`,
        (els) => els.map((e) => e.textContent),
      );
      expect(complaint).toEqual([
        'Complaint',
        'The recipient marked the message as spam',
        'Feedback type: abuse',
        'Reported by MailboxFBL/1.4',
      ]);
      await page.locator(COMPLAINT_EVENT).scrollIntoViewIfNeeded();
      await checkPage(page, `complaints-more-info-${viewport.width}`, [COMPLAINT_EVENT]);
      await page.keyboard.press('Escape');
      await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
      for (const uuid of others) {
        await page.click(`[data-testid=transaction-row][data-uuid="${uuid}"] [data-testid=more-info]`);
        await page.waitForSelector('[data-testid=timeline-event]');
        expect(await page.$$(COMPLAINT_EVENT)).toHaveLength(0);
        await page.keyboard.press('Escape');
        await page.waitForSelector('[data-testid=transaction-info]', { state: 'detached' });
      }

      // the group's report: the complaint rate in the summary band and the Delivery widget
      const group = await page.getAttribute(
        `[data-testid=transaction-row][data-uuid="${complained.uuid}"] [data-testid=transaction-group]`,
        'href',
      );
      await page.goto(`${server.baseUrl}${group}`);
      await page.waitForSelector('[data-testid=summary-complaints-share]');
      await expect(page.textContent('[data-testid=summary-complaints-value]')).resolves.toBe('1');
      await expect(page.textContent('[data-testid=summary-complaints-share]')).resolves.toBe('33.33%');
      await expect(page.textContent('[data-testid=summary-bounced-share]')).resolves.toBe('0%');
      await page.locator('[data-testid=delivery-card]').scrollIntoViewIfNeeded();
      await page.waitForSelector('[data-testid=delivery-donut]');
      await expect(page.textContent('[data-testid=delivery-complaints-share]')).resolves.toBe('33.33%');
      await animationsDone(page);
      await checkPage(page, `complaints-group-report-${viewport.width}`, [
        '[data-testid=summary-complaints]',
        '[data-testid=delivery-complaints]',
      ]);
      await context.close();
    });
  }
});
