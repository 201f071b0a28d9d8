// What happened on the wire, in the console: the built service delivers straight to the
// recipient's MX (no SMTP_RELAY_URL), found through a DNS server started here; the first MX refuses,
// the second takes the message over STARTTLS. More Info's timeline then reads "Delivered to
// mx2.wire.test (127.0.0.3) over TLS 1.x" with the host tried before it, at desktop and phone widths.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hydratedInView, launchBrowser, openPage, signInThroughForm } from '../helpers/browser.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { freePort } from '../../scripts/lib/service-harness.mjs';
import { createTestCa, startMxHost, type MxHost } from '../helpers/mx-hosts.ts';
import { checkPage, VIEWPORTS } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';

const EMAIL = 'wire@shop.example';
const PASSWORD = 'wire-password-123';

let server: RunningServer;
let browser: Browser;
let dns: DnsTestServer;
let mx2: MxHost;
let uuid: string;

beforeAll(async () => {
  dns = await startDnsServer();
  const ca = await createTestCa();
  const mxPort = await freePort('127.0.0.3');
  dns.set('wire.test', 'MX', ['10 mx1.wire.test', '20 mx2.wire.test']);
  dns.set('mx1.wire.test', 'A', ['127.0.0.2']); // nothing listens there: connection refused
  dns.set('mx2.wire.test', 'A', ['127.0.0.3']);
  mx2 = await startMxHost('127.0.0.3', mxPort, { tls: await ca.issue(['mx2.wire.test']) });
  server = await prepareServer({
    DNS_SERVERS: dns.address,
    MX_PORT: String(mxPort),
    RETURN_PATH_DOMAIN: 'rp.shop.example',
    MX_TIMEOUT_SECONDS: '5',
  });
  const enterprise = createdId(await server.admin('enterprise', 'create', '--name', 'Wire Enterprise'), 'enterprise');
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Wire Shop');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Wire Shop',
    '--email',
    EMAIL,
    '--name',
    'Wire User',
    '--password',
    PASSWORD,
  );
  await server.admin('domain', 'add', 'shop.example', '--customer', 'Wire Shop', '--verified');
  const apiKey = /^api key:\s+(\S+)$/m.exec(await server.admin('credentials', 'show', '--customer', 'Wire Shop'))![1];
  await server.start();
  const res = await fetch(`${server.baseUrl}/v1/mail`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: 'Shop <orders@shop.example>',
      to: 'ann@wire.test',
      subject: 'On the wire',
      text: 'Hello',
    }),
  });
  expect(res.status).toBe(202);
  uuid = ((await res.json()) as { data: { trans_uuid: string }[] }).data[0].trans_uuid;
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await mx2?.close();
  await dns?.close();
});

describe('More Info shows where a message went and how', () => {
  for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
    it(`at ${viewport.width} px: delivered to the second MX over TLS, the refused first one listed`, {
      timeout: 120_000,
    }, async () => {
      await expect.poll(() => mx2.messages.length, { timeout: 60_000 }).toBe(1);
      expect(mx2.messages[0].secure).toBe(true);
      const { page } = await openPage(browser, server.baseUrl, { viewport });
      await signInThroughForm(page, server.baseUrl, EMAIL, PASSWORD);
      await page.goto(`${server.baseUrl}/`);
      // the delivery is recorded once the MX answered: the row says Delivered (reloading until it does)
      await expect
        .poll(
          async () => {
            await page.reload();
            await hydratedInView(page, `[data-testid=transaction-row][data-uuid="${uuid}"] [data-testid=more-info]`);
            return page.textContent(`[data-testid=transaction-row][data-uuid="${uuid}"]`);
          },
          { timeout: 60_000 },
        )
        .toContain('Delivered');
      await page.click(`[data-testid=transaction-row][data-uuid="${uuid}"] [data-testid=more-info]`);
      await page.waitForSelector('[data-testid=timeline]');
      const details = await page.$$eval(
        '[data-testid=timeline-event][data-type=delivered] [data-testid=timeline-detail]',
        (els) => els.map((e) => e.textContent),
      );
      expect(details[0]).toMatch(/^Delivered to mx2\.wire\.test \(127\.0\.0\.3\) over TLS 1\.[23]$/);
      expect(details).toContainEqual(expect.stringMatching(/^Tried mx1\.wire\.test \(127\.0\.0\.2\): /));
      await checkPage(page, `delivery-wire-more-info-${viewport.width}`, ['[data-testid=transaction-info]']);
      await page.close();
    });
  }
});
