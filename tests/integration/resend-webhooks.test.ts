// Several webhooks per account and Resend's webhooks API with the official `resend` SDK, unchanged,
// over a real socket: create, list in cursor pages, get, update, rotate, delete, the refusals
// (malformed, unknown and another account's ids are 404; private addresses are refused); then real
// deliveries of every Resend event to a local HTTP receiver, each accepted by the SDK's own
// `resend.webhooks.verify`, only the subscribed types, nothing to a disabled webhook, the console's
// webhook beside them with its own payloads; the events, attempts and replay read back with the SDK;
// Settings' calls with several webhooks and the Webhook Logs' filter.
import type { Resend } from 'resend';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import { startWebhookReceiver, type WebhookReceiver, webhookHeaders } from '../helpers/webhook-receiver.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { claimDue } from '../../src/server/delivery/queue.repository.ts';
import { recordOutcomes } from '../../src/server/delivery/worker.ts';
import { insertEvents } from '../../src/server/events/events.repository.ts';
import { flushTracking, recordClick, recordOpen } from '../../src/server/tracking/tracking.service.ts';
import { findLink, insertLinks } from '../../src/server/tracking/tracking.repository.ts';
import { WebhookWorker } from '../../src/server/webhooks/worker.ts';
import { RESEND_WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES } from '../../src/contract/values.ts';

let started: ResendApp;
let app: TestApp;
let dns: DnsTestServer;
let receiver: WebhookReceiver;
let resend: Resend;
let other: Resend;
let cookie: string;
let otherCookie: string;
let customerId: number;
let worker: WebhookWorker;

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const MALFORMED = ['nope', '1', `${UNKNOWN}x`, '%27%20or%201%3D1'];

beforeAll(async () => {
  dns = await startDnsServer();
  started = await startResendApp({
    delivery: false,
    second: true,
    env: { WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', DNS_SERVERS: dns.address },
  });
  ({ app, resend } = started);
  other = started.other!;
  customerId = started.account.customerId;
  cookie = await app.signIn(started.account.email, started.account.password);
  otherCookie = await app.signIn(started.second!.email, started.second!.password);
  await addDomain(app.ctx, customerId, 'shop.example', { verified: true });
  receiver = await startWebhookReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await started?.close();
  await dns?.close();
});

beforeEach(() => {
  receiver.received.length = 0;
  receiver.respond = () => ({ status: 200, body: 'ok' });
  worker = new WebhookWorker(app.ctx, { random: () => 0.5 });
});
afterEach(async () => worker.stop());

async function clearWebhooks() {
  await app.ctx.db.deleteFrom('webhook_requests').execute();
  await app.ctx.db.deleteFrom('webhooks').execute();
  app.ctx.lookups.clear();
}

async function create(path: string, events: string[]) {
  const { data, error } = await resend.webhooks.create({
    endpoint: `${receiver.url}${path}`,
    events: events as never,
  });
  expect(error).toBeNull();
  return data!;
}

/** Sends every request due, until none is left. */
async function drain() {
  while ((await worker.runOnce()) > 0);
}

async function sendMail(to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { data, error } = await resend.emails.send({
    from: 'Shop <orders@shop.example>',
    to,
    subject: `Order for ${to}`,
    text: 'Thanks',
    tags: [{ name: 'kind', value: 'order' }],
    ...extra,
  });
  expect(error).toBeNull();
  return data!.id;
}

const RESULTS = {
  delivered: { kind: 'delivered', reply: '250 2.0.0 OK queued' },
  permanent: { kind: 'permanent', reply: '550 5.1.1 No such user', address: 'bad', category: 'invalid_recipient' },
  temporary: { kind: 'temporary', reply: '451 4.7.1 Greylisted', category: 'transient' },
} as const;

async function deliverAll(kind: keyof typeof RESULTS) {
  const claimed = await claimDue(app.ctx.db, 100, 300);
  await recordOutcomes(
    app.ctx,
    claimed.map((tx) => ({ tx, at: new Date(), result: RESULTS[kind] })),
  );
  return claimed;
}

const at = (path: string) => receiver.received.filter((r) => new URL(r.url, 'http://x').pathname === path);

describe('webhooks with the resend SDK at /resend', () => {
  beforeAll(clearWebhooks);

  it('creates, reads, lists in cursor pages, updates, rotates and deletes', async () => {
    const made = await create('/one', ['email.delivered', 'email.bounced']);
    expect(made).toEqual({
      object: 'webhook',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      signing_secret: expect.stringMatching(/^whsec_/),
    });
    const got = await resend.webhooks.get(made.id);
    expect(got.error).toBeNull();
    expect(got.data).toEqual({
      object: 'webhook',
      id: made.id,
      endpoint: `${receiver.url}/one`,
      events: ['email.delivered', 'email.bounced'],
      status: 'enabled',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      signing_secret: made.signing_secret,
      // ours: what email.received carries (docs/receiving.md "To a webhook")
      received_content: 'metadata',
      received_inline_max_bytes: 262_144,
    });
    const second = await create('/two', ['email.sent']);
    const third = await create('/three', ['email.opened']);

    const all = await resend.webhooks.list();
    expect(all.data).toMatchObject({ object: 'list', has_more: false });
    expect(all.data!.data.map((w) => w.id)).toEqual([third.id, second.id, made.id]);
    const first = await resend.webhooks.list({ limit: 2 });
    expect(first.data!.has_more).toBe(true);
    expect(first.data!.data.map((w) => w.id)).toEqual([third.id, second.id]);
    const next = await resend.webhooks.list({ limit: 2, after: second.id });
    expect(next.data).toMatchObject({ has_more: false, data: [{ id: made.id }] });
    const back = await resend.webhooks.list({ limit: 1, before: made.id });
    expect(back.data).toMatchObject({ has_more: true, data: [{ id: second.id }] });

    const updated = await resend.webhooks.update(made.id, {
      endpoint: `${receiver.url}/uno`,
      events: ['email.opened'],
      status: 'disabled',
    });
    expect(updated.data).toEqual({ object: 'webhook', id: made.id });
    expect((await resend.webhooks.get(made.id)).data).toMatchObject({
      endpoint: `${receiver.url}/uno`,
      events: ['email.opened'],
      status: 'disabled',
    });

    const rotated = await resend.webhooks.rotateSigningSecret(made.id);
    expect(rotated.data).toEqual({ object: 'webhook', id: made.id, signing_secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.data!.signing_secret).not.toBe(made.signing_secret);
    expect((await resend.webhooks.get(made.id)).data!.signing_secret).toBe(rotated.data!.signing_secret);

    expect((await resend.webhooks.remove(second.id)).data).toEqual({ object: 'webhook', id: second.id, deleted: true });
    expect((await resend.webhooks.get(second.id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('answers 404 for a malformed, unknown or another account’s id, never 500', async () => {
    const mine = await create('/mine', ['email.sent']);
    const ids = [...MALFORMED, UNKNOWN];
    for (const id of ids) {
      for (const answer of [
        await resend.webhooks.get(id),
        await resend.webhooks.update(id, { status: 'disabled' }),
        await resend.webhooks.remove(id),
        await resend.webhooks.rotateSigningSecret(id),
        await resend.webhooks.events.list({ webhookId: id }),
        await resend.webhooks.events.get({ webhookId: id, eventId: '1' }),
        await resend.webhooks.events.replay({ webhookId: id, eventId: '1' }),
        await resend.webhooks.events.attempts.list({ webhookId: id, eventId: '1' }),
      ])
        expect(answer.error, id).toMatchObject({ statusCode: 404, name: 'not_found' });
    }
    for (const eventId of ['x', '1.5', '99999999'])
      expect((await resend.webhooks.events.get({ webhookId: mine.id, eventId })).error).toMatchObject({
        statusCode: 404,
      });
    // a cursor that is not a uuid is a malformed query, as on every /resend list (docs/integrating.md)
    expect((await resend.webhooks.list({ after: 'nope' })).error).toMatchObject({
      statusCode: 400,
      name: 'validation_error',
    });
    // another account sees none of it and cannot change it
    expect((await other.webhooks.get(mine.id)).error).toMatchObject({ statusCode: 404 });
    expect((await other.webhooks.remove(mine.id)).error).toMatchObject({ statusCode: 404 });
    expect((await other.webhooks.list()).data!.data).toEqual([]);
    expect((await resend.webhooks.get(mine.id)).data).toMatchObject({ id: mine.id, status: 'enabled' });
  });

  it('refuses private addresses, other schemes and unknown events at create and update', async () => {
    const before = (await resend.webhooks.list()).data!.data.length;
    for (const endpoint of ['http://10.0.0.1/hook', 'http://169.254.169.254/', 'ftp://hooks.example/', 'http://[::1]/'])
      expect((await resend.webhooks.create({ endpoint, events: ['email.sent'] })).error, endpoint).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
      });
    for (const events of [[], ['email.nope'], ['contact.created']])
      expect(
        (await resend.webhooks.create({ endpoint: `${receiver.url}/x`, events: events as never })).error,
      ).toMatchObject({
        name: 'validation_error',
      });
    expect((await resend.webhooks.list()).data!.data).toHaveLength(before);
    const mine = await create('/guarded', ['email.sent']);
    expect((await resend.webhooks.update(mine.id, { endpoint: 'http://192.168.1.1/' })).error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
    });
    expect((await resend.webhooks.get(mine.id)).data!.endpoint).toBe(`${receiver.url}/guarded`);
  });
});

describe('deliveries to several webhooks', () => {
  let all: { id: string; signing_secret: string };
  let deliveredOnly: { id: string; signing_secret: string };
  let disabled: { id: string };
  let settingsSecret: string;

  beforeAll(async () => {
    await clearWebhooks();
    all = await create('/all', [...RESEND_WEBHOOK_EVENTS]);
    deliveredOnly = await create('/delivered', ['email.delivered']);
    disabled = await create('/off', [...RESEND_WEBHOOK_EVENTS]);
    await resend.webhooks.update(disabled.id, { status: 'disabled' });
    // the console's webhook beside them, with its own payloads
    const saved = await app.call('POST', '/v1/webhooks', {
      cookie,
      body: {
        url: `${receiver.url}/console`,
        verb: 'post',
        status: 'enabled',
        auth_type: null,
        event_types: [...WEBHOOK_EVENT_TYPES],
        field_set: 'standard',
      },
    });
    expect(saved.status).toBe(200);
    settingsSecret = (await saved.json()).data.secret;
  });

  it('sends each Resend event, verified by the SDK, only where subscribed, nothing to a disabled one', async () => {
    // delivered (email.sent at acceptance, email.delivered), opened and clicked, complained
    const ann = await sendMail('ann@customer.example');
    const [tx] = await deliverAll('delivered');
    recordOpen(app.ctx, ann, { ip: '203.0.113.9', userAgent: 'Mail/1.0' });
    await insertLinks(app.ctx.db, [
      { token: 'tok-resend', customer_id: customerId, transaction_id: tx.id, url: 'https://shop.example/track' },
    ]);
    recordClick(app.ctx, (await findLink(app.ctx.db, 'tok-resend'))!, { ip: '203.0.113.9', userAgent: 'Mail/1.0' });
    await flushTracking(app.ctx);
    await insertEvents(
      app.ctx.db,
      [{ customer_id: customerId, transaction_id: tx.id, type: 'complaint', data: { feedback_type: 'abuse' } }],
      app.ctx,
    );
    // bounced (hard), delayed, suppressed, scheduled
    const bob = await sendMail('bob@customer.example');
    await deliverAll('permanent');
    const dan = await sendMail('dan@customer.example');
    await deliverAll('temporary');
    await app.call('POST', '/v1/suppression', { cookie, body: { emails: ['carl@customer.example'] } });
    const carl = await sendMail('carl@customer.example');
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const eve = await sendMail('eve@customer.example', { scheduledAt: later });
    await drain();

    const expected: Record<string, string[]> = {
      [ann]: ['email.sent', 'email.delivered', 'email.opened', 'email.clicked', 'email.complained'],
      [bob]: ['email.sent', 'email.bounced'],
      [dan]: ['email.sent', 'email.delivery_delayed'],
      [carl]: ['email.suppressed'],
      [eve]: ['email.scheduled'],
    };
    const bodies = at('/all').map((req) => {
      // the SDK's own check: signature, timestamp and the secret of this webhook
      const payload: { type: string; created_at: string; data: Record<string, unknown> } = JSON.parse(
        JSON.stringify(
          resend.webhooks.verify({
            payload: req.body,
            headers: webhookHeaders(req),
            webhookSecret: all.signing_secret,
          }),
        ),
      );
      expect(() =>
        resend.webhooks.verify({ payload: req.body, headers: webhookHeaders(req), webhookSecret: settingsSecret }),
      ).toThrow();
      return payload;
    });
    const got = Map.groupBy(bodies, (b) => b.data.email_id as string);
    for (const id of Object.keys(expected))
      expect(
        got
          .get(id)
          ?.map((b) => b.type)
          .sort(),
        id,
      ).toEqual([...expected[id]].sort());
    expect(bodies).toHaveLength(Object.values(expected).flat().length);

    const byType = new Map(bodies.map((b) => [b.type, b]));
    expect(byType.get('email.delivered')).toEqual({
      type: 'email.delivered',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      data: {
        email_id: ann,
        message_id: expect.stringMatching(/^<.+@shop\.example>$/),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        from: 'Shop <orders@shop.example>',
        to: ['ann@customer.example'],
        subject: 'Order for ann@customer.example',
        tags: { kind: 'order' },
      },
    });
    expect(byType.get('email.bounced')!.data.bounce).toEqual({
      type: 'Permanent',
      subType: 'invalid_recipient',
      message: '550 5.1.1 No such user',
    });
    expect(byType.get('email.clicked')!.data.click).toEqual({
      ipAddress: '203.0.113.9',
      link: 'https://shop.example/track',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      userAgent: 'Mail/1.0',
    });
    expect(byType.get('email.suppressed')!.data).toMatchObject({
      to: ['carl@customer.example'],
      suppressed: { type: 'OnAccountSuppressionList', message: expect.stringMatching(/^suppressed/) },
    });

    // only what it subscribed to; a disabled webhook gets nothing
    expect(at('/delivered').map((r) => JSON.parse(r.body).type)).toEqual(['email.delivered']);
    resend.webhooks.verify({
      payload: at('/delivered')[0].body,
      headers: webhookHeaders(at('/delivered')[0]),
      webhookSecret: deliveredOnly.signing_secret,
    });
    expect(at('/off')).toEqual([]);
    // the console's webhook keeps its own payloads and names
    const consoleTypes = at('/console').map((r) => JSON.parse(r.body).type);
    expect(consoleTypes).toContain('email.sent');
    expect(consoleTypes).toContain('email.bounce');
    expect(consoleTypes).not.toContain('email.delivered');
  });

  it('reads a webhook’s events and attempts, and replays one, with the SDK', async () => {
    const listed = await resend.webhooks.events.list({ webhookId: deliveredOnly.id });
    expect(listed.error).toBeNull();
    expect(listed.data).toMatchObject({ object: 'list', has_more: false });
    const [event] = listed.data!.data;
    expect(event).toEqual({
      id: expect.stringMatching(/^\d+$/),
      type: 'email.delivered',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      status: 'success',
    });
    const many = await resend.webhooks.events.list({ webhookId: all.id, limit: 3 });
    expect(many.data!.has_more).toBe(true);
    const rest = await resend.webhooks.events.list({ webhookId: all.id, limit: 100, after: many.data!.data[2].id });
    const ids = [...many.data!.data, ...rest.data!.data].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(11); // the eleven events the test above sent to /all

    const got = await resend.webhooks.events.get({ webhookId: deliveredOnly.id, eventId: event.id });
    expect(got.data).toMatchObject({
      object: 'webhook_event',
      id: event.id,
      type: 'email.delivered',
      status: 'success',
      next_attempt_at: null,
      payload: { type: 'email.delivered', data: { to: ['ann@customer.example'] } },
    });
    // another webhook's event is not this one's
    expect((await resend.webhooks.events.get({ webhookId: all.id, eventId: event.id })).error).toMatchObject({
      statusCode: 404,
    });
    const attempts = await resend.webhooks.events.attempts.list({ webhookId: deliveredOnly.id, eventId: event.id });
    expect(attempts.data).toEqual({
      object: 'list',
      has_more: false,
      data: [
        { id: expect.stringMatching(/^\d+$/), http_status_code: 200, response: 'ok', sent_at: expect.any(String) },
      ],
    });

    // a replay: pending again, then attempting after a failed try, then a second attempt listed
    receiver.respond = () => ({ status: 500, body: 'down' });
    const replayed = await resend.webhooks.events.replay({ webhookId: deliveredOnly.id, eventId: event.id });
    expect(replayed.data).toEqual({ object: 'webhook_event', id: event.id });
    expect((await resend.webhooks.events.get({ webhookId: deliveredOnly.id, eventId: event.id })).data).toMatchObject({
      status: 'pending',
    });
    receiver.received.length = 0;
    await drain();
    const retry = (await resend.webhooks.events.get({ webhookId: deliveredOnly.id, eventId: event.id })).data!;
    expect(retry).toMatchObject({ status: 'attempting', next_attempt_at: expect.stringMatching(/Z$/) });
    expect(at('/delivered')[0].headers['webhook-id']).toBe(
      (
        await app.ctx.db
          .selectFrom('webhook_requests')
          .select('msg_id')
          .where('id', '=', Number(event.id))
          .executeTakeFirstOrThrow()
      ).msg_id,
    );
    const after = await resend.webhooks.events.attempts.list({ webhookId: deliveredOnly.id, eventId: event.id });
    expect(after.data!.data.map((a) => [a.http_status_code, a.response])).toEqual([
      [200, 'ok'],
      [500, 'down'],
    ]);
    const page = await resend.webhooks.events.attempts.list({
      webhookId: deliveredOnly.id,
      eventId: event.id,
      limit: 1,
    });
    expect(page.data!.has_more).toBe(true);
  });

  it('Settings lists every webhook; its calls edit, add, rotate and test the one they name', async () => {
    const list = await (await app.call('GET', '/v1/webhooks', { cookie })).json();
    expect(list.data.map((w: { url: string }) => new URL(w.url).pathname)).toEqual([
      '/all',
      '/delivered',
      '/off',
      '/console',
    ]);
    const resendOne = list.data[1];
    expect(resendOne).toMatchObject({ id: deliveredOnly.id, field_set: 'resend', event_types: ['email.delivered'] });
    // the console's webhook reads as such on the Resend surface: its events are Transact's
    const consoleId = list.data[3].id;
    expect((await resend.webhooks.get(consoleId)).data).toMatchObject({
      events: null,
      endpoint: `${receiver.url}/console`,
    });
    expect((await resend.webhooks.update(consoleId, { events: ['email.sent'] })).error).toMatchObject({
      statusCode: 422,
    });

    // the modal edits the webhook its id names; a save without an id is still the Settings webhook
    const edit = (body: Record<string, unknown>, who = cookie) =>
      app.call('POST', '/v1/webhooks', {
        cookie: who,
        body: { verb: 'post', status: 'enabled', auth_type: null, field_set: 'resend', ...body },
      });
    const edited = await edit({ id: deliveredOnly.id, url: `${receiver.url}/d2`, event_types: ['email.bounced'] });
    expect(edited.status).toBe(200);
    expect((await resend.webhooks.get(deliveredOnly.id)).data).toMatchObject({
      endpoint: `${receiver.url}/d2`,
      events: ['email.bounced'],
    });
    expect((await edit({ id: deliveredOnly.id, url: `${receiver.url}/d2`, event_types: ['sent'] })).status).toBe(400);
    expect((await edit({ id: deliveredOnly.id, url: `${receiver.url}/x`, event_types: [] }, otherCookie)).status).toBe(
      404,
    );
    expect((await edit({ id: 'nope', url: `${receiver.url}/x`, event_types: [] })).status).toBe(404);
    const added = await edit({ add: true, url: `${receiver.url}/added`, event_types: ['email.sent'] });
    expect(added.status).toBe(200);
    const addedId = (await added.json()).data.id;
    const plain = await edit({ url: `${receiver.url}/console2`, field_set: 'legacy', event_types: ['sent'] });
    expect((await plain.json()).data.id).toBe(consoleId);
    const ids = (await (await app.call('GET', '/v1/webhooks', { cookie })).json()).data.map(
      (w: { id: string }) => w.id,
    );
    expect(ids).toHaveLength(5);
    expect(ids).toContain(addedId);

    const before = (await resend.webhooks.get(addedId)).data!.signing_secret;
    const rotated = await app.call('POST', `/v1/webhooks/secret?id=${addedId}`, { cookie });
    expect(rotated.status).toBe(200);
    expect((await rotated.json()).secret).not.toBe(before);
    expect((await app.call('POST', `/v1/webhooks/secret?id=${UNKNOWN}`, { cookie })).status).toBe(404);
    receiver.received.length = 0;
    const tested = await app.call('POST', `/v1/webhooks/test?id=${addedId}`, { cookie });
    expect(await tested.json()).toMatchObject({ status_code: 200 });
    expect(at('/added').map((r) => JSON.parse(r.body).type)).toEqual(['email.test']);
  });

  it('Webhook Logs show every webhook’s requests and filter by one', async () => {
    const search = async (body: Record<string, unknown>) =>
      app.call('POST', '/v1/webhook-logs', { cookie, body: { page: 1, order_by: 'desc', ...body } });
    const everything = await (await search({})).json();
    const total = await app.ctx.db
      .selectFrom('webhook_requests')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    expect(everything.meta.total).toBe(total.n);
    const only = await (await search({ webhook: all.id })).json();
    expect(only.data.length).toBeGreaterThan(0);
    expect(only.data.every((l: { webhook: string }) => l.webhook === all.id)).toBe(true);
    const ofAll = await app.ctx.db
      .selectFrom('webhook_requests')
      .innerJoin('webhooks', 'webhooks.id', 'webhook_requests.webhook_id')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('webhooks.uuid', '=', all.id)
      .executeTakeFirstOrThrow();
    expect(only.meta.total).toBe(ofAll.n);
    for (const webhook of [UNKNOWN, 'nope']) expect((await search({ webhook })).status).toBe(404);
    const theirs = await app.call('POST', '/v1/webhook-logs', {
      cookie: otherCookie,
      body: { page: 1, webhook: all.id },
    });
    expect(theirs.status).toBe(404);
    // a deleted webhook's requests stay in the log, with no webhook
    await resend.webhooks.remove(all.id);
    const kept = await (await search({ order_by: 'asc' })).json();
    expect(kept.meta.total).toBe(everything.meta.total);
    expect(kept.data.some((l: { webhook: string | null }) => l.webhook === null)).toBe(true);
  });
});
