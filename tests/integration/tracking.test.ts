// Open and click tracking through the real pipeline: mail in by the API and by SMTP, out through the
// worker (rewritten, DKIM-signed) to a local sink; then the pixel and links of the delivered
// messages are fetched from the Hono app, and the counters, events, links and daily_stats checked.
// Hits come an hour after delivery here, as a person's (machines': machine-hits.test.ts).
import { figuresOf } from '../helpers/figures.ts';
import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, type TestApp, type TestAccount, sendAsClient } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink, type SunkMessage } from '../helpers/smtp-sink.ts';
import { dkimResult } from '../helpers/dkim.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { startSubmissionServer, type SubmissionServer } from '../../src/server/smtp/submission.ts';
import { flushTracking, openToken } from '../../src/server/tracking/tracking.service.ts';
import type { Domain, EventType } from '../../src/server/db/schema.ts';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let smtp: SubmissionServer;
let shop: TestAccount;
let other: TestAccount;
let shopDomain: Domain;
let shopKey: string;
let otherKey: string;
let smtpUser: string;
let smtpPass: string;

const UA = 'Mozilla/5.0 (TrackingTest)';
const TRACKED_LINK = new RegExp(`${ORIGIN}/t/c/[A-Za-z0-9_-]{22}`, 'g');
const PIXEL = new RegExp(`<img src="${ORIGIN}/t/o/([0-9a-f]{32}\\.[A-Za-z0-9_-]{22})"`, 'g');

async function setTracking(customerId: number, on: boolean): Promise<void> {
  await app.ctx.db
    .updateTable('customers')
    .set({ track_opens: on, track_links: on })
    .where('id', '=', customerId)
    .execute();
}

async function send(apiKey: string, body: Record<string, unknown>): Promise<string> {
  const res = await sendAsClient(app, '/v1/mail', apiKey, body);
  expect(res.status).toBe(202);
  return (await res.json()).data[0].trans_uuid;
}

/** The delivered copy of a transaction, found by the uuid its VERP envelope sender carries. */
async function deliveredCopy(uuid: string): Promise<SunkMessage> {
  const id = uuid.replace(/-/g, '');
  await expect.poll(() => sink.messages.some((m) => m.from.includes(id)), { timeout: 15_000 }).toBe(true);
  return sink.messages.find((m) => m.from.includes(id))!;
}

/**
 * Waits for the worker to record the delivery, then moves it an hour back: the hits that follow are
 * a person's, not a gateway's scan at delivery (src/server/tracking/machine-rules.ts).
 */
async function deliveredAnHourAgo(uuid: string): Promise<void> {
  const sentAt = () =>
    app.ctx.db.selectFrom('transactions').select('sent_at').where('uuid', '=', uuid).executeTakeFirstOrThrow();
  await expect.poll(async () => (await sentAt()).sent_at, { timeout: 15_000 }).not.toBeNull();
  await app.ctx.db
    .updateTable('transactions')
    .set({ sent_at: new Date(Date.now() - 3_600_000) })
    .where('uuid', '=', uuid)
    .execute();
}

/** The paths of the tracking links in a delivered part, in order. */
const linkPaths = (content: string): string[] => [...content.matchAll(TRACKED_LINK)].map((m) => new URL(m[0]).pathname);
/** The path of the (only) pixel of a delivered HTML part. */
const pixelPath = (html: string): string => `/t/o/${[...html.matchAll(PIXEL)][0][1]}`;
const hit = (path: string, method = 'GET') =>
  app.api.request(`${ORIGIN}${path}`, { method, headers: { 'User-Agent': UA } });
const transaction = (uuid: string) =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['id', 'group_id', 'open_count', 'click_count', 'first_open_at', 'first_click_at'])
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();
const events = async (uuid: string, type: EventType) =>
  app.ctx.db
    .selectFrom('events')
    .innerJoin('transactions', 'transactions.id', 'events.transaction_id')
    .select(['events.data'])
    .where('transactions.uuid', '=', uuid)
    .where('events.type', '=', type)
    .orderBy('events.id')
    .execute();
const linksOf = async (uuid: string) =>
  app.ctx.db
    .selectFrom('links')
    .innerJoin('transactions', 'transactions.id', 'links.transaction_id')
    .select(['links.token', 'links.url', 'links.clicks', 'links.first_click_at', 'links.customer_id'])
    .where('transactions.uuid', '=', uuid)
    .orderBy('links.url')
    .execute();
/** The group's opens and clicks as the console counts them (people's hits; transactions opened, clicked). */
const stats = async (groupId: number) => {
  const { customer_id } = await app.ctx.db
    .selectFrom('transaction_groups')
    .select('customer_id')
    .where('id', '=', groupId)
    .executeTakeFirstOrThrow();
  const f = await figuresOf(app.ctx.db, Number(customer_id), groupId);
  return { opens: f.opens, unique_opens: f.uniqueOpens, clicks: f.clicks, unique_clicks: f.uniqueClicks };
};
/** Everything the tracking endpoints can move, to show that a request moved nothing. */
const snapshot = async () => ({
  transactions: await app.ctx.db
    .selectFrom('transactions')
    .select(['id', 'open_count', 'click_count'])
    .orderBy('id')
    .execute(),
  links: await app.ctx.db.selectFrom('links').select(['id', 'clicks']).orderBy('id').execute(),
  events: await app.ctx.db.selectFrom('events').select('id').where('type', 'in', ['open', 'click']).execute(),
  stats: await app.ctx.db
    .selectFrom('daily_stats')
    .select(['group_id', 'opens', 'clicks'])
    .orderBy('group_id')
    .execute(),
});

const HTML = [
  '<html><body>',
  '<p><a class="cta" href="https://shop.example/orders/1?ref=mail&amp;utm=x">Your order</a></p>',
  "<p><A HREF='http://shop.example/help'>Help</A></p>",
  '<p><a href="mailto:help@shop.example">Write to us</a></p>',
  '<p><a href="https+notrack://shop.example/private">Private</a></p>',
  `<p><a href="${ORIGIN}/unsubscribe/some-token">Unsubscribe</a></p>`,
  '</body></html>',
].join('\n');
const TEXT =
  'Your order: https://shop.example/orders/1?ref=mail&utm=x\nAll orders: https://shop.example/orders.\nPrivate: ' +
  'https+notrack://shop.example/private';

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, HOST: '127.0.0.1', RETURN_PATH_DOMAIN: 'rp.transact.test' });
  shop = await app.createAccount();
  other = await app.createAccount();
  shopDomain = await addDomain(app.ctx, shop.customerId, 'shop.example', { verified: true });
  await addDomain(app.ctx, other.customerId, 'other.example', { verified: true });
  const shopCreds = await credentialsForConsole(app.ctx, shop.customerId);
  shopKey = shopCreds.apiCredentials.apiKey;
  ({ username: smtpUser, password: smtpPass } = shopCreds.smtpCredentials);
  otherKey = (await credentialsForConsole(app.ctx, other.customerId)).apiCredentials.apiKey;
  await setTracking(shop.customerId, true);
  await setTracking(other.customerId, true);
  smtp = await startSubmissionServer(app.ctx, { port: 0, host: '127.0.0.1' });
  worker = new DeliveryWorker(app.ctx);
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await sink?.close();
  if (app) await flushTracking(app.ctx);
  await app?.close();
});

describe('open and click tracking of POST /v1/mail', () => {
  let uuid: string;
  let html: string;
  let text: string;

  it('delivers the HTML with a pixel and tracked links and the text with tracked URLs, DKIM intact', async () => {
    uuid = await send(shopKey, {
      from: 'orders@shop.example',
      to: 'ann@customer.example',
      subject: 'Tracked',
      html: HTML,
      text: TEXT,
      group: 'Tracked API',
    });
    const copy = await deliveredCopy(uuid);
    expect((await dkimResult(copy.raw, shopDomain)).status.result).toBe('pass');
    const parsed = await simpleParser(copy.raw);
    html = parsed.html as string;
    text = parsed.text as string;

    const pixels = [...html.matchAll(PIXEL)];
    expect(pixels).toHaveLength(1);
    expect(html.indexOf(pixels[0][0])).toBeLessThan(html.indexOf('</body>'));
    expect(html.match(TRACKED_LINK)).toHaveLength(2);
    expect(html).not.toContain('shop.example/orders');
    expect(html).not.toContain('shop.example/help');
    expect(html).toContain('<a class="cta" href="http://localhost:4321/t/c/');
    expect(html).toContain('href="mailto:help@shop.example"');
    expect(html).toContain('href="https://shop.example/private"');
    expect(html).toContain(`href="${ORIGIN}/unsubscribe/some-token"`);

    expect(text.match(TRACKED_LINK)).toHaveLength(2);
    expect(text).toMatch(new RegExp(`^All orders: ${ORIGIN}/t/c/[A-Za-z0-9_-]{22}\\.$`, 'm'));
    expect(text).toContain('Private: https://shop.example/private');

    // the order link appears in both parts: one row, one token; entities decoded for the stored URL
    const links = await linksOf(uuid);
    expect(links.map((l) => l.url)).toEqual([
      'http://shop.example/help',
      'https://shop.example/orders',
      'https://shop.example/orders/1?ref=mail&utm=x',
    ]);
    expect(links.every((l) => l.customer_id === shop.customerId && l.clicks === 0)).toBe(true);
    const orderToken = links.find((l) => l.url.endsWith('utm=x'))!.token;
    expect(html).toContain(`/t/c/${orderToken}`);
    expect(text).toContain(`Your order: ${ORIGIN}/t/c/${orderToken}`);
  });

  it('counts every pixel load as an open, and the first one as the unique open', async () => {
    const path = pixelPath(html);
    for (let i = 0; i < 2; i++) {
      const res = await hit(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(res.headers.get('cache-control')).toContain('no-store');
      expect(
        Buffer.from(await res.arrayBuffer())
          .subarray(0, 6)
          .toString(),
      ).toBe('GIF89a');
    }
    await flushTracking(app.ctx);
    const tx = await transaction(uuid);
    expect(tx.open_count).toBe(2);
    expect(tx.first_open_at).not.toBeNull();
    const opens = await events(uuid, 'open');
    expect(opens).toHaveLength(2);
    expect(opens[0].data).toMatchObject({ user_agent: UA });
    expect(await stats(tx.group_id)).toMatchObject({ opens: 2, unique_opens: 1, clicks: 0, unique_clicks: 0 });
  });

  it('redirects a tracked link to its URL and counts the click, the first one as unique', async () => {
    await deliveredAnHourAgo(uuid);
    const link = linkPaths(html)[0];
    for (let i = 0; i < 2; i++) {
      const res = await hit(link);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://shop.example/orders/1?ref=mail&utm=x');
      expect(res.headers.get('cache-control')).toContain('no-store');
    }
    expect((await hit(linkPaths(text)[1])).headers.get('location')).toBe('https://shop.example/orders');
    await flushTracking(app.ctx);

    const tx = await transaction(uuid);
    expect(tx.click_count).toBe(3);
    expect(tx.first_click_at).not.toBeNull();
    const byUrl = new Map((await linksOf(uuid)).map((l) => [l.url, l]));
    expect(byUrl.get('https://shop.example/orders/1?ref=mail&utm=x')).toMatchObject({ clicks: 2 });
    expect(byUrl.get('https://shop.example/orders/1?ref=mail&utm=x')!.first_click_at).not.toBeNull();
    expect(byUrl.get('https://shop.example/orders')).toMatchObject({ clicks: 1 });
    expect(byUrl.get('http://shop.example/help')).toMatchObject({ clicks: 0, first_click_at: null });
    const clicks = await events(uuid, 'click');
    expect(clicks.map((c) => (c.data as { url: string }).url)).toEqual([
      'https://shop.example/orders/1?ref=mail&utm=x',
      'https://shop.example/orders/1?ref=mail&utm=x',
      'https://shop.example/orders',
    ]);
    expect(clicks[0].data).toMatchObject({ user_agent: UA });
    expect(await stats(tx.group_id)).toMatchObject({ opens: 2, unique_opens: 1, clicks: 3, unique_clicks: 1 });
  });

  it('ignores extra query parameters of a tracked link', async () => {
    const res = await hit(`${linkPaths(html)[1]}?url=https://evil.example/&next=//evil.example`);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://shop.example/help');
    await flushTracking(app.ctx);
  });

  it("answers HEAD requests alike and records them as a machine's, counting none of people's", async () => {
    const before = await snapshot();
    const link = linkPaths(html)[0];
    expect((await hit(pixelPath(html), 'HEAD')).status).toBe(200);
    const head = await hit(link, 'HEAD');
    expect(head.status).toBe(302);
    expect(head.headers.get('location')).toBe('https://shop.example/orders/1?ref=mail&utm=x');
    await flushTracking(app.ctx);
    const after = await snapshot();
    expect({ ...after, events: before.events }).toEqual(before);
    expect(after.events).toHaveLength(before.events.length + 2);
    const heads = [...(await events(uuid, 'open')), ...(await events(uuid, 'click'))].filter(
      (e) => (e.data as { machine_rule?: string }).machine_rule === 'head_request',
    );
    expect(heads).toHaveLength(2);
  });

  it('answers forged and tampered tokens with 404 or the pixel, and records nothing', async () => {
    const before = await snapshot();
    const link = linkPaths(html)[0];
    const tampered = link.slice(0, -1) + (link.endsWith('A') ? 'B' : 'A');
    for (const path of [
      tampered,
      `/t/c/${randomBytes(16).toString('base64url').slice(0, 22)}`,
      '/t/c/short',
      '/t/c/..%2F..%2Fv1',
    ]) {
      const res = await hit(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    const token = openToken(app.ctx.config.secret!, uuid);
    const badMac = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const path of [`/t/o/${badMac}`, `/t/o/${token.toUpperCase()}`, '/t/o/nothing']) {
      const res = await hit(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
    }
    await flushTracking(app.ctx);
    expect(await snapshot()).toEqual(before);
  });

  it("cannot turn one customer's tokens against another customer's transaction", async () => {
    const theirs = await send(otherKey, {
      from: 'news@other.example',
      to: 'bob@customer.example',
      subject: 'Other',
      html: '<p><a href="https://other.example/x">x</a></p>',
    });
    await deliveredCopy(theirs);
    const before = await snapshot();
    // our open token's MAC with their transaction's uuid in front
    const mac = openToken(app.ctx.config.secret!, uuid).split('.')[1];
    expect((await hit(`/t/o/${theirs.replace(/-/g, '')}.${mac}`)).status).toBe(200);
    await flushTracking(app.ctx);
    expect(await snapshot()).toEqual(before);
    // our click token moves our transaction and link only
    await hit(linkPaths(html)[0]);
    await flushTracking(app.ctx);
    const after = await snapshot();
    const theirTx = await transaction(theirs);
    expect(after.transactions.find((t) => t.id === theirTx.id)).toEqual(
      before.transactions.find((t) => t.id === theirTx.id),
    );
    expect((await linksOf(theirs)).map((l) => l.clicks)).toEqual([0]);
    expect((await transaction(uuid)).click_count).toBe(5);
  });
});

describe('open and click tracking of SMTP submissions', () => {
  it('rewrites the text and HTML parts of the raw message; DKIM passes and the rest is kept', async () => {
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      auth: { user: smtpUser, pass: smtpPass },
      tls: { rejectUnauthorized: false },
    });
    const info = await client.sendMail({
      from: 'Shop <orders@shop.example>',
      to: 'carol@customer.example',
      subject: 'Über SMTP',
      headers: { 'X-Transact-Group': 'Tracked SMTP' },
      text: `Grüße! Track https://shop.example/smtp-text?a=1&b=2 ${'long '.repeat(20)}end`,
      html:
        '<html><body><p>Grüße <a href="https://shop.example/smtp-html?a=1&amp;b=2">go</a> <a ' +
        'href="mailto:x@shop.example">m</a></p></body></html>',
      attachments: [{ filename: 'note.txt', content: 'https://shop.example/in-attachment' }],
    });
    const uuid = /Queued as ([0-9a-f-]{36})/.exec(info.response)![1];
    const copy = await deliveredCopy(uuid);
    expect((await dkimResult(copy.raw, shopDomain)).status.result).toBe('pass');
    const parsed = await simpleParser(copy.raw);
    expect(parsed.subject).toBe('Über SMTP');
    expect(parsed.text).toMatch(new RegExp(`^Grüße! Track ${ORIGIN}/t/c/[A-Za-z0-9_-]{22} (long ){20}end`));
    expect([...(parsed.html as string).matchAll(PIXEL)]).toHaveLength(1);
    expect(parsed.html).toMatch(
      new RegExp(`<p>Grüße <a href="${ORIGIN}/t/c/[A-Za-z0-9_-]{22}">go</a> <a href="mailto:x@shop.example">m</a></p>`),
    );
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([
      ['note.txt', 'https://shop.example/in-attachment'],
    ]);
    expect((await linksOf(uuid)).map((l) => l.url)).toEqual([
      'https://shop.example/smtp-html?a=1&b=2',
      'https://shop.example/smtp-text?a=1&b=2',
    ]);

    await deliveredAnHourAgo(uuid);
    const res = await hit(linkPaths(parsed.html as string)[0]);
    expect(res.headers.get('location')).toBe('https://shop.example/smtp-html?a=1&b=2');
    await hit(pixelPath(parsed.html as string));
    await flushTracking(app.ctx);
    const tx = await transaction(uuid);
    expect(tx).toMatchObject({ open_count: 1, click_count: 1 });
    expect(await stats(tx.group_id)).toMatchObject({ opens: 1, unique_opens: 1, clicks: 1, unique_clicks: 1 });
  });
});

describe('tracking settings and retries', () => {
  it('sends the content as stored, +notrack resolved, when the customer has tracking off', async () => {
    await setTracking(shop.customerId, false);
    try {
      const uuid = await send(shopKey, {
        from: 'orders@shop.example',
        to: 'dan@customer.example',
        subject: 'Untracked',
        html: HTML,
        text: TEXT,
      });
      const parsed = await simpleParser((await deliveredCopy(uuid)).raw);
      expect(parsed.html).toBe(HTML.replace('https+notrack://', 'https://'));
      expect(parsed.text).toBe(TEXT.replace('https+notrack://', 'https://'));
      expect(await linksOf(uuid)).toEqual([]);

      const client = nodemailer.createTransport({
        host: '127.0.0.1',
        port: smtp.port,
        secure: false,
        auth: { user: smtpUser, pass: smtpPass },
        tls: { rejectUnauthorized: false },
      });
      const info = await client.sendMail({
        from: 'orders@shop.example',
        to: 'dan@customer.example',
        subject: 'Untracked SMTP',
        html: '<a href="https://shop.example/raw">r</a>',
        text: 'https://shop.example/raw',
      });
      const raw = (await deliveredCopy(/Queued as ([0-9a-f-]{36})/.exec(info.response)![1])).raw;
      const rawParsed = await simpleParser(raw);
      expect(rawParsed.html).toBe('<a href="https://shop.example/raw">r</a>');
      expect(rawParsed.text).toBe('https://shop.example/raw');
    } finally {
      await setTracking(shop.customerId, true);
    }
  });

  it('writes the same links on a retried delivery, not duplicates', async () => {
    sink.replies.set('later@customer.example', [451, '4.3.0 Try again later']);
    const uuid = await send(shopKey, {
      from: 'orders@shop.example',
      to: 'later@customer.example',
      subject: 'Retry',
      html: HTML,
      text: TEXT,
    });
    await expect.poll(async () => (await events(uuid, 'deferred')).length, { timeout: 15_000 }).toBe(1);
    const first = await linksOf(uuid);
    expect(first).toHaveLength(3);

    sink.replies.delete('later@customer.example');
    await app.ctx.db
      .updateTable('transactions')
      .set({ next_attempt_at: new Date() })
      .where('uuid', '=', uuid)
      .execute();
    worker.poke();
    const parsed = await simpleParser((await deliveredCopy(uuid)).raw);
    expect(await linksOf(uuid)).toEqual(first);
    const res = await hit(linkPaths(parsed.html as string)[0]);
    expect(res.status).toBe(302);
    await flushTracking(app.ctx);
  });
});
