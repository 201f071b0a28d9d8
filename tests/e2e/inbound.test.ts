// The Inbound pages in Chromium (docs/console.md §2 "Inbound") against the built service, with mail put in
// through its real MX listener (BOUNCE_SMTP_PORT, the smtp role) by nodemailer, as another mail server
// sends it; SPF, DKIM and DMARC answered by a local DNS server. The list (newest first, verdict tags,
// paging, the debounced search), a row opening the message, the sanitised HTML in its sandboxed frame
// running no script and loading nothing remote, an attachment downloaded, the raw message, the headers,
// the More Info of the sent message a reply answers, and that message's More Info on the Transactions
// page naming the reply, 404s for another account's and a malformed id, the text that says how to switch
// receiving on, the domain page's switch that refuses mail failing DMARC under p=reject, and a message
// nothing authenticates (Unverified, not Failed); axe and the layout at 1440 and 390 px.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PARENT,
  animationsDone,
  hydrated,
  launchBrowser,
  location,
  openPage,
  signInThroughForm,
  type TestPage,
} from '../helpers/browser.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { idOf, mxSender } from '../helpers/mx-sender.ts';
import { VIEWPORTS, checkPage } from '../helpers/page-checks.ts';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';
import { setDomainReceiving } from '../../src/server/domains/domains.service.ts';

const PASSWORD = 'user-password-123';
const SHOP = 'reader@inbound.test';
const QUIET = 'quiet@inbound.test'; // an account that has received nothing
const PHOTO = Buffer.alloc(4096, 9);
const TRACKER = 'http://tracker.example';

let dns: DnsTestServer;
let server: RunningServer;
let browser: Browser;
let sentUuid: string;
let shopDomainId: number;
const ids: Record<string, string> = {};

const sender = mxSender();
/** Another mail server handing a message to the service's MX listener. */
const mx = (dkim = false) => sender.transport(Number(server.env.BOUNCE_SMTP_PORT), { dkim });

async function account(enterprise: number, name: string, email: string): Promise<number> {
  const customer = createdId(
    await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', name),
    'customer',
  );
  await server.admin(
    'user',
    'create',
    '--customer',
    name,
    '--email',
    email,
    '--name',
    'Reader',
    '--password',
    PASSWORD,
  );
  return customer;
}

beforeAll(async () => {
  dns = await startDnsServer();
  sender.publishSpf(dns);
  sender.publishPolicies(dns);
  server = await prepareServer({ DNS_SERVERS: dns.address });
  const enterprise = createdId(
    await server.admin('enterprise', 'create', '--name', 'Inbound Enterprise', '--parent-url', PARENT),
    'enterprise',
  );
  const shop = await account(enterprise, 'Inbound Shop', SHOP);
  await account(enterprise, 'Quiet Shop', QUIET);
  const added = await server.admin('domain', 'add', 'shop.example', '--customer', 'Inbound Shop', '--verified');
  await server.admin('domain', 'add', 'quiet.example', '--customer', 'Quiet Shop', '--verified');
  shopDomainId = Number(/^domain (\d+) added/m.exec(added)![1]);
  await setDomainReceiving({ db: await server.database() }, shop, shopDomainId, { receiving: true });
  const apiKey = /^api key:\s+(\S+)$/m.exec(
    await server.admin('credentials', 'show', '--customer', 'Inbound Shop'),
  )![1];
  await server.start();

  const sent = await fetch(`${server.baseUrl}/v1/mail`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ from: 'orders@shop.example', to: 'zoe@sender.example', subject: 'Your order', text: 'Hi' }),
  });
  sentUuid = ((await sent.json()) as { data: { trans_uuid: string }[] }).data[0].trans_uuid;
  for (let i = 1; i <= 11; i++) {
    const info = await mx(true).sendMail({
      from: `Customer ${i} <c${i}@sender.example>`,
      to: 'Support <support@shop.example>',
      subject: `Question ${i}`,
      text: `Question number ${i}`,
    });
    ids[`q${i}`] = idOf(info.response);
  }
  ids.forged = idOf(
    (await mx().sendMail({ from: 'ceo@bank.example', to: 'billing@shop.example', subject: 'Wire it', text: 'Now.' }))
      .response,
  );
  const reply = await mx(true).sendMail({
    from: 'Zoë Ünal <zoe@sender.example>',
    to: 'Orders <orders@shop.example>',
    subject: 'Re: Your order',
    text: 'Thanks! The photo is attached.',
    html:
      `<style>@import url(${TRACKER}/style.css); h1 { color: #234; }</style>` +
      `<h1 onmouseover="document.body.dataset.ran = 'handler'">Thanks!</h1>` +
      `<script>document.body.dataset.ran = 'script'</script>` +
      `<p style="background: url(${TRACKER}/bg.png)">The photo is attached.</p>` +
      `<img src="${TRACKER}/open.gif" alt="pixel"><a href="https://sender.example/">our site</a>`,
    inReplyTo: `<${sentUuid}@shop.example>`,
    attachments: [{ filename: 'photo.jpg', content: PHOTO, contentType: 'image/jpeg' }],
  });
  ids.reply = idOf(reply.response);
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await dns?.close();
});

async function signedIn(email: string, viewport: { width: number; height: number } = VIEWPORTS.desktop) {
  const opened = await openPage(browser, server.baseUrl, { viewport, acceptDownloads: true });
  await signInThroughForm(opened.page, server.baseUrl, email, PASSWORD);
  return opened;
}

async function openList(page: Page): Promise<void> {
  await page.goto(`${server.baseUrl}/inbound`);
  await hydrated(page, '[data-testid=inbound-table]');
  await hydrated(page, '[data-testid=inbound-search]');
  await settled(page);
}

/** checkPage once CSS transitions are over (the side menu's width eases in as the page settles). */
async function checked(page: Page, name: string, shown: string[]): Promise<void> {
  await animationsDone(page);
  await checkPage(page, name, shown);
}

/** A search answers after the box's 1000 ms pause: a bound for a hang, not a delay. */
const SEARCHED = { timeout: 15_000 };
const settled = (page: Page) => page.waitForSelector('[data-testid=inbound-table][aria-busy=false]');
const subjects = (page: Page) =>
  page.$$eval('[data-testid=inbound-subject]', (links) => links.map((a) => a.textContent));
const QUESTIONS = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => `Question ${from - i}`);

describe('Inbound list', () => {
  it('lists received mail newest first with its verdict, server-rendered, and pages through it', async () => {
    const { context, page, foreign } = await signedIn(SHOP);
    // the first rows are in the HTML before any script runs
    const html = await (await page.request.get(`${server.baseUrl}/inbound`)).text();
    expect(html).toContain('Re: Your order');
    await openList(page);
    await expect(page.title()).resolves.toBe('Inbound · Transactional');
    await expect(page.getAttribute('[data-menu=inbound]', 'class')).resolves.toContain('is-active');
    await expect(
      page.$$eval('[data-testid=inbound-table] thead th', (ths) => ths.map((th) => th.textContent)),
    ).resolves.toEqual(['Received', 'From', 'To', 'Subject', 'Authentication']);
    expect(await subjects(page)).toEqual(['Re: Your order', 'Wire it', ...QUESTIONS(11, 4)]);
    const verdicts = await page.$$eval('[data-testid=inbound-verdict]', (tags) => tags.map((t) => t.textContent));
    expect(verdicts.slice(0, 3)).toEqual(['Passed', 'Flagged', 'Passed']);
    await expect(page.textContent('[data-testid=inbound-range]')).resolves.toBe('Displaying 1-10 of 13');
    await checked(page, 'inbound-1-list-1440', ['[data-testid=inbound-search]', '[data-testid=inbound-subject]']);

    await page.click('[data-testid=inbound-next]');
    await settled(page);
    await expect.poll(() => subjects(page), SEARCHED).toEqual(QUESTIONS(3, 1));
    await expect(page.textContent('[data-testid=inbound-range]')).resolves.toBe('Displaying 11-13 of 13');
    expect(foreign).toEqual([]);
    await context.close();
  });

  it('searches From, To and Subject 1000 ms after the last keystroke, from page 1', async () => {
    const { context, page } = await signedIn(SHOP);
    await openList(page);
    await page.click('[data-testid=inbound-next]');
    await settled(page);
    const searches: { body: Record<string, unknown>; at: number }[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/v1/inbound/search')
        searches.push({ body: req.postDataJSON(), at: Date.now() });
    });
    await page.type('[data-testid=inbound-search]', 'bank', { delay: 50 });
    const typedAt = Date.now();
    await expect.poll(() => subjects(page), SEARCHED).toEqual(['Wire it']);
    expect(searches).toHaveLength(1);
    expect(searches[0].body).toEqual({ page: 1, search: 'bank' });
    expect(searches[0].at - typedAt).toBeGreaterThanOrEqual(900);
    await page.fill('[data-testid=inbound-search]', 'orders@shop');
    await expect.poll(() => subjects(page), SEARCHED).toEqual(['Re: Your order']);
    await page.fill('[data-testid=inbound-search]', 'question 1');
    await expect.poll(() => subjects(page), SEARCHED).toEqual(['Question 11', 'Question 10', 'Question 1']);
    await page.fill('[data-testid=inbound-search]', 'nothing like it');
    await page.waitForSelector('[data-testid=inbound-empty]');
    await expect(page.textContent('[data-testid=inbound-empty]')).resolves.toContain('No received mail found.');
    await context.close();
  });

  for (const viewport of [VIEWPORTS.tablet, VIEWPORTS.phone]) {
    it(`at ${viewport.width} px: the list fits, and every row's subject is in view`, async () => {
      const { context, page } = await signedIn(SHOP, viewport);
      await openList(page);
      const shown = ['[data-testid=inbound-search]', '[data-testid=inbound-table]'];
      await checked(page, `inbound-2-list-${viewport.width}`, shown);
      // on a phone a row is a block: the subject under the sender, inside the screen's width
      const rows = await page.$$eval('[data-testid=inbound-row]', (trs) =>
        trs.map((tr) => {
          const box = (testId: string) => tr.querySelector(`[data-testid=${testId}]`)!.getBoundingClientRect();
          const [from, subject] = [box('inbound-from'), box('inbound-subject')];
          return { fromBottom: from.bottom, subjectTop: subject.top, left: subject.left, right: subject.right };
        }),
      );
      expect(rows).toHaveLength(10);
      for (const row of rows) {
        expect(row.left).toBeGreaterThanOrEqual(0);
        expect(row.right).toBeLessThanOrEqual(viewport.width);
        if (viewport === VIEWPORTS.phone) expect(row.subjectTop).toBeGreaterThanOrEqual(row.fromBottom - 1);
      }
      await context.close();
    });
  }

  it('says how to switch receiving on while nothing has been received', async () => {
    const { context, page } = await signedIn(QUIET);
    await page.goto(`${server.baseUrl}/inbound`);
    await hydrated(page, '[data-testid=inbound-nothing]');
    await expect(page.textContent('[data-testid=inbound-nothing]')).resolves.toContain(
      'No mail has been received yet.',
    );
    await expect(page.getAttribute('[data-testid=inbound-domain-link]', 'href')).resolves.toMatch(/^\/domains\/\d+$/);
    await expect(page.textContent('[data-testid=inbound-domain-link]')).resolves.toBe('quiet.example');
    await checked(page, 'inbound-3-empty-1440', ['[data-testid=inbound-nothing]']);
    await context.close();
  });
});

/** The message's frame: its document, once loaded. */
async function frameOf(page: Page) {
  const handle = await page.waitForSelector('[data-testid=inbound-html]');
  const frame = await handle.contentFrame();
  await frame!.waitForSelector('h1');
  return frame!;
}

describe('A received message', () => {
  for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.tablet, VIEWPORTS.phone]) {
    const title = 'opens from its row, shows the sanitised HTML running nothing and loading nothing remote';
    it(`at ${viewport.width} px: ${title}`, async () => {
      const { context, page, foreign }: TestPage = await signedIn(SHOP, viewport);
      await openList(page);
      // a click anywhere on the row opens it
      await page.click(`[data-testid=inbound-row][data-id="${ids.reply}"] [data-testid=inbound-verdict]`);
      await page.waitForURL(`**/inbound/${ids.reply}`);
      expect(location(page)).toBe(`/inbound/${ids.reply}`);
      await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Re: Your order');
      await expect(page.textContent('[data-testid=inbound-from]')).resolves.toBe('Zoë Ünal <zoe@sender.example>');
      await expect(page.textContent('[data-testid=inbound-verdict]')).resolves.toContain('Passed');
      for (const check of ['spf', 'dkim', 'dmarc'])
        await expect(page.textContent(`[data-testid=inbound-${check}]`)).resolves.toContain('pass');
      await expect(page.textContent('[data-testid=inbound-blocked]')).resolves.toContain(
        '2 remote images were not loaded',
      );

      const frameElement = page.locator('[data-testid=inbound-html]');
      await expect(frameElement.getAttribute('sandbox')).resolves.toBe('allow-popups allow-popups-to-escape-sandbox');
      const frame = await frameOf(page);
      await frame.hover('h1');
      await expect(frame.textContent('h1')).resolves.toBe('Thanks!');
      // no script ran (neither the element nor the handler survived, and the frame may run none)
      await expect(frame.evaluate(() => document.body.dataset.ran ?? 'none')).resolves.toBe('none');
      await expect(frame.$$eval('script', (s) => s.length)).resolves.toBe(0);
      await expect(frame.getAttribute('img', 'src')).resolves.toBeNull();
      await expect(frame.getAttribute('a', 'target')).resolves.toBe('_blank');
      await animationsDone(page);
      // nothing was asked of the tracker: not the pixel, not the CSS background, not the @import
      expect(foreign.filter((url) => url.startsWith(TRACKER))).toEqual([]);

      await page.click('[data-testid=tab-text]');
      await expect(page.textContent('[data-testid=inbound-text]')).resolves.toContain('The photo is attached.');
      await page.click('[data-testid=tab-html]');
      await frame.waitForSelector('h1', { state: 'visible' });
      await checked(page, `inbound-4-message-${viewport.width}`, [
        '[data-testid=page-title]',
        '[data-testid=inbound-html]',
        '[data-testid=inbound-attachment-link]',
      ]);
      await context.close();
    });
  }

  it('downloads an attachment and the raw message, and shows every header', async () => {
    const { context, page } = await signedIn(SHOP);
    await page.goto(`${server.baseUrl}/inbound/${ids.reply}`);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.click('[data-testid=inbound-attachment-link]'),
    ]);
    expect(download.suggestedFilename()).toBe('photo.jpg');
    const chunks: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(PHOTO)).toBe(true);
    const raw = await page.request.get((await page.getAttribute('[data-testid=inbound-raw-link]', 'href'))!);
    expect(raw.headers()['content-type']).toBe('message/rfc822');
    expect(await raw.text()).toMatch(/^Received-SPF: pass/);

    await expect(page.isVisible('[data-testid=inbound-headers]')).resolves.toBe(false);
    await page.click('[data-testid=inbound-headers-toggle]');
    const names = await page.$$eval('[data-testid=inbound-headers] tbody th', (ths) => ths.map((th) => th.textContent));
    expect(names).toEqual(expect.arrayContaining(['From', 'To', 'Subject', 'In-Reply-To', 'DKIM-Signature']));
    await checked(page, 'inbound-5-headers-1440', ['[data-testid=inbound-headers]']);
    await context.close();
  });

  it('links a reply to the More Info of the message it answers', async () => {
    const { context, page } = await signedIn(SHOP);
    await page.goto(`${server.baseUrl}/inbound/${ids.reply}`);
    await expect(page.textContent('[data-testid=inbound-reply]')).resolves.toContain(
      'A reply to Your order, sent to zoe@sender.example.',
    );
    await page.waitForSelector('[data-testid=inbound-reply] astro-island:not([ssr]) [data-testid=more-info]');
    await page.click('[data-testid=inbound-reply] [data-testid=more-info]');
    await page.waitForSelector('[data-testid=timeline]');
    await expect(page.textContent('[data-testid=info-id]')).resolves.toBe(sentUuid);
    await checked(page, 'inbound-6-more-info-1440', ['[data-testid=transaction-info]']);
    await context.close();
  });

  it('shows a flagged message’s verdict and its reason', async () => {
    const { context, page } = await signedIn(SHOP, VIEWPORTS.phone);
    await page.goto(`${server.baseUrl}/inbound/${ids.forged}`);
    await expect(page.textContent('[data-testid=inbound-verdict]')).resolves.toBe('Flagged');
    await expect(page.textContent('[data-testid=inbound-dmarc]')).resolves.toContain('fail');
    await expect(page.textContent('[data-testid=inbound-text]')).resolves.toContain('Now.');
    await checked(page, 'inbound-7-flagged-390', ['[data-testid=inbound-verdict]']);
    await context.close();
  });

  it('answers 404 for another account’s message and a malformed id', async () => {
    const { context, page } = await signedIn(QUIET);
    for (const id of [ids.reply, 'not-a-uuid']) {
      const res = await page.goto(`${server.baseUrl}/inbound/${id}`);
      expect(res!.status()).toBe(404);
      await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Message not found');
    }
    await context.close();
  });
});

describe('The More Info of a sent message on the Transactions page', () => {
  for (const viewport of [VIEWPORTS.desktop, VIEWPORTS.phone]) {
    it(`at ${viewport.width} px: names the reply received, when and from whom, linking to it`, async () => {
      const { context, page } = await signedIn(SHOP, viewport);
      await page.goto(`${server.baseUrl}/groups#recipients`);
      await page.waitForSelector('astro-island:not([ssr]) [data-testid=transaction-table]', { state: 'attached' });
      await page.waitForSelector('[data-testid=transaction-table][aria-busy=false]');
      await page.click(`[data-testid=transaction-row][data-uuid="${sentUuid}"] [data-testid=more-info]`);
      await page.waitForSelector('[data-testid=timeline]');
      const reply = page.locator('[data-testid=timeline-event][data-type=reply]');
      await expect(reply.count()).resolves.toBe(1);
      await expect(reply.locator('[data-testid=timeline-title]').textContent()).resolves.toBe('Reply received');
      await expect(reply.locator('time').getAttribute('datetime')).resolves.toMatch(/^\d{4}-\d\d-\d\dT/);
      await expect(reply.locator('[data-testid=timeline-detail]').first().textContent()).resolves.toBe(
        'From Zoë Ünal <zoe@sender.example>',
      );
      const link = reply.locator('[data-testid=timeline-reply-link]');
      await expect(link.getAttribute('href')).resolves.toBe(`/inbound/${ids.reply}`);
      // after what it answers: the reply is the last entry
      await expect(
        page.$$eval('[data-testid=timeline-event]', (items) => items.map((li) => (li as HTMLElement).dataset.type)),
      ).resolves.toEqual(expect.arrayContaining(['queued', 'reply']));
      await reply.scrollIntoViewIfNeeded();
      await checked(page, `inbound-8-more-info-reply-${viewport.width}`, [
        '[data-testid=timeline-event][data-type=reply]',
      ]);
      await link.click();
      await page.waitForURL(`**/inbound/${ids.reply}`);
      await expect(page.textContent('[data-testid=page-title]')).resolves.toBe('Re: Your order');
      await context.close();
    });
  }
});

describe('The domain page: refusing mail that fails DMARC under p=reject', () => {
  const switchOf = (page: Page, testId: string) => page.locator(`[data-testid=${testId}]`);
  const isChecked = (page: Page, testId: string, checked: boolean) =>
    page.waitForFunction(
      ([id, want]) => (document.querySelector(`[data-testid=${id}]`) as HTMLInputElement | null)?.checked === want,
      [testId, checked] as const,
    );

  it('is a switch under receiving; set, the listener refuses a forged From; errors are said inline', async () => {
    const { context, page } = await signedIn(SHOP);
    await page.goto(`${server.baseUrl}/domains/${shopDomainId}`);
    await hydrated(page, '[data-testid=refuse-dmarc-switch]');
    const refuse = switchOf(page, 'refuse-dmarc-switch');
    await expect(
      page.getByLabel("Refuse mail that fails DMARC when its sender's domain asks receivers to reject it").count(),
    ).resolves.toBe(1);
    await expect(refuse.isChecked()).resolves.toBe(false);
    await expect(refuse.isDisabled()).resolves.toBe(false);

    await refuse.click();
    await isChecked(page, 'refuse-dmarc-switch', true);
    await expect(page.textContent('#refuse-dmarc-help')).resolves.toContain('550 5.7.1');
    await expect(
      mx().sendMail({ from: 'ceo@bank.example', to: 'billing@shop.example', subject: 'Wire it', text: 'Now.' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    await checked(page, 'inbound-9-domain-refuse-dmarc-1440', ['[data-testid=receiving]']);

    // a refused change: said under the switches, the switch as it was
    await page.route('**/v1/domains/*/receiving', (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'internal_error', message: 'The service failed; try again.' } }),
      }),
    );
    await refuse.click();
    await expect(page.textContent('[data-testid=receiving-error]')).resolves.toBe('The service failed; try again.');
    await expect(refuse.isChecked()).resolves.toBe(true);
    await page.unroute('**/v1/domains/*/receiving');

    await refuse.click();
    await isChecked(page, 'refuse-dmarc-switch', false);
    await expect(page.isVisible('[data-testid=receiving-error]')).resolves.toBe(false);
    // receiving off: nothing to refuse, the switch waits
    await switchOf(page, 'receiving-switch').click();
    await isChecked(page, 'receiving-switch', false);
    await expect(refuse.isDisabled()).resolves.toBe(true);
    await page.setViewportSize(VIEWPORTS.phone);
    await checked(page, 'inbound-10-domain-receiving-off-390', ['[data-testid=receiving]']);
    await switchOf(page, 'receiving-switch').click();
    await isChecked(page, 'receiving-switch', true);
    await expect(refuse.isDisabled()).resolves.toBe(false);
    await context.close();
  });
});

describe('A message nothing authenticates', () => {
  it('reads Unverified, not Failed, with what each check found missing', async () => {
    const info = await mx().sendMail({
      from: 'someone@plain.example',
      to: 'support@shop.example',
      subject: 'No records anywhere',
      text: 'My domain publishes nothing.',
    });
    const id = idOf(info.response);
    const { context, page } = await signedIn(SHOP, VIEWPORTS.phone);
    await openList(page);
    await expect(
      page.textContent(`[data-testid=inbound-row][data-id="${id}"] [data-testid=inbound-verdict]`),
    ).resolves.toBe('Unverified');
    await page.goto(`${server.baseUrl}/inbound/${id}`);
    await expect(page.textContent('[data-testid=inbound-verdict]')).resolves.toBe('Unverified');
    await expect(page.textContent('[data-testid=inbound-spf]')).resolves.toBe('No SPF record');
    await expect(page.textContent('[data-testid=inbound-dkim]')).resolves.toBe('Not signed');
    await expect(page.textContent('[data-testid=inbound-dmarc]')).resolves.toBe('No policy');
    await checked(page, 'inbound-11-unverified-390', ['[data-testid=inbound-verdict]', '[data-testid=inbound-checks]']);
    await context.close();
  });
});
