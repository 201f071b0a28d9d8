// Machines' opens and clicks told from people's (src/server/tracking/machine-rules.ts) through the
// real tracking endpoints, behind a proxy (TRUST_PROXY: X-Forwarded-For is the client's address):
// mail sent by the API, delivered by the worker to a local sink, then its pixel and links fetched as
// Apple Mail Privacy Protection, a link scanner, a HEAD and a person would. Every hit is an event;
// only people's move the read and click counts, the links' clicks and the rollups' opens and clicks;
// machines' are counted apart (the figures' machineOpens, machineClicks); the events API and both
// webhook field sets say which.
import { figuresOf } from '../helpers/figures.ts';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, type TestApp, sendAsClient } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { flushTracking, recordClick, resolveClick } from '../../src/server/tracking/tracking.service.ts';
import { WebhookWorker } from '../../src/server/webhooks/worker.ts';

let app: TestApp;
let sink: SmtpSink;
let receiver: WebhookReceiver;
let worker: DeliveryWorker;
let cookie: string;
let apiKey: string;

const SAFARI =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15';
const HTML =
  '<html><body><p><a href="https://shop.example/order">Your order</a> ' +
  '<a href="https://shop.example/help">Help</a></p></body></html>';
const HOUR = 3_600_000;

/** GET (or HEAD) of a tracking path from `ip` with `agent`, as the proxy in front of us forwards it. */
const fetchAs = (path: string, ip: string, agent: string, method = 'GET') =>
  app.api.request(`${ORIGIN}${path}`, {
    method,
    headers: { 'X-Forwarded-For': `${ip}, 10.0.0.2`, 'User-Agent': agent },
  });

/** Waits until `probe` holds (also in beforeAll, where expect.poll may not run). */
async function waitFor(probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Sends one tracked message and returns its uuid and the paths of its pixel and two links once it is delivered. */
async function deliveredMessage(to: string): Promise<{ uuid: string; pixel: string; links: string[] }> {
  const res = await sendAsClient(app, '/v1/mail', apiKey, {
    from: 'orders@shop.example',
    to,
    subject: 'Your order',
    html: HTML,
    group: 'Machines',
  });
  expect(res.status).toBe(202);
  const uuid: string = (await res.json()).data[0].trans_uuid;
  const id = uuid.replace(/-/g, '');
  await waitFor(async () => sink.messages.some((m) => m.from.includes(id)));
  const html = String((await simpleParser(sink.messages.find((m) => m.from.includes(id))!.raw)).html);
  // the worker records the delivery (sent_at) just after the sink's answer
  await waitFor(async () => (await row(uuid)).sent_at !== null);
  return {
    uuid,
    pixel: new URL(/src="([^"]*\/t\/o\/[^"]+)"/.exec(html)![1]).pathname,
    links: [...html.matchAll(/href="([^"]*\/t\/c\/[^"]+)"/g)].map((m) => new URL(m[1]).pathname),
  };
}

const row = (uuid: string) =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['id', 'group_id', 'sent_at', 'open_count', 'click_count', 'first_open_at', 'first_click_at'])
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();

/** Moves the recorded delivery to `ms` before now: the hits that follow come that long after it. */
async function deliveredAgo(uuid: string, ms: number): Promise<void> {
  await app.ctx.db
    .updateTable('transactions')
    .set({ sent_at: new Date(Date.now() - ms) })
    .where('uuid', '=', uuid)
    .execute();
}

/** The group's opens and clicks as the console counts them, the machines' beside the people's. */
const stats = async (groupId: number) => {
  const { customer_id } = await app.ctx.db
    .selectFrom('transaction_groups')
    .select('customer_id')
    .where('id', '=', groupId)
    .executeTakeFirstOrThrow();
  const f = await figuresOf(app.ctx.db, Number(customer_id), groupId);
  return {
    opens: f.opens,
    unique_opens: f.uniqueOpens,
    clicks: f.clicks,
    unique_clicks: f.uniqueClicks,
    machine_opens: f.machineOpens,
    machine_clicks: f.machineClicks,
  };
};

interface EventWire {
  type: string;
  data: { ip?: string; user_agent?: string; url?: string; machine?: boolean; machine_rule?: string };
}
const timeline = async (uuid: string): Promise<EventWire[]> =>
  (await (await app.call('GET', `/v1/transactions/${uuid}/events`, { cookie })).json()).data;

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = await startWebhookReceiver();
  app = await createTestApp({
    SMTP_RELAY_URL: sink.url,
    HOST: '127.0.0.1',
    TRUST_PROXY: 'true',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  });
  const account = await app.createAccount();
  cookie = await app.signIn(account.email, account.password);
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
  await app.ctx.db
    .updateTable('customers')
    .set({ track_opens: true, track_links: true })
    .where('id', '=', account.customerId)
    .execute();
  const saved = await app.call('POST', '/v1/webhooks', {
    cookie,
    body: {
      url: `${receiver.url}/hook`,
      verb: 'post',
      status: 'enabled',
      auth_type: null,
      auth_details: null,
      event_types: ['open', 'click'],
      field_set: 'standard',
    },
  });
  expect(saved.status).toBe(200);
  worker = new DeliveryWorker(app.ctx);
  worker.start();
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  if (app) await flushTracking(app.ctx);
  await receiver?.close();
  await sink?.close();
  await app?.close();
});

describe('GET /t/o and /t/c from machines and from a person', () => {
  let uuid: string;
  let pixel: string;
  let links: string[];

  beforeAll(async () => {
    ({ uuid, pixel, links } = await deliveredMessage('ann@customer.example'));
  });

  it('records Apple Mail Privacy Protection’s fetch of the pixel as a machine’s open, counting no read', async () => {
    expect((await fetchAs(pixel, '17.58.63.1', 'Mozilla/5.0')).status).toBe(200);
    await flushTracking(app.ctx);
    const tx = await row(uuid);
    expect(tx).toMatchObject({ open_count: 0, first_open_at: null });
    expect(await stats(tx.group_id)).toMatchObject({ opens: 0, unique_opens: 0, machine_opens: 1 });
    expect((await timeline(uuid)).filter((e) => e.type === 'open')).toEqual([
      {
        type: 'open',
        time: expect.any(Number),
        data: {
          ip: '17.58.63.1',
          user_agent: 'Mozilla/5.0',
          machine: true,
          machine_rule: 'apple_mail_proxy',
        },
      },
    ]);
  });

  it('records a click 2 s after delivery as a machine’s, and still redirects it', async () => {
    await deliveredAgo(uuid, 2_000);
    const res = await fetchAs(links[0], '198.51.100.7', SAFARI);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.example/order');
    await flushTracking(app.ctx);
    const tx = await row(uuid);
    expect(tx).toMatchObject({ click_count: 0, first_click_at: null });
    expect(await stats(tx.group_id)).toMatchObject({ clicks: 0, unique_clicks: 0, machine_clicks: 1 });
    const clicks = (await timeline(uuid)).filter((e) => e.type === 'click');
    expect(clicks.map((e) => e.data)).toEqual([
      {
        url: 'https://shop.example/order',
        ip: '198.51.100.7',
        user_agent: SAFARI,
        machine: true,
        machine_rule: 'click_at_delivery',
      },
    ]);
  });

  it('records HEAD requests of the pixel and a link as machines’', async () => {
    await deliveredAgo(uuid, HOUR);
    expect((await fetchAs(pixel, '203.0.113.50', SAFARI, 'HEAD')).status).toBe(200);
    expect((await fetchAs(links[1], '203.0.113.50', SAFARI, 'HEAD')).status).toBe(302);
    await flushTracking(app.ctx);
    const tx = await row(uuid);
    expect(tx).toMatchObject({ open_count: 0, click_count: 0 });
    expect(await stats(tx.group_id)).toMatchObject({ opens: 0, clicks: 0, machine_opens: 2, machine_clicks: 2 });
    const heads = (await timeline(uuid)).filter((e) => e.data.machine_rule === 'head_request');
    expect(heads.map((e) => e.type)).toEqual(['open', 'click']);
  });

  it('counts a browser’s open and click an hour after delivery as the person’s, the first ones unique', async () => {
    expect((await fetchAs(pixel, '203.0.113.50', SAFARI)).status).toBe(200);
    expect((await fetchAs(links[1], '203.0.113.50', SAFARI)).status).toBe(302);
    await flushTracking(app.ctx);
    const tx = await row(uuid);
    expect(tx).toMatchObject({ open_count: 1, click_count: 1 });
    expect(tx.first_open_at).not.toBeNull();
    expect(tx.first_click_at).not.toBeNull();
    expect(await stats(tx.group_id)).toEqual({
      opens: 1,
      unique_opens: 1,
      clicks: 1,
      unique_clicks: 1,
      machine_opens: 2,
      machine_clicks: 2,
    });
    const linkRows = await app.ctx.db
      .selectFrom('links')
      .select(['url', 'clicks'])
      .where('transaction_id', '=', tx.id)
      .orderBy('url')
      .execute();
    // the machine's click on /order moved no link counter
    expect(linkRows).toEqual([
      { url: 'https://shop.example/help', clicks: 1 },
      { url: 'https://shop.example/order', clicks: 0 },
    ]);
    const last = (await timeline(uuid)).slice(-2);
    expect(last.map((e) => [e.type, e.data.machine, e.data.machine_rule])).toEqual([
      ['open', false, undefined],
      ['click', false, undefined],
    ]);
  });

  it('tells the webhook which opens and clicks were machines’ (machine, machine_rule)', async () => {
    const hooks = new WebhookWorker(app.ctx);
    try {
      expect(await hooks.runOnce()).toBe(6);
    } finally {
      await hooks.stop();
    }
    // in any order: the worker delivers them concurrently
    const seen = receiver.received.map((r) => {
      const b = JSON.parse(r.body) as { type: string; data: Record<string, unknown> };
      return [b.type, b.data.machine, b.data.machine_rule, b.data.ip].join(' ');
    });
    expect(seen.sort()).toEqual(
      [
        'email.open true apple_mail_proxy 17.58.63.1',
        'email.click true click_at_delivery 198.51.100.7',
        'email.open true head_request 203.0.113.50',
        'email.click true head_request 203.0.113.50',
        'email.open false  203.0.113.50',
        'email.click false  203.0.113.50',
      ].sort(),
    );
  });
});

describe('clicks the rules weigh together', () => {
  it('takes clicks on every link within a second from one address for a scan, another’s for a person', async () => {
    const { uuid, links } = await deliveredMessage('bob@customer.example');
    await deliveredAgo(uuid, HOUR);
    const [order, help] = await Promise.all(links.map((path) => resolveClick(app.ctx, path.slice('/t/c/'.length))));
    const at = new Date();
    const scanner = { ip: '203.0.113.77', userAgent: SAFARI };
    // the sweep in one write: every click of it is the scanner's
    recordClick(app.ctx, order!, scanner, at);
    recordClick(app.ctx, help!, scanner, new Date(at.getTime() + 300));
    recordClick(app.ctx, order!, { ip: '203.0.113.78', userAgent: SAFARI }, new Date(at.getTime() + 400));
    await flushTracking(app.ctx);
    // a sweep over two writes: the click that completes it is a machine's; the one already written stays a person's
    const later = new Date(at.getTime() + 60_000);
    recordClick(app.ctx, help!, { ip: '203.0.113.79', userAgent: SAFARI }, later);
    await flushTracking(app.ctx);
    recordClick(app.ctx, order!, { ip: '203.0.113.79', userAgent: SAFARI }, new Date(later.getTime() + 900));
    await flushTracking(app.ctx);
    const clicks = (await timeline(uuid)).filter((e) => e.type === 'click');
    expect(clicks.map((e) => [e.data.ip, e.data.url, e.data.machine_rule ?? null])).toEqual([
      ['203.0.113.77', 'https://shop.example/order', 'every_link_at_once'],
      ['203.0.113.77', 'https://shop.example/help', 'every_link_at_once'],
      ['203.0.113.78', 'https://shop.example/order', null],
      ['203.0.113.79', 'https://shop.example/help', null],
      ['203.0.113.79', 'https://shop.example/order', 'every_link_at_once'],
    ]);
    expect((await row(uuid)).click_count).toBe(2);
  });

  it('takes a click from a gateway’s published network for a scan, whenever it comes', async () => {
    const { uuid, links } = await deliveredMessage('carol@customer.example');
    await deliveredAgo(uuid, HOUR);
    await fetchAs(links[1], '40.107.22.45', SAFARI);
    await flushTracking(app.ctx);
    const [click] = (await timeline(uuid)).filter((e) => e.type === 'click');
    expect(click.data).toMatchObject({ machine: true, machine_rule: 'link_scanner_network' });
    expect((await row(uuid)).click_count).toBe(0);
  });
});
