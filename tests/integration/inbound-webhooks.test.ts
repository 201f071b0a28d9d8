// Received mail to webhooks (docs/receiving.md "To a webhook"): mail put in through the real MX listener
// by nodemailer, `email.received` POSTed by the webhook worker to real local HTTP receivers — one webhook
// asking for the message's fields (the default), one for the whole message (`received_content: 'full'`,
// an extension field the official `resend` SDK passes through) — and checked with the SDK's
// `resend.webhooks.verify`. Attachments come inline in base64 under the webhook's limit and as signed
// links that download the bytes over it. Then the console's calls: the webhook's choice on
// POST /v1/webhooks, and a message's requests (GET /v1/inbound/{id}/webhook-requests) replayed with
// Webhook Logs' call, each account seeing only its own.
import type { CreateWebhookOptions, Resend, UpdateWebhookOptions } from 'resend';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { idOf, type Receiving, startReceiving } from '../helpers/receiving.ts';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
  webhookHeaders,
} from '../helpers/webhook-receiver.ts';
import { WebhookWorker } from '../../src/server/webhooks/worker.ts';
import type { WebhookLogWire } from '../../src/lib/wire.ts';

let receiving: Receiving;
let app: TestApp;
let worker: WebhookWorker;
let resend: Resend;
let cookie: string;
let strangerCookie: string;
let fieldsHook: WebhookReceiver;
let fullHook: WebhookReceiver;
let fullHookId: string;
let fullSecret: string;
let fieldsSecret: string;

/** A received message's events wait this long at most: a bound for a hang, not a delay. */
const DELIVERED = { timeout: 30_000, interval: 100 };

beforeAll(async () => {
  receiving = await startReceiving();
  ({ app, resend } = receiving);
  cookie = await app.signIn(receiving.account.email, receiving.account.password);
  const stranger = await app.createAccount();
  strangerCookie = await app.signIn(stranger.email, stranger.password);
  fieldsHook = await startWebhookReceiver();
  fullHook = await startWebhookReceiver();

  const fields = await resend.webhooks.create({ endpoint: `${fieldsHook.url}/fields`, events: ['email.received'] });
  expect(fields.error).toBeNull();
  fieldsSecret = fields.data!.signing_secret;
  // ours beyond Resend's body: the SDK sends what it is given
  const full = await resend.webhooks.create({
    endpoint: `${fullHook.url}/full`,
    events: ['email.received'],
    received_content: 'full',
  } as CreateWebhookOptions);
  expect(full.error).toBeNull();
  fullHookId = full.data!.id;
  fullSecret = full.data!.signing_secret;
  worker = new WebhookWorker(app.ctx, { random: () => 0.5 });
  worker.start();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await receiving?.close();
  await fieldsHook?.close();
  await fullHook?.close();
});

const mx = () => receiving.mx();

interface ReceivedEventData {
  email_id: string;
  subject: string;
  text?: string | null;
  html?: string | null;
  headers?: Record<string, string>;
  header_list?: { name: string; value: string }[];
  raw?: { download_url: string; expires_at: string };
  attachments: {
    id: string;
    filename: string | null;
    content_type: string;
    size?: number;
    content?: string;
    download_url?: string;
    expires_at?: string;
  }[];
}

/** The request a receiver got for message `id`, once it came, checked with the SDK's verify. */
async function eventFor(hook: WebhookReceiver, secret: string, id: string): Promise<ReceivedEventData> {
  const of = (r: ReceivedRequest) => (JSON.parse(r.body) as { data: { email_id: string } }).data.email_id === id;
  await vi.waitFor(() => expect(hook.received.filter(of)).toHaveLength(1), DELIVERED);
  const request = hook.received.find(of)!;
  const event = resend.webhooks.verify({
    payload: request.body,
    headers: webhookHeaders(request),
    webhookSecret: secret,
  }) as unknown as { type: string; data: ReceivedEventData };
  expect(event.type).toBe('email.received');
  return event.data;
}

async function download(url: string): Promise<Buffer> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe('email.received with the whole message', () => {
  it('sends the fields to a metadata webhook, text, HTML, headers and inline attachments to a full one', async () => {
    const photo = Buffer.alloc(20_000, 5);
    const info = await mx().sendMail({
      from: 'Zoë <zoe@sender.example>',
      to: 'support@shop.example',
      subject: 'Ticket 12',
      text: 'The photo is attached.',
      html: '<p>The <b>photo</b> is attached.</p>',
      headers: { 'X-Ticket': '12' },
      attachments: [
        { filename: 'photo.jpg', content: photo, contentType: 'image/jpeg' },
        { filename: 'note.txt', content: 'see photo' },
      ],
    });
    const id = idOf(info.response);

    const fields = await eventFor(fieldsHook, fieldsSecret, id);
    expect(fields).toMatchObject({ email_id: id, subject: 'Ticket 12' });
    expect(fields).not.toHaveProperty('text');
    expect(fields).not.toHaveProperty('html');
    expect(fields).not.toHaveProperty('headers');
    expect(fields).not.toHaveProperty('header_list');
    expect(fields.attachments.map((a) => Object.keys(a).sort())).toEqual([
      ['content_disposition', 'content_id', 'content_type', 'filename', 'id'],
      ['content_disposition', 'content_id', 'content_type', 'filename', 'id'],
    ]);

    const full = await eventFor(fullHook, fullSecret, id);
    expect(full).toMatchObject({ email_id: id, subject: 'Ticket 12' });
    expect(full.text?.trim()).toBe('The photo is attached.');
    expect(full.html).toContain('<b>photo</b>');
    // every header, as the receiving API answers them
    const api = await resend.emails.receiving.get(id);
    expect(full.headers).toEqual(api.data!.headers);
    expect(full.headers).toMatchObject({ 'x-ticket': '12', subject: 'Ticket 12', 'message-id': info.messageId });
    // JSON objects carry no order (and the log keeps payloads as jsonb): the order is header_list's
    const shown = await app.call('GET', `/v1/inbound/${id}`, { cookie });
    const { headers: lines } = (await shown.json()) as { headers: { name: string; value: string }[] };
    expect(full.header_list).toEqual(lines);
    expect(full.header_list!.map((h) => h.name)).toEqual(expect.arrayContaining(['X-Ticket', 'Subject']));
    const byName = new Map(full.attachments.map((a) => [a.filename, a]));
    expect(byName.get('photo.jpg')).toMatchObject({ content_type: 'image/jpeg', size: photo.length });
    expect(Buffer.from(byName.get('photo.jpg')!.content!, 'base64').equals(photo)).toBe(true);
    expect(Buffer.from(byName.get('note.txt')!.content!, 'base64').toString()).toBe('see photo');
    expect(byName.get('photo.jpg')).not.toHaveProperty('download_url');
    const raw = (await download(full.raw!.download_url)).toString();
    expect(raw).toMatch(/^Received-SPF: pass/);
    expect(raw).toContain('X-Ticket: 12');
    // the links outlive one hour: retries and replays send the same payload for days
    expect(Date.parse(full.raw!.expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);
  });

  it('sends attachments over the webhook’s limit as links that download the bytes', async () => {
    const updated = await resend.webhooks.update(fullHookId, {
      received_inline_max_bytes: 4096,
    } as UpdateWebhookOptions);
    expect(updated.error).toBeNull();
    const got = await resend.webhooks.get(fullHookId);
    expect(got.data).toMatchObject({ received_content: 'full', received_inline_max_bytes: 4096 });
    const big = Buffer.alloc(6000, 3);
    const info = await mx().sendMail({
      from: 'zoe@sender.example',
      to: 'support@shop.example',
      subject: 'Ticket 13',
      text: 'Too big to inline.',
      attachments: [{ filename: 'big.bin', content: big, contentType: 'application/octet-stream' }],
    });
    const id = idOf(info.response);
    const full = await eventFor(fullHook, fullSecret, id);
    const [attachment] = full.attachments;
    expect(attachment).toMatchObject({ filename: 'big.bin', size: big.length });
    expect(attachment).not.toHaveProperty('content');
    expect((await download(attachment.download_url!)).equals(big)).toBe(true);
    const fields = await eventFor(fieldsHook, fieldsSecret, id);
    expect(fields.attachments[0]).not.toHaveProperty('download_url');
  });

  it('refuses the whole message where it cannot go: another field set, a method without a body', async () => {
    const save = (body: Record<string, unknown>) =>
      app.call('POST', '/v1/webhooks', {
        cookie,
        body: {
          add: true,
          url: `${fullHook.url}/console`,
          verb: 'post',
          status: 'enabled',
          auth_type: null,
          event_types: ['email.received'],
          field_set: 'resend',
          ...body,
        },
      });
    const standard = await save({ field_set: 'standard', event_types: ['sent'], received_content: 'full' });
    expect(standard.status).toBe(400);
    expect(((await standard.json()) as { error: { message: string } }).error.message).toMatch(/Resend field set/);
    const get = await save({ verb: 'get', received_content: 'full' });
    expect(get.status).toBe(400);
    expect(((await get.json()) as { error: { message: string } }).error.message).toMatch(/POST, PUT or PATCH/);
    const tooBig = await save({ received_content: 'full', received_inline_max_bytes: 2_000_000 });
    expect(tooBig.status).toBe(400);
    const created = await resend.webhooks.create({
      endpoint: `${fullHook.url}/x`,
      events: ['email.sent'],
      received_content: 'everything',
    } as unknown as CreateWebhookOptions);
    expect(created.error).toMatchObject({ statusCode: 400 });

    const saved = await save({ received_content: 'full', received_inline_max_bytes: 65_536, status: 'disabled' });
    expect(saved.status).toBe(200);
    const listed = await app.call('GET', '/v1/webhooks', { cookie });
    const hooks = ((await listed.json()) as { data: { url: string; received_content: string }[] }).data;
    expect(hooks.find((h) => h.url === `${fullHook.url}/console`)).toMatchObject({
      received_content: 'full',
      received_inline_max_bytes: 65_536,
    });
    expect(hooks.find((h) => h.url === `${fieldsHook.url}/fields`)).toMatchObject({
      received_content: 'metadata',
      received_inline_max_bytes: 262_144,
    });
  });
});

describe('GET /v1/inbound/{id}/webhook-requests', () => {
  const requestsOf = async (id: string, as = cookie) => {
    const res = await app.call('GET', `/v1/inbound/${id}/webhook-requests`, { cookie: as });
    return { status: res.status, body: (await res.json()) as { data: WebhookLogWire[] } };
  };

  it('lists the message’s requests, one per webhook; Replay sends one again; other accounts see nothing', async () => {
    const info = await mx().sendMail({ from: 'zoe@sender.example', to: 'support@shop.example', subject: 'T 14' });
    const id = idOf(info.response);
    await eventFor(fullHook, fullSecret, id);
    await eventFor(fieldsHook, fieldsSecret, id);
    // the worker writes outcomes in batches: each request shows its success a moment after the answer
    await vi.waitFor(async () => {
      const { body } = await requestsOf(id);
      expect(body.data.map((r) => [r.url, r.progress, r.attempts, r.last_status_code])).toEqual([
        [`${fieldsHook.url}/fields`, 'success', 1, 200],
        [`${fullHook.url}/full`, 'success', 1, 200],
      ]);
    }, DELIVERED);
    const { body } = await requestsOf(id);
    expect(body.data.every((r) => r.event_type === 'email.received')).toBe(true);
    const [first] = body.data;

    for (const wrong of ['not-a-uuid', '0b5f8c64-2f7e-4a47-9c55-1d1e2b6c7a10']) {
      const answer = await requestsOf(wrong);
      expect(answer.status).toBe(404);
    }
    expect((await requestsOf(id, strangerCookie)).status).toBe(404);
    const foreignReplay = await app.call('POST', `/v1/webhook-logs/${first.id}/replay`, { cookie: strangerCookie });
    expect(foreignReplay.status).toBe(404);

    const replay = await app.call('POST', `/v1/webhook-logs/${first.id}/replay`, { cookie });
    expect(replay.status).toBe(202);
    const of = (r: ReceivedRequest) => (JSON.parse(r.body) as { data: { email_id: string } }).data.email_id === id;
    await vi.waitFor(() => expect(fieldsHook.received.filter(of)).toHaveLength(2), DELIVERED);
    const [again, before] = fieldsHook.received.filter(of).reverse();
    expect(again.body).toBe(before.body);
    expect(again.headers['webhook-id']).toBe(before.headers['webhook-id']);
    await vi.waitFor(async () => {
      const answer = await requestsOf(id);
      expect(answer.body.data[0]).toMatchObject({ id: first.id, attempts: 2, progress: 'success' });
    }, DELIVERED);
  });

  it('is empty for a message no webhook listened to', async () => {
    const quiet = await resend.webhooks.list();
    for (const hook of quiet.data!.data) await resend.webhooks.update(hook.id, { status: 'disabled' });
    const info = await mx().sendMail({ from: 'zoe@sender.example', to: 'support@shop.example', subject: 'T 15' });
    const answer = await app.call('GET', `/v1/inbound/${idOf(info.response)}/webhook-requests`, { cookie });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ data: [] });
  });
});
