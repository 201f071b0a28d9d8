// A brand-new customer from sign-in to a first verified send, in Chromium against the
// built service, with a local SMTP sink as the far side of delivery: getting started → an invalid
// domain → add a domain → open the verification mail from the sink → confirm → green check → copy
// the credentials → send with them over the API and SMTP → both arrive DKIM-signed → the home page
// becomes the dashboard.
import type { Browser } from 'playwright-core';
import { expectAccessible } from '../helpers/page-checks.ts';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hydrated,
  launchBrowser,
  location,
  openPage,
  expectShownFor,
  screenshot,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { dkimResult } from '../helpers/dkim.ts';
import { MODAL_ERROR_CLEAR_MS, MODAL_SUCCESS_CLOSE_MS } from '../../src/lib/timings.ts';

const EMAIL = 'new@walk.test';
const PASSWORD = 'walk-password-123';

let server: RunningServer;
let sink: SmtpSink;
let browser: Browser;
let tab: TestPage;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await prepareServer({
    SMTP_RELAY_URL: sink.url,
    SYSTEM_FROM: 'Transact <no-reply@transact.test>',
    SMTP_ALLOW_INSECURE_AUTH: 'true',
  });
  const enterprise = createdId(await server.admin('enterprise', 'create', '--name', 'Walk Enterprise'), 'enterprise');
  await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Walk Customer');
  await server.admin(
    'user',
    'create',
    '--customer',
    'Walk Customer',
    '--email',
    EMAIL,
    '--name',
    'Walk User',
    '--password',
    PASSWORD,
  );
  await server.start();
  browser = await launchBrowser();
  tab = await openPage(browser, server.baseUrl);
  await tab.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await sink?.close();
});

const inputValue = (testId: string) => tab.page.inputValue(`[data-testid="${testId}"]`);

describe('a new customer, from sign-in to a first verified send', () => {
  let link = '';
  let apiKey = '';
  const smtp = { host: '', port: 0, username: '', password: '' };

  it('lands on "Let\'s get started" after signing in', async () => {
    await signInThroughForm(tab.page, server.baseUrl, EMAIL, PASSWORD);
    expect(location(tab.page)).toBe('/');
    expect(await tab.page.textContent('[data-testid=page-title]')).toBe("Let's get started");
    await hydrated(tab.page, '[data-testid=domains-card]');
    expect(await tab.page.textContent('[data-testid=domains-card]')).toContain('Add and Verify Domain');
    expect(await tab.page.textContent('[data-testid=configure-card]')).toContain('Configure using API or SMTP');
    await screenshot(tab.page, 'getting-started-1-empty');
  });

  it('explains an invalid domain and keeps Send disabled until the domain and local part are right', async () => {
    await tab.page.click('[data-testid=add-domain]');
    // the open modal, empty (its placeholders shown), gets an axe run of its own
    await tab.page.waitForSelector('[data-testid=domain-input]');
    await expectAccessible(tab.page, 'Add Domain modal');
    await tab.page.fill('[data-testid=domain-input]', 'not a domain');
    expect(await tab.page.textContent('[data-testid=domain-invalid]')).toBe('Please enter a valid domain name');
    expect(await tab.page.isDisabled('[data-testid=send-verification]')).toBe(true);
    await screenshot(tab.page, 'getting-started-2-invalid-domain');
    await tab.page.fill('[data-testid=domain-input]', 'walk.example');
    expect(await tab.page.$('[data-testid=domain-invalid]')).toBeNull();
    expect(await tab.page.textContent('[data-testid=domain-suffix]')).toBe('@walk.example');
    expect(await tab.page.isDisabled('[data-testid=send-verification]')).toBe(true);
    await tab.page.fill('[data-testid=local-input]', 'postmaster');
    expect(await tab.page.isDisabled('[data-testid=send-verification]')).toBe(false);
  });

  it(
    'adds the domain: success message, the modal closes ' + 'after 3 s, the domain is listed with a red cross',
    async () => {
      // the page's clock stands still from the click and the test moves it: the 3 s are counted on it,
      // not on a loaded machine's (a wall-clock measure of them failed in CI)
      await tab.page.clock.install();
      await expectShownFor(tab.page, MODAL_SUCCESS_CLOSE_MS, '[data-testid=domain-modal]', async () => {
        await tab.page.click('[data-testid=send-verification]');
        const success = await tab.page.waitForSelector('[data-testid=domain-success]');
        expect(await success.textContent()).toContain('Domain Created');
        // until the modal closes, nothing can be sent twice
        expect(await tab.page.isDisabled('[data-testid=send-verification]')).toBe(true);
        await screenshot(tab.page, 'getting-started-3-domain-created');
      });
      const row = await tab.page.waitForSelector('[data-testid=domain-row][data-domain="walk.example"]');
      expect(await row.getAttribute('data-verified')).toBe('no');
      await screenshot(tab.page, 'getting-started-4-domain-listed');
    },
  );

  it("shows the server's message for a domain already added, then clears it after 5 s", async () => {
    await tab.page.click('[data-testid=add-domain]');
    await tab.page.fill('[data-testid=domain-input]', 'walk.example');
    await tab.page.fill('[data-testid=local-input]', 'postmaster');
    await expectShownFor(tab.page, MODAL_ERROR_CLEAR_MS, '[data-testid=domain-error]', async () => {
      await tab.page.click('[data-testid=send-verification]');
      const error = await tab.page.waitForSelector('[data-testid=domain-error]');
      expect(await error.textContent()).toBe('walk.example is already added to this account');
    });
    await tab.page.click('text=Back');
    await tab.page.waitForSelector('[data-testid=domain-modal]', { state: 'detached' });
  });

  it('mails a verification link to postmaster@walk.example from the system sender', async () => {
    const [mail] = await sink.waitFor(1, 20_000);
    expect(mail.to).toEqual(['postmaster@walk.example']);
    const parsed = await simpleParser(mail.raw);
    expect(parsed.from?.value[0].address).toBe('no-reply@transact.test');
    expect(parsed.subject).toBe('Verify walk.example for sending');
    link = /https?:\/\/\S+\/verify-domain\/\d+\/[\w-]+/.exec(parsed.text ?? '')?.[0] ?? '';
    expect(link.startsWith(server.baseUrl)).toBe(true);
  });

  it('opening the link changes nothing until Confirm is pressed; then the domain has a green check', async () => {
    const scanner = await fetch(link); // what a link scanner does
    expect(scanner.status).toBe(200);
    await tab.page.goto(`${server.baseUrl}/`);
    expect(await (await tab.page.waitForSelector('[data-testid=domain-row]')).getAttribute('data-verified')).toBe('no');

    await tab.page.goto(link);
    expect(await tab.page.textContent('h1')).toBe('Verify walk.example');
    await screenshot(tab.page, 'getting-started-5-confirm');
    await Promise.all([tab.page.waitForNavigation(), tab.page.click('[data-testid=confirm-domain]')]);
    expect(await tab.page.textContent('h1')).toBe('Domain verified');
    await screenshot(tab.page, 'getting-started-6-verified');
    // a way back: the domain's page in the console (signed in, it opens; else the sign-in asks first)
    const back = await tab.page.getAttribute('[data-testid=verify-back]', 'href');
    expect(back).toMatch(/^\/domains\/\d+$/);
    await tab.page.goto(link);
    expect(await tab.page.textContent('h1')).toBe('This link is not valid');

    await tab.page.goto(`${server.baseUrl}/`);
    expect(await tab.page.textContent('[data-testid=page-title]')).toBe("Let's get started"); // nothing sent yet
    const row = await tab.page.waitForSelector('[data-testid=domain-row][data-domain="walk.example"]');
    expect(await row.getAttribute('data-verified')).toBe('yes');
    expect(await tab.page.getAttribute('[data-testid=step-domain]', 'class')).toContain('is-done');
  });

  it('copies the API and SMTP credentials (masked until shown)', async () => {
    await tab.page.click('[data-testid=get-key-api]');
    expect(await tab.page.getAttribute('[data-testid=api-key-input]', 'type')).toBe('password');
    await tab.page.click('[data-testid=api-key-reveal]');
    expect(await tab.page.getAttribute('[data-testid=api-key-input]', 'type')).toBe('text');
    await tab.page.click('[data-testid=api-key-copy]');
    await tab.page.waitForSelector('[data-testid=api-key-copy]:has-text("Copied")');
    apiKey = await tab.page.evaluate(() => navigator.clipboard.readText());
    expect(apiKey).toMatch(/^tsk_/);
    expect(await inputValue('api-endpoint-input')).toBe(`${server.baseUrl}/v1/mail`);
    await screenshot(tab.page, 'getting-started-7-api-key');

    await tab.page.click('[data-testid=get-key-smtp]');
    expect(await tab.page.getAttribute('[data-testid=smtp-password-input]', 'type')).toBe('password');
    smtp.host = await inputValue('smtp-host-input');
    smtp.port = Number(await inputValue('smtp-port-input'));
    smtp.username = await inputValue('smtp-username-input');
    await tab.page.click('[data-testid=smtp-password-copy]');
    await tab.page.waitForSelector('[data-testid=smtp-password-copy]:has-text("Copied")');
    smtp.password = await tab.page.evaluate(() => navigator.clipboard.readText());
    expect(smtp.port).toBe(Number(server.env.SMTP_PORT));
    await screenshot(tab.page, 'getting-started-8-smtp');
  });

  it('sends with those credentials over the API and SMTP; both arrive DKIM-signed for walk.example', async () => {
    const api = await fetch(`${server.baseUrl}/v1/mail`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        from: 'Shop <hello@walk.example>',
        to: 'buyer@customer.example',
        subject: 'Sent over the API',
        html: '<p>Hello</p>',
      }),
    });
    expect(api.status).toBe(202);
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      ignoreTLS: true,
      auth: { user: smtp.username, pass: smtp.password },
    });
    await transport.sendMail({
      from: 'Shop <hello@walk.example>',
      to: 'buyer@customer.example',
      subject: 'Sent over SMTP',
      text: 'Hello',
    });
    transport.close();

    const messages = await sink.waitFor(3, 20_000);
    // the DKIM key as the domain's page shows it for publishing
    const rowLink = await tab.page.getAttribute(
      '[data-testid=domain-row][data-domain="walk.example"] [data-testid=domain-edit]',
      'href',
    );
    await tab.page.goto(`${server.baseUrl}${rowLink}`);
    await hydrated(tab.page, '[data-testid=dns-record]');
    await screenshot(tab.page, 'getting-started-9-domain-details');
    const dkimName = await inputValue('dns-dkim-name-input');
    const publicKey = /p=(\S+)/.exec(await inputValue('dns-dkim-value-input'))![1];
    const domain = {
      domain: 'walk.example',
      dkim_selector: dkimName.split('._domainkey.')[0],
      dkim_public_key: publicKey,
    };
    for (const subject of ['Sent over the API', 'Sent over SMTP']) {
      const mail = messages.find((m) => m.raw.toString('utf8').includes(`Subject: ${subject}`));
      expect(mail, subject).toBeDefined();
      expect(mail!.to).toEqual(['buyer@customer.example']);
      const dkim = await dkimResult(mail!.raw, domain);
      expect(dkim.status.result, subject).toBe('pass');
      expect(dkim.signingDomain).toBe('walk.example');
    }
  });

  it('the home page is now the dashboard', async () => {
    await tab.page.goto(`${server.baseUrl}/`);
    expect(await tab.page.textContent('[data-testid=page-title]')).toBe('Transactional Dashboard');
    await screenshot(tab.page, 'getting-started-10-dashboard');
  });
});
