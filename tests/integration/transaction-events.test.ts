// GET /v1/transactions/{trans_uuid}/events, the Transaction Info modal's timeline, through the real
// pipeline: mail accepted by POST /v1/mail, delivered by the worker to a local sink that answers 550
// for one recipient, an open and a click fetched from the tracking endpoints, an unsubscribe posted
// by the recipient's page, and a recipient refused at acceptance (suppressed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, TEST_SECRET, type TestApp, type TestAccount, sendAsClient } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { flushTracking, openToken } from '../../src/server/tracking/tracking.service.ts';

interface EventWire {
  type: string;
  time: number;
  data: Record<string, unknown>;
}

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let shop: TestAccount;
let shopCookie: string;
let otherCookie: string;
let apiKey: string;
const uuid: Record<'delivered' | 'bounced' | 'suppressed', string> = { delivered: '', bounced: '', suppressed: '' };

async function send(to: string): Promise<string> {
  const res = await sendAsClient(app, '/v1/mail', apiKey, {
    from: 'orders@events.example',
    to,
    subject: 'Your order',
    html: '<p><a href="https://events.example/orders/7">Order 7</a></p>',
    group: 'Orders',
  });
  expect(res.status).toBe(202);
  return (await res.json()).data[0].trans_uuid;
}

async function events(id: string, cookie = shopCookie): Promise<Response> {
  return app.call('GET', `/v1/transactions/${id}/events`, { cookie });
}

async function timeline(id: string): Promise<EventWire[]> {
  const res = await events(id);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: EventWire[] }).data;
}

/** Waits until the transaction's latest event is `type`. */
async function settledAs(id: string, type: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while ((await timeline(id)).at(-1)?.type !== type) {
    if (Date.now() > deadline) throw new Error(`transaction ${id} did not reach '${type}'`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  sink = await startSmtpSink();
  sink.replies.set('gone@customer.example', [
    550,
    '5.1.1 <gone@customer.example>: Recipient address rejected: User unknown',
  ]);
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, HOST: '127.0.0.1', RETURN_PATH_DOMAIN: 'rp.transact.test' });
  shop = await app.createAccount();
  const other = await app.createAccount();
  await addDomain(app.ctx, shop.customerId, 'events.example', { verified: true });
  await app.ctx.db
    .updateTable('customers')
    .set({ track_opens: true, track_links: true })
    .where('id', '=', shop.customerId)
    .execute();
  apiKey = (await credentialsForConsole(app.ctx, shop.customerId)).apiCredentials.apiKey;
  shopCookie = await app.signIn(shop.email, shop.password);
  otherCookie = await app.signIn(other.email, other.password);
  const suppressed = await app.call('POST', '/v1/suppression', {
    cookie: shopCookie,
    body: { emails: ['blocked@customer.example'] },
  });
  expect(suppressed.status).toBe(200);
  worker = new DeliveryWorker(app.ctx);
  worker.start();

  uuid.delivered = await send('ann@customer.example');
  uuid.bounced = await send('gone@customer.example');
  uuid.suppressed = await send('blocked@customer.example');
  await settledAs(uuid.delivered, 'delivered');
  await settledAs(uuid.bounced, 'bounced');
});

afterAll(async () => {
  await worker?.stop();
  await sink?.close();
  if (app) await flushTracking(app.ctx);
  await app?.close();
});

describe('GET /v1/transactions/{trans_uuid}/events', () => {
  it('lists a delivered transaction queued, sent, delivered with the remote reply, oldest first', async () => {
    const list = await timeline(uuid.delivered);
    expect(list.map((e) => e.type)).toEqual(['queued', 'sent', 'delivered']);
    expect(list[0].data).toEqual({});
    expect(list[1].data).toMatchObject({ attempt: 1 });
    expect(String(list[2].data.reply)).toMatch(/^250 /);
    const now = Date.now() / 1000;
    for (const e of list) expect(e.time).toBeGreaterThan(now - 120);
    expect(list.map((e) => e.time)).toEqual([...list.map((e) => e.time)].sort((a, b) => a - b));
  });

  it("gives a bounce its hard type and the remote server's 550 reply", async () => {
    const list = await timeline(uuid.bounced);
    expect(list.map((e) => e.type)).toEqual(['queued', 'bounced']);
    expect(list[1].data.bounce_type).toBe('hard');
    expect(String(list[1].data.reply)).toContain('550');
    expect(String(list[1].data.reply)).toContain('User unknown');
  });

  it('gives a recipient refused at acceptance its reason', async () => {
    const list = await timeline(uuid.suppressed);
    expect(list.map((e) => e.type)).toEqual(['queued', 'failed']);
    expect(String(list[1].data.reason)).toMatch(/suppress/i);
  });

  it('appends opens, clicks (with the link) and an unsubscribe', async () => {
    const ua = 'Mozilla/5.0 (EventsTest)';
    const open = await app.api.request(`${ORIGIN}/t/o/${openToken(TEST_SECRET, uuid.delivered)}`, {
      headers: { 'User-Agent': ua },
    });
    expect(open.status).toBe(200);
    const link = await app.ctx.db
      .selectFrom('links')
      .innerJoin('transactions', 'transactions.id', 'links.transaction_id')
      .select('links.token')
      .where('transactions.uuid', '=', uuid.delivered)
      .executeTakeFirstOrThrow();
    const click = await app.api.request(`${ORIGIN}/t/c/${link.token}`, { headers: { 'User-Agent': ua } });
    expect(click.status).toBe(302);
    await flushTracking(app.ctx);
    const unsubscribed = await app.call('POST', '/v1/unsubscribe', { body: { transaction_id: uuid.delivered } });
    expect(unsubscribed.status).toBe(200);

    const list = await timeline(uuid.delivered);
    expect(list.map((e) => e.type)).toEqual(['queued', 'sent', 'delivered', 'open', 'click', 'unsubscribe']);
    expect(list[3].data).toMatchObject({ user_agent: ua });
    expect(list[4].data).toMatchObject({ url: 'https://events.example/orders/7', user_agent: ua });
    expect(list[5].data).toEqual({ via: 'page' });
  });

  it('answers the same for the uuid in capitals', async () => {
    const lower = await timeline(uuid.bounced);
    expect(await timeline(uuid.bounced.toUpperCase())).toEqual(lower);
  });

  it("is 404 for another customer's transaction, an unknown uuid and a malformed one", async () => {
    const foreign = await events(uuid.delivered, otherCookie);
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.code).toBe('not_found');
    expect((await events('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await events('not-a-uuid')).status).toBe(404);
  });

  it('is 401 without a session', async () => {
    expect((await app.call('GET', `/v1/transactions/${uuid.delivered}/events`)).status).toBe(401);
  });

  it('is not cached', async () => {
    expect((await events(uuid.delivered)).headers.get('cache-control')).toBe('no-store');
  });
});
