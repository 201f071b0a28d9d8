// Webhooks end to end: saving (with every bad input refused and nothing saved), the
// outbox written with the events of every recording path, signed deliveries to a real local HTTP
// receiver for both field sets and all five verbs, one `delayed` per deferred message, the retry
// schedule walked with an injected clock, 410 Gone, Retry-After, redirects, a rolled-back event, the
// logs with More info and Replay, the retention purge. The receiver listens on 127.0.0.1, which
// WEBHOOK_ALLOWED_NETWORKS exempts here.
import { createServer } from 'node:net';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { claimDue } from '../../src/server/delivery/queue.repository.ts';
import { recordOutcomes } from '../../src/server/delivery/worker.ts';
import { insertEvents } from '../../src/server/events/events.repository.ts';
import { flushTracking, recordClick, recordOpen } from '../../src/server/tracking/tracking.service.ts';
import { findLink, insertLinks } from '../../src/server/tracking/tracking.repository.ts';
import { resubscribe, unsubscribe } from '../../src/server/unsubscribe/unsubscribe.service.ts';
import { WebhookWorker } from '../../src/server/webhooks/worker.ts';
import { RETRY_DELAYS_SECONDS } from '../../src/server/webhooks/schedule.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/contract/values.ts';

let app: TestApp;
let dns: DnsTestServer;
let receiver: WebhookReceiver;
let cookie: string;
let customerId: number;
let apiKey: string;
let now: Date;
let worker: WebhookWorker;

const ALL = [...WEBHOOK_EVENT_TYPES];
/** The spec's seven: a webhook saved before delayed and complaint existed */
const SEVEN = ['sent', 'failed', 'bounce', 'open', 'click', 'unsubscribe', 'resubscribe'];
const GREYLISTED = '451 4.7.1 Greylisted, please try again later';
const COMPLAINT = {
  feedback_type: 'abuse',
  user_agent: 'Yahoo!-Mail-Feedback/2.0',
  arrival_date: '2026-11-23T15:05:06Z',
};

beforeAll(async () => {
  dns = await startDnsServer();
  app = await createTestApp({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', DNS_SERVERS: dns.address });
  const account = await app.createAccount();
  customerId = account.customerId;
  cookie = await app.signIn(account.email, account.password);
  await addDomain(app.ctx, customerId, 'shop.example', { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, customerId)).apiCredentials.apiKey;
  receiver = await startWebhookReceiver();
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await dns?.close();
  await app?.close();
});

beforeEach(async () => {
  now = new Date();
  receiver.received.length = 0;
  receiver.respond = () => ({ status: 200, body: 'ok' });
  // the full 10 s: a loaded machine must not turn a slow answer into a retry here
  worker = new WebhookWorker(app.ctx, { now: () => now, random: () => 0.5 });
  await app.ctx.db.deleteFrom('webhook_requests').execute();
});
afterEach(async () => worker.stop());

async function saveWebhook(overrides: Record<string, unknown> = {}, who = cookie) {
  return app.call('POST', '/v1/webhooks', {
    cookie: who,
    body: {
      url: `${receiver.url}/hook`,
      verb: 'post',
      status: 'enabled',
      auth_type: null,
      auth_details: null,
      event_types: ALL,
      field_set: 'standard',
      ...overrides,
    },
  });
}

async function currentWebhook(who = cookie) {
  const res = await app.call('GET', '/v1/webhooks', { cookie: who });
  return (await res.json()).data[0];
}

async function send(to: string): Promise<string> {
  const res = await app.api.request('http://localhost:4321/v1/mail', {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: 'Shop <orders@shop.example>',
      to,
      subject: `Order for ${to}`,
      text: 'Thanks',
      group: 'Orders',
      tags: ['order'],
      metadata: { order: 42 },
    }),
  });
  expect(res.status).toBe(202);
  return (await res.json()).data[0].trans_uuid;
}

const RESULTS = {
  delivered: { kind: 'delivered', reply: '250 2.0.0 OK queued' },
  permanent: { kind: 'permanent', reply: '550 5.1.1 No such user', address: 'bad', category: 'invalid_recipient' },
  temporary: { kind: 'temporary', reply: GREYLISTED, category: 'transient' },
} as const;

/** Claims every due transaction and records `kind` for it through the delivery worker's writer. */
async function deliverAll(kind: keyof typeof RESULTS) {
  const claimed = await claimDue(app.ctx.db, 100, 300);
  await recordOutcomes(
    app.ctx,
    claimed.map((tx) => ({ tx, at: new Date(), result: RESULTS[kind] })),
  );
  return claimed;
}

/** The transaction of `uuid`, due again now (the wait before its retry skipped). */
async function dueNow(uuid: string) {
  await app.ctx.db.updateTable('transactions').set({ next_attempt_at: sql`now()` }).where('uuid', '=', uuid).execute();
}

async function transactionIdOf(uuid: string): Promise<number> {
  const row = await app.ctx.db
    .selectFrom('transactions')
    .select('id')
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

const pendingRows = () => app.ctx.db.selectFrom('webhook_requests').selectAll().orderBy('id').execute();
const verifier = () => currentWebhook().then((w) => new Webhook(w.secret));

function verify(wh: Webhook, req: ReceivedRequest): unknown {
  const signed =
    req.method === 'GET' || req.method === 'DELETE' ? new URL(req.url, 'http://x').search.slice(1) : req.body;
  const headers = {
    'webhook-id': String(req.headers['webhook-id']),
    'webhook-timestamp': String(req.headers['webhook-timestamp']),
    'webhook-signature': String(req.headers['webhook-signature']),
  };
  // GET and DELETE: the signature covers the query string (docs/webhooks.md)
  return req.method === 'GET' || req.method === 'DELETE'
    ? wh.verify(signed, headers, { jsonParse: false })
    : wh.verify(signed, headers);
}

describe('saving the webhook', () => {
  it('saves, answers the spec message, and GET adds a whsec_ secret that rotation replaces', async () => {
    const res = await saveWebhook();
    expect(res.status).toBe(200);
    expect((await res.json()).message).toBe('Webhook saved successfully.');
    const saved = await currentWebhook();
    expect(saved).toMatchObject({
      url: `${receiver.url}/hook`,
      verb: 'post',
      status: 'enabled',
      auth_type: null,
      auth_details: null,
      event_types: ALL,
      field_set: 'standard',
    });
    expect(saved.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    const rotated = await app.call('POST', '/v1/webhooks/secret', { cookie });
    expect(rotated.status).toBe(200);
    const { secret } = await rotated.json();
    expect(secret).not.toBe(saved.secret);
    expect((await currentWebhook()).secret).toBe(secret);
    // a second save keeps the secret
    await saveWebhook({ auth_type: 'basic', auth_details: { username: 'hook', password: 'p@ss' } });
    expect(await currentWebhook()).toMatchObject({
      secret,
      auth_type: 'basic',
      auth_details: { username: 'hook', password: 'p@ss' },
    });
  });

  // every spelling of a forbidden host (the SSRF table; docs/webhooks.md "Where a webhook may point")
  it.each([
    ['', 'Webhook URL is empty'],
    ['   ', 'Webhook URL is empty'],
    ['ftp://example.com/hook', 'http or https'],
    ['file:///etc/passwd', 'http or https'],
    ['javascript:alert(1)', 'http or https'],
    ['http://user:pw@8.8.8.8/hook', 'user name or password'],
    ['http://8.8.8.8/' + 'a'.repeat(2040), '2,048'], // over 2,048 characters
    ['http://localhost:8080/', 'loopback'],
    ['http://LOCALHOST./', 'loopback'],
    ['http://app.localhost/', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://192.168.1.1./', 'private'],
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
    ['http://100.64.0.1/', 'carrier-grade NAT'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://[fd00::1]/', 'unique local'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[::ffff:169.254.169.254]/', 'link-local'],
    ['http://167772161/', 'private'], // 10.0.0.1 in decimal
    ['http://0xa.0.0.1/', 'private'], // hex
    ['http://012.0.0.1/', 'private'], // octal
    ['http://10.1/', 'private'], // short form
    ['http://0xA9FEA9FE/', 'link-local'], // metadata in hex
    ['http://rebind.test/', 'resolves to 10.1.2.3'],
    ['http://nowhere.test/', 'does not resolve'],
  ])('refuses %s (nothing saved)', async (url, message) => {
    dns.set('rebind.test', 'A', ['10.1.2.3']);
    const other = await app.createAccount();
    const otherCookie = await app.signIn(other.email, other.password);
    const res = await saveWebhook({ url }, otherCookie);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.message).toContain(message);
    if (url.trim() && !message.includes('empty'))
      expect(['webhook_url_not_allowed', 'validation_failed']).toContain(body.error.code);
    expect(await currentWebhook(otherCookie)).toBeUndefined();
  });

  it('refuses [::1] even though 127.0.0.0/8 is allowed, and accepts a name resolving to a public address', async () => {
    dns.set('public.test', 'A', ['93.184.216.34']);
    const other = await app.createAccount();
    const otherCookie = await app.signIn(other.email, other.password);
    expect((await saveWebhook({ url: 'http://[::1]:9/' }, otherCookie)).status).toBe(400);
    expect((await saveWebhook({ url: 'https://public.test/hook' }, otherCookie)).status).toBe(200);
  });

  it.each([
    [{ verb: 'options' }, 'verb'],
    [{ event_types: ['sent', 'delivered'] }, 'event_types'],
    [{ field_set: 'fancy' }, 'field_set'],
    [{ status: 'paused' }, 'status'],
    [{ auth_type: 'basic', auth_details: { username: '', password: 'x' } }, 'username'],
    [{ auth_type: 'basic', auth_details: null }, 'username'],
  ])('refuses %j', async (overrides, word) => {
    const other = await app.createAccount();
    const otherCookie = await app.signIn(other.email, other.password);
    const res = await saveWebhook(overrides, otherCookie);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain(word);
    expect(await currentWebhook(otherCookie)).toBeUndefined();
  });

  it('refuses (409) a webhook with the URL, field set and events of another; deletes one by its id', async () => {
    expect((await saveWebhook()).status).toBe(200);
    const first = await currentWebhook();
    // the same events in another order are the same events
    const twin = await saveWebhook({ add: true, event_types: [...ALL].reverse() });
    expect(twin.status).toBe(409);
    expect((await twin.json()).error.message).toBe(
      'Another webhook already sends these events to this URL: each event would be posted twice.',
    );
    // another URL, or other events, is another webhook; saving the first again is no duplicate of itself
    const other = await saveWebhook({ add: true, event_types: ['sent'] });
    expect(other.status).toBe(200);
    const otherId = (await other.json()).data.id as string;
    expect((await saveWebhook({ id: first.id })).status).toBe(200);
    // another account cannot delete it, a malformed id is 404, and the account's own is deleted
    const stranger = await app.createAccount();
    const strangerCookie = await app.signIn(stranger.email, stranger.password);
    expect((await app.call('DELETE', `/v1/webhooks/${otherId}`, { cookie: strangerCookie })).status).toBe(404);
    expect((await app.call('DELETE', '/v1/webhooks/not-a-uuid', { cookie })).status).toBe(404);
    const deleted = await app.call('DELETE', `/v1/webhooks/${otherId}`, { cookie });
    expect(deleted.status).toBe(200);
    expect((await deleted.json()).message).toBe('Webhook deleted.');
    const left = (await (await app.call('GET', '/v1/webhooks', { cookie })).json()).data as { id: string }[];
    expect(left.map((w) => w.id)).toEqual([first.id]);
    expect((await app.call('DELETE', `/v1/webhooks/${otherId}`, { cookie })).status).toBe(404);
  });

  it('refuses a body over the console limit with 413', async () => {
    const res = await saveWebhook({ padding: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
  });
});

describe('deliveries', () => {
  beforeEach(async () => {
    expect((await saveWebhook()).status).toBe(200);
  });

  it.each(['standard', 'legacy'])(
    'every event type reaches the receiver, signed, with the %s payload',
    async (fieldSet) => {
      await deliverAll('delivered'); // a message the other field set's run left deferred, if due by now
      await app.ctx.db.deleteFrom('webhook_requests').execute();
      await saveWebhook({ field_set: fieldSet });
      const wh = await verifier();
      // sent (and delivered, which is not a webhook event), then open, click, unsubscribe, resubscribe
      const uuid = await send('ann@customer.example');
      const [tx] = await deliverAll('delivered');
      recordOpen(app.ctx, uuid, { ip: '203.0.113.9', userAgent: 'Mail/1.0' });
      await insertLinks(app.ctx.db, [
        { token: `tok-${fieldSet}`, customer_id: customerId, transaction_id: tx.id, url: 'https://shop.example/track' },
      ]);
      recordClick(app.ctx, (await findLink(app.ctx.db, `tok-${fieldSet}`))!, {
        ip: '203.0.113.9',
        userAgent: 'Mail/1.0',
      });
      await flushTracking(app.ctx);
      await unsubscribe(app.ctx, uuid, 'page');
      await resubscribe(app.ctx, uuid, 'page');
      // bounce: a hard bounce at delivery
      await send(`bob-${fieldSet}@customer.example`);
      await deliverAll('permanent');
      // failed: a suppressed recipient is recorded as failed at acceptance
      await app.call('POST', '/v1/suppression', { cookie, body: { emails: ['carl@customer.example'] } });
      await send('carl@customer.example');
      // delayed: a deferral at delivery; complaint: a feedback report's event on ann's message
      await send(`dan-${fieldSet}@customer.example`);
      await deliverAll('temporary');
      await insertEvents(
        app.ctx.db,
        [{ customer_id: customerId, transaction_id: tx.id, type: 'complaint', data: COMPLAINT }],
        app.ctx,
      );

      now = new Date();
      // at most WEBHOOK_CONCURRENCY_PER_CUSTOMER (8) of one customer per claim: two runs
      expect((await worker.runOnce()) + (await worker.runOnce())).toBe(9);
      expect(receiver.received).toHaveLength(9);
      const bodies = receiver.received.map((r) => verify(wh, r) as Record<string, unknown>);
      for (const r of receiver.received) {
        expect(r.method).toBe('POST');
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['user-agent']).toMatch(/^Transact-Webhooks/);
        expect(r.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
      }
      if (fieldSet === 'standard') {
        const byType = new Map(
          bodies.map((b) => [b.type, b as { type: string; created_at: string; data: Record<string, unknown> }]),
        );
        expect([...byType.keys()].sort()).toEqual([
          'email.bounce',
          'email.click',
          'email.complaint',
          'email.delayed',
          'email.failed',
          'email.open',
          'email.resubscribe',
          'email.sent',
          'email.unsubscribe',
        ]);
        expect(byType.get('email.sent')!.data).toMatchObject({
          transaction_id: uuid,
          group: { name: 'Orders' },
          from: { email: 'orders@shop.example', name: 'Shop' },
          to: { email: 'ann@customer.example' },
          subject: 'Order for ann@customer.example',
          tags: ['order'],
          metadata: { order: 42 },
          smtp_reply: '250 2.0.0 OK queued',
        });
        expect(byType.get('email.sent')!.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
        expect(byType.get('email.open')!.data).toMatchObject({ user_agent: 'Mail/1.0', ip: '203.0.113.9' });
        expect(byType.get('email.click')!.data).toMatchObject({ url: 'https://shop.example/track', ip: '203.0.113.9' });
        expect(byType.get('email.bounce')!.data).toMatchObject({
          bounce_type: 'hard',
          bounce_reason: '550 5.1.1 No such user',
        });
        expect(byType.get('email.failed')!.data).toMatchObject({ to: { email: 'carl@customer.example' } });
        expect(byType.get('email.unsubscribe')!.data).toMatchObject({ via: 'page' });
        expect(byType.get('email.delayed')!.data).toMatchObject({
          to: { email: `dan-${fieldSet}@customer.example` },
          smtp_reply: GREYLISTED,
          attempt: 1,
          next_attempt_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
          category: 'transient',
        });
        expect(byType.get('email.complaint')!.data).toMatchObject({
          transaction_id: uuid,
          to: { email: 'ann@customer.example' },
          feedback_type: 'abuse',
          user_agent: 'Yahoo!-Mail-Feedback/2.0',
          arrival_date: '2026-11-23T15:05:06.000Z',
        });
      } else {
        const byType = new Map(bodies.map((b) => [b.event, b]));
        expect([...byType.keys()].sort()).toEqual([
          'bounce',
          'click',
          'complaint',
          'delayed',
          'failed',
          'open',
          'resubscribe',
          'sent',
          'unsubscribe',
        ]);
        expect(byType.get('delayed')).toMatchObject({ smtp_reply: GREYLISTED, attempt: 1, category: 'transient' });
        expect(byType.get('complaint')).toMatchObject({ trans_uuid: uuid, feedback_type: 'abuse' });
        const sent = byType.get('sent')!;
        expect(sent).toMatchObject({
          trans_uuid: uuid,
          trans_to_email: 'ann@customer.example',
          tm_subject: 'Order for ann@customer.example',
          tm_from_email: 'orders@shop.example',
          trans_group_name: 'Orders',
          tags: 'order',
          metadata: '{"order":42}',
        });
        expect(typeof sent.timestamp).toBe('number');
        for (const b of bodies)
          for (const v of Object.values(b)) expect(typeof v === 'object' && v !== null).toBe(false);
      }
      expect((await pendingRows()).every((r) => r.status === 'success' && r.attempts === 1)).toBe(true);
    },
  );

  it.each(['post', 'put', 'patch', 'get', 'delete'])('%s carries the payload (body or query), signed', async (verb) => {
    await saveWebhook({
      verb,
      field_set: 'legacy',
      auth_type: 'basic',
      auth_details: { username: 'hook', password: 's3cret' },
    });
    const wh = await verifier();
    const res = await app.call('POST', '/v1/webhooks/test', { cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status_code: 200, error: null });
    const [req] = receiver.received;
    expect(req.method).toBe(verb.toUpperCase());
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from('hook:s3cret').toString('base64')}`);
    const payload = verify(wh, req) as Record<string, unknown>;
    if (verb === 'get' || verb === 'delete') {
      expect(req.body).toBe('');
      expect(Object.fromEntries(new URL(req.url, 'http://x').searchParams)).toMatchObject({ event: 'test' });
    } else {
      expect(payload).toMatchObject({ event: 'test' });
    }
  });

  it('nothing is queued for a disabled webhook, an unsubscribed type, or a rolled-back event', async () => {
    await saveWebhook({ event_types: ['open'] });
    await send('dora@customer.example');
    await deliverAll('delivered'); // sent: not subscribed
    expect(await pendingRows()).toHaveLength(0);
    const [tx] = await app.ctx.db
      .selectFrom('transactions')
      .select(['id'])
      .where('to_email', '=', 'dora@customer.example')
      .execute();
    await expect(
      app.ctx.db.transaction().execute(async (trx) => {
        await insertEvents(trx, [{ customer_id: customerId, transaction_id: Number(tx.id), type: 'open' }], app.ctx);
        expect(await trx.selectFrom('webhook_requests').select('id').execute()).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await pendingRows()).toHaveLength(0);
    await saveWebhook({ event_types: ['open'], status: 'disabled' });
    await insertEvents(app.ctx.db, [{ customer_id: customerId, transaction_id: Number(tx.id), type: 'open' }], app.ctx);
    expect(await pendingRows()).toHaveLength(0);
    // and without a context (the uncached path) the same rule holds
    await saveWebhook({ event_types: ['open'] });
    await insertEvents(app.ctx.db, [{ customer_id: customerId, transaction_id: Number(tx.id), type: 'open' }]);
    expect(await pendingRows()).toHaveLength(1);
  });

  async function oneOpenEvent() {
    const [tx] = await app.ctx.db
      .selectFrom('transactions')
      .select(['id'])
      .where('customer_id', '=', customerId)
      .limit(1)
      .execute();
    await insertEvents(
      app.ctx.db,
      [{ customer_id: customerId, transaction_id: Number(tx.id), type: 'open', at: now }],
      app.ctx,
    );
    const [row] = await pendingRows();
    return row;
  }

  it('retries a 500 on the whole schedule (5 s … 24 h), with the same webhook-id, then fails for good', async () => {
    await send('eve@customer.example');
    receiver.respond = () => ({ status: 500, body: '<b>down</b>' });
    const row = await oneOpenEvent();
    for (const [i, delay] of RETRY_DELAYS_SECONDS.entries()) {
      expect(await worker.runOnce()).toBe(1);
      const [r] = await pendingRows();
      expect(r).toMatchObject({ status: 'pending', attempts: i + 1, last_status_code: 500 });
      expect(new Date(r.next_attempt_at!).getTime() - now.getTime()).toBe(delay * 1000); // random 0.5: no jitter
      // not due a millisecond early
      now = new Date(now.getTime() + delay * 1000 - 1);
      expect(await worker.runOnce()).toBe(0);
      now = new Date(now.getTime() + 1);
    }
    expect(await worker.runOnce()).toBe(1);
    const [last] = await pendingRows();
    expect(last).toMatchObject({ status: 'failed', attempts: 10 });
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([row.msg_id]));
    const detail = await (await app.call('GET', `/v1/webhook-logs/${row.id}`, { cookie })).json();
    expect(detail.attempts).toHaveLength(10);
    expect(detail.attempts[0]).toMatchObject({
      status_code: 500,
      response_body: '<b>down</b>',
      next_retry_at: expect.any(Number),
    });
    expect(detail.attempts[9].next_retry_at).toBeNull();
  });

  it('jitter stays within ±10 %', async () => {
    const low = new WebhookWorker(app.ctx, { now: () => now, random: () => 0 });
    receiver.respond = () => ({ status: 500 });
    await send('fay@customer.example');
    await oneOpenEvent();
    await low.runOnce();
    await low.stop();
    const [r] = await pendingRows();
    expect(new Date(r.next_attempt_at!).getTime() - now.getTime()).toBe(4500);
  });

  it('a timeout and a refused connection are retried like a 500', async () => {
    receiver.respond = () => ({ status: 200, delayMs: 3000 });
    await oneOpenEvent();
    const impatient = new WebhookWorker(app.ctx, { now: () => now, random: () => 0.5, timeoutMs: 300 });
    await impatient.runOnce();
    await impatient.stop();
    let [r] = await pendingRows();
    expect(r).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    let detail = await (await app.call('GET', `/v1/webhook-logs/${r.id}`, { cookie })).json();
    expect(detail.attempts[0].error).toMatch(/timed out/);

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    await saveWebhook({ url: `http://127.0.0.1:${port}/gone` });
    now = new Date(now.getTime() + 5000);
    await worker.runOnce();
    [r] = await pendingRows();
    expect(r).toMatchObject({ status: 'pending', attempts: 2, retry_step: 2 });
    detail = await (await app.call('GET', `/v1/webhook-logs/${r.id}`, { cookie })).json();
    expect(detail.attempts[1].error).toMatch(/ECONNREFUSED/);
  });

  it('410 Gone disables the webhook and says why', async () => {
    receiver.respond = () => ({ status: 410 });
    await oneOpenEvent();
    await worker.runOnce();
    const [r] = await pendingRows();
    expect(r.status).toBe('failed');
    const webhook = await currentWebhook();
    expect(webhook.status).toBe('disabled');
    expect(webhook.disabled_reason).toMatch(/410 Gone/);
    // no new requests while disabled (the outbox cache was cleared)
    await oneOpenEvent();
    expect(await pendingRows()).toHaveLength(1);
  });

  it('honours Retry-After on 429 and 503, capped at twice the step', async () => {
    receiver.respond = () => ({ status: 429, headers: { 'Retry-After': '7' } });
    await oneOpenEvent();
    await worker.runOnce();
    let [r] = await pendingRows();
    expect(new Date(r.next_attempt_at!).getTime() - now.getTime()).toBe(7000);
    now = new Date(now.getTime() + 7000);
    receiver.respond = () => ({ status: 503, headers: { 'Retry-After': '86400' } });
    await worker.runOnce();
    [r] = await pendingRows();
    expect(new Date(r.next_attempt_at!).getTime() - now.getTime()).toBe(600_000); // step 2 is 5 min
  });

  it("a killed worker's claim comes back when its lease expires, and its late result is not written", async () => {
    const { claimDueRequests, applyRequestUpdates } = await import(
      '../../src/server/webhooks/webhook-requests.repository.ts'
    );
    await oneOpenEvent();
    // a worker claims and dies before sending
    const [dead] = await claimDueRequests(app.ctx.db, { now, limit: 10, perCustomer: 10, busy: [], leaseSeconds: 120 });
    expect(dead).toBeDefined();
    expect(await worker.runOnce()).toBe(0); // leased
    now = new Date(now.getTime() + 120_000);
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(1);
    const [r] = await pendingRows();
    expect(r).toMatchObject({ status: 'success', attempts: 2 });
    // the dead worker's attempt, written late, changes nothing
    const late = await applyRequestUpdates(app.ctx.db, [
      {
        id: dead.id,
        attempts: dead.attempts,
        status: 'failed',
        next_attempt_at: null,
        retry_step: 0,
        last_status_code: 500,
        url: '',
        verb: '',
        payload: null,
        at: now,
      },
    ]);
    expect(late.size).toBe(0);
    expect((await pendingRows())[0].status).toBe('success');
  });

  it('does not follow a redirect', async () => {
    receiver.respond = (req) =>
      req.url === '/hook' ? { status: 302, headers: { Location: `${receiver.url}/elsewhere` } } : { status: 200 };
    await oneOpenEvent();
    await worker.runOnce();
    const [r] = await pendingRows();
    expect(r).toMatchObject({ status: 'pending', last_status_code: 302 });
    expect(receiver.received.map((q) => q.url)).toEqual(['/hook']);
  });
});

describe('delays: one delayed webhook per message', () => {
  beforeEach(async () => {
    // what earlier tests left due is delivered first, and their requests cleared
    await deliverAll('delivered');
    await app.ctx.db.deleteFrom('webhook_requests').execute();
  });

  const requestsOf = async (transactionId: number) =>
    (await pendingRows()).filter((r) => Number(r.transaction_id) === transactionId).map((r) => r.event_type);

  it('a message deferred three times sends one delayed (reply, next attempt) and, delivered, its sent', async () => {
    expect((await saveWebhook()).status).toBe(200);
    const wh = await verifier();
    const uuid = await send('gus@customer.example');
    const id = await transactionIdOf(uuid);
    for (let attempt = 1; attempt <= 3; attempt++) {
      if (attempt > 1) await dueNow(uuid);
      expect((await deliverAll('temporary')).map((c) => c.attempts)).toEqual([attempt]);
    }
    expect(await requestsOf(id)).toEqual(['delayed']);
    await dueNow(uuid);
    await deliverAll('delivered');
    expect(await requestsOf(id)).toEqual(['delayed', 'sent']);
    // every deferral stays on the timeline
    const deferred = await app.ctx.db
      .selectFrom('events')
      .select('data')
      .where('transaction_id', '=', id)
      .where('type', '=', 'deferred')
      .orderBy('id')
      .execute();
    expect(deferred).toHaveLength(3);

    now = new Date();
    expect(await worker.runOnce()).toBe(2);
    const bodies = receiver.received.map((r) => verify(wh, r) as { type: string; data: Record<string, unknown> });
    expect(bodies.map((b) => b.type).sort()).toEqual(['email.delayed', 'email.sent']);
    const first = deferred[0].data as { next_attempt_at: string };
    expect(bodies.find((b) => b.type === 'email.delayed')!.data).toMatchObject({
      transaction_id: uuid,
      to: { email: 'gus@customer.example' },
      smtp_reply: GREYLISTED,
      attempt: 1,
      category: 'transient',
      next_attempt_at: new Date(first.next_attempt_at).toISOString(),
    });
    expect(bodies.find((b) => b.type === 'email.sent')!.data).toMatchObject({
      transaction_id: uuid,
      smtp_reply: '250 2.0.0 OK queued',
    });
  });

  it('the first recorded deferral is reported even when an earlier attempt’s outcome was lost', async () => {
    expect((await saveWebhook()).status).toBe(200);
    const uuid = await send('hank@customer.example');
    const id = await transactionIdOf(uuid);
    // attempt 1 is claimed and never recorded (a worker stopped mid-delivery): its lease runs out
    expect((await claimDue(app.ctx.db, 100, 300)).map((c) => c.attempts)).toEqual([1]);
    await app.ctx.db
      .updateTable('transactions')
      .set({ locked_until: sql`now() - interval '1 second'` })
      .where('id', '=', id)
      .execute();
    expect((await deliverAll('temporary')).map((c) => c.attempts)).toEqual([2]);
    expect(await requestsOf(id)).toEqual(['delayed']);
    expect((await pendingRows())[0].event_data).toMatchObject({ attempt: 2, reply: GREYLISTED });
    await dueNow(uuid);
    await deliverAll('temporary');
    expect(await requestsOf(id)).toEqual(['delayed']);
    await dueNow(uuid);
    await deliverAll('delivered');
    expect(await requestsOf(id)).toEqual(['delayed', 'sent']);
  });

  it('a webhook saved with the seven events keeps them and hears of no delay or complaint', async () => {
    expect((await saveWebhook({ event_types: SEVEN })).status).toBe(200);
    expect((await currentWebhook()).event_types).toEqual(SEVEN);
    const uuid = await send('ivy@customer.example');
    const id = await transactionIdOf(uuid);
    await deliverAll('temporary');
    await insertEvents(
      app.ctx.db,
      [{ customer_id: customerId, transaction_id: id, type: 'complaint', data: COMPLAINT }],
      app.ctx,
    );
    expect(await requestsOf(id)).toEqual([]);
    await dueNow(uuid);
    await deliverAll('delivered');
    expect(await requestsOf(id)).toEqual(['sent']);
    // ticking delayed later reports the next message's first deferral
    expect((await saveWebhook({ event_types: [...SEVEN, 'delayed'] })).status).toBe(200);
    expect((await currentWebhook()).event_types).toEqual([...SEVEN, 'delayed']);
    const next = await send('jo@customer.example');
    await deliverAll('temporary');
    expect(await requestsOf(await transactionIdOf(next))).toEqual(['delayed']);
    await dueNow(next);
    await deliverAll('delivered');
  });
});

describe('Webhook Logs', () => {
  it(
    'pages the log newest first, shows More info, replays ' + 'with the same webhook-id, and 404s another account',
    async () => {
      await saveWebhook();
      receiver.respond = () => ({ status: 500, body: 'x'.repeat(3000) });
      const [tx] = await app.ctx.db
        .selectFrom('transactions')
        .select(['id'])
        .where('customer_id', '=', customerId)
        .limit(1)
        .execute();
      for (let i = 0; i < 12; i++)
        await insertEvents(
          app.ctx.db,
          [
            {
              customer_id: customerId,
              transaction_id: Number(tx.id),
              type: 'click',
              at: now,
              data: { url: `https://shop.example/${i}` },
            },
          ],
          app.ctx,
        );
      // at most WEBHOOK_CONCURRENCY_PER_CUSTOMER (8) of one customer per claim; the second takes the 4 not
      // yet tried (due first) and, when the first run took over the 5 s until the first retry (a loaded
      // machine), some of the 8 again
      expect(await worker.runOnce()).toBe(8);
      const second = await worker.runOnce();
      expect(second).toBeGreaterThanOrEqual(4);
      expect(second).toBeLessThanOrEqual(8);
      const page1 = await (
        await app.call('POST', '/v1/webhook-logs', { cookie, body: { page: 1, order_by: 'desc' } })
      ).json();
      expect(page1.meta).toEqual({ current_page: 1, per_page: 10, total: 12, last_page: 2 });
      // failed once, tried again later: 'retrying' (the name the console shows)
      expect(page1.data[0]).toMatchObject({
        url: `${receiver.url}/hook`,
        status: 'pending',
        progress: 'retrying',
        verb: 'post',
        field_set: 'standard',
        content_type: 'application/json',
        event_type: 'click',
        payload: { type: 'email.click' },
      });
      expect(page1.data[0].id).toBeGreaterThan(page1.data[9].id);
      const asc = await (
        await app.call('POST', '/v1/webhook-logs', { cookie, body: { page: 2, order_by: 'asc' } })
      ).json();
      expect(asc.data).toHaveLength(2);
      expect(asc.data[1].id).toBe(page1.data[0].id);

      const id = page1.data[0].id;
      const detail = await (await app.call('GET', `/v1/webhook-logs/${id}`, { cookie })).json();
      expect(detail.request).toMatchObject({
        method: 'POST',
        url: `${receiver.url}/hook`,
        payload: { type: 'email.click' },
      });
      expect(detail.request.headers['webhook-id']).toBe(page1.data[0].webhook_id);
      expect(detail.attempts[0].response_body).toHaveLength(1024);

      const other = await app.createAccount();
      const otherCookie = await app.signIn(other.email, other.password);
      expect((await app.call('POST', `/v1/webhook-logs/${id}/replay`, { cookie: otherCookie })).status).toBe(404);
      expect((await app.call('GET', `/v1/webhook-logs/${id}`, { cookie: otherCookie })).status).toBe(404);
      expect((await app.call('POST', '/v1/webhook-logs/abc/replay', { cookie })).status).toBe(404);
      expect((await app.call('POST', '/v1/webhook-logs', { cookie, body: { page: 0 } })).status).toBe(400);
      expect((await app.call('POST', '/v1/webhook-logs', { cookie, body: { order_by: 'sideways' } })).status).toBe(400);

      // an event not yet tried reads 'queued'
      await insertEvents(
        app.ctx.db,
        [{ customer_id: customerId, transaction_id: Number(tx.id), type: 'open', at: now }],
        app.ctx,
      );
      const fresh = (
        await (await app.call('POST', '/v1/webhook-logs', { cookie, body: { page: 1, order_by: 'desc' } })).json()
      ).data[0];
      expect(fresh).toMatchObject({ event_type: 'open', status: 'pending', progress: 'queued' });
      await app.ctx.db.deleteFrom('webhook_requests').where('id', '=', fresh.id).execute();

      receiver.received.length = 0;
      receiver.respond = () => ({ status: 204 });
      expect((await app.call('POST', `/v1/webhook-logs/${id}/replay`, { cookie })).status).toBe(202);
      // replayed: queued again, nothing failed since (not 'retrying'), in the list and in More info
      const replayed = await (await app.call('GET', `/v1/webhook-logs/${id}`, { cookie })).json();
      expect(replayed.log).toMatchObject({ status: 'pending', progress: 'replayed' });
      const listed = (
        await (await app.call('POST', '/v1/webhook-logs', { cookie, body: { page: 1, order_by: 'desc' } })).json()
      ).data.find((l: { id: number }) => l.id === id);
      expect(listed.progress).toBe('replayed');
      now = new Date();
      // due now, although the schedule said 5 s; on a loaded machine others' retries have come due by
      // now too and may be claimed first (8 a run), so the worker runs until it has been sent
      const replays = () => receiver.received.filter((r) => r.headers['webhook-id'] === page1.data[0].webhook_id);
      for (let run = 0; run < 3 && replays().length === 0; run++) await worker.runOnce();
      expect(replays()).toHaveLength(1);
      const after = await (await app.call('GET', `/v1/webhook-logs/${id}`, { cookie })).json();
      expect(after.log).toMatchObject({ status: 'success', progress: 'success' });
      expect(after.attempts).toHaveLength(2);
    },
  );

  it('purges requests older than WEBHOOK_LOG_RETENTION_DAYS, keeping pending ones', async () => {
    await saveWebhook();
    const [tx] = await app.ctx.db
      .selectFrom('transactions')
      .select(['id'])
      .where('customer_id', '=', customerId)
      .limit(1)
      .execute();
    for (let i = 0; i < 3; i++)
      await insertEvents(
        app.ctx.db,
        [{ customer_id: customerId, transaction_id: Number(tx.id), type: 'open', at: now }],
        app.ctx,
      );
    await worker.runOnce();
    await insertEvents(
      app.ctx.db,
      [{ customer_id: customerId, transaction_id: Number(tx.id), type: 'open', at: now }],
      app.ctx,
    );
    now = new Date(now.getTime() + 31 * 86_400_000);
    expect(await worker.purge()).toBe(3);
    expect((await pendingRows()).map((r) => r.status)).toEqual(['pending']);
  });
});

describe('the connect-time guard (request-filtering-agent)', () => {
  it(
    'refuses to dial a private address when it is not in WEBHOOK_ALLOWED_NETWORKS, by IP or by a name resolving to ' +
      'it',
    async () => {
      const { WebhookSender } = await import('../../src/server/webhooks/deliver.ts');
      const strict = new WebhookSender({ allowedNetworks: [] });
      const target = {
        verb: 'post',
        msgId: 'msg_1',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        auth: null,
        payload: { type: 'email.test' },
      };
      const port = new URL(receiver.url).port;
      for (const url of [`${receiver.url}/hook`, `http://localhost:${port}/hook`]) {
        const result = await strict.send({ ...target, url }, new Date());
        expect(result.statusCode).toBeNull();
        expect(result.error).toMatch(/not allowed/);
      }
      strict.close();
      expect(receiver.received).toHaveLength(0);
      // the same request with the network allowed arrives
      const lenient = new WebhookSender({ allowedNetworks: ['127.0.0.0/8'] });
      expect((await lenient.send({ ...target, url: `${receiver.url}/hook` }, new Date())).statusCode).toBe(200);
      lenient.close();
    },
  );
});
