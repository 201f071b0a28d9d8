// Unsubscribe and resubscribe end to end: mail sent through the API and over SMTP is
// delivered by the worker to a local sink carrying DKIM-signed List-Unsubscribe headers; then the
// recipient leaves by a one-click POST (through the real HTTP server's dispatch, no cookie, no or
// a foreign Origin), by the mailto address (through the bounce receiver), or by the page's call,
// and comes back with POST /v1/resubscribe. The next send shows the suppression list's effect.
import { request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, TEST_SECRET, type TestApp, type TestAccount, sendAsClient } from '../helpers/app.ts';
import { dkimResult } from '../helpers/dkim.ts';
import { startSmtpSink, type SmtpSink, type SunkMessage } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { startSubmissionServer, type SubmissionServer } from '../../src/server/smtp/submission.ts';
import { type BounceReceiver, startBounceReceiver } from '../../src/server/bounces/receiver.ts';
import { createHttpServer } from '../../src/server/server.ts';
import { createPageBridge } from '../../src/server/page-bridge.ts';
import { unsubscribeAddress } from '../../src/server/message/list-unsubscribe.ts';
import { subscriptionPage } from '../../src/lib/unsubscribe-view.ts';
import type { Domain } from '../../src/server/db/schema.ts';

const RETURN_PATH = 'rp.transact.test';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let smtp: SubmissionServer;
let receiver: BounceReceiver;
let http: Server;
let base: string;
let account: TestAccount;
let domain: Domain;
let apiKey: string;
let smtpAuth: { user: string; pass: string };

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, RETURN_PATH_DOMAIN: RETURN_PATH, HOST: '127.0.0.1' });
  account = await app.createAccount();
  domain = await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  const creds = await credentialsForConsole(app.ctx, account.customerId);
  apiKey = creds.apiCredentials.apiKey;
  smtpAuth = { user: creds.smtpCredentials.username, pass: creds.smtpCredentials.password };
  worker = new DeliveryWorker(app.ctx);
  worker.start();
  smtp = await startSubmissionServer(app.ctx, { port: 0, host: '127.0.0.1' });
  receiver = await startBounceReceiver(app.ctx, { port: 0, host: '127.0.0.1' });
  // the production dispatch, without Astro: a one-click POST must reach the API, never a page
  http = createHttpServer({ ctx: app.ctx, api: app.api });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => http?.close(resolve));
  await receiver?.close();
  await smtp?.close();
  await worker?.stop();
  await sink?.close();
  await app?.close();
});

const address = () => `r-${randomUUID().slice(0, 8)}@customer.example`;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const transaction = (uuid: string) =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['id', 'status', 'delivered_status', 'last_reply'])
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();

/** Sends through POST /v1/mail; answers the transaction's uuid and its status at acceptance. */
async function sendApi(to: string): Promise<{ uuid: string; status: string }> {
  const res = await sendAsClient(app, '/v1/mail', apiKey, {
    from: 'Shop <orders@shop.example>',
    to,
    subject: 'Your order',
    html: '<p>Thanks</p>',
    text: 'Thanks',
    headers: { 'X-Order': '7' },
  });
  expect(res.status).toBe(202);
  const [{ trans_uuid: uuid, status }] = (await res.json()).data as { trans_uuid: string; status: string }[];
  return { uuid, status };
}

/** The message the sink received for `to`. */
const sunk = (to: string) => waitFor(`a message for ${to}`, async () => sink.messages.find((m) => m.to.includes(to)));

/** Sends through the API and waits until the sink has it. */
async function delivered(to: string): Promise<{ uuid: string; message: SunkMessage }> {
  const { uuid } = await sendApi(to);
  return { uuid, message: await sunk(to) };
}

/** The unfolded header block of a raw message, field name → values, names lower-cased. */
function headerFields(raw: Buffer): Map<string, string[]> {
  const head = raw
    .toString('latin1')
    .split('\r\n\r\n', 1)[0]
    .replace(/\r\n(?=[ \t])/g, '');
  const fields = new Map<string, string[]>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    fields.set(name, [...(fields.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return fields;
}

/** The header fields the DKIM signature covers (its h= tag), lower-cased. */
function signedFields(raw: Buffer): string[] {
  const signature = headerFields(raw).get('dkim-signature')?.[0] ?? '';
  const h = /(?:^|;)\s*h=([^;]+)/.exec(signature)?.[1] ?? '';
  return h.split(':').map((f) => f.replace(/\s+/g, '').toLowerCase());
}

/** A POST with exactly these headers (node:http adds no Origin, unlike a browser). */
function post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const oneClick = (uuid: string, headers: Record<string, string> = {}) =>
  post(`/header-unsubscribe/${uuid}`, 'List-Unsubscribe=One-Click', { ...FORM, ...headers });

const callApi = (path: '/v1/unsubscribe' | '/v1/resubscribe', body: unknown) =>
  app.api.request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

const suppression = (email: string) =>
  app.ctx.db
    .selectFrom('suppressions')
    .select(['origin'])
    .where('customer_id', '=', account.customerId)
    .where('email', '=', email)
    .executeTakeFirst();
const eventsOf = async (uuid: string) => {
  const { id } = await transaction(uuid);
  return app.ctx.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('transaction_id', '=', id)
    .where('type', 'in', ['unsubscribe', 'resubscribe'])
    .orderBy('id')
    .execute();
};
const counts = async () => ({
  suppressions: Number(
    (
      await app.ctx.db
        .selectFrom('suppressions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  ),
  events: Number(
    (
      await app.ctx.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('type', 'in', ['unsubscribe', 'resubscribe'])
        .executeTakeFirstOrThrow()
    ).n,
  ),
});

function expectListUnsubscribe(message: SunkMessage, uuid: string) {
  const fields = headerFields(message.raw);
  expect(fields.get('list-unsubscribe')).toEqual([
    `<${ORIGIN}/header-unsubscribe/${uuid}>, <mailto:${unsubscribeAddress(TEST_SECRET, uuid, RETURN_PATH)}>`,
  ]);
  expect(fields.get('list-unsubscribe-post')).toEqual(['List-Unsubscribe=One-Click']);
  // RFC 8058 §4: both fields covered by a valid DKIM signature
  expect(signedFields(message.raw)).toEqual(
    expect.arrayContaining(['list-unsubscribe', 'list-unsubscribe-post', 'from']),
  );
}

describe('List-Unsubscribe on delivered mail', () => {
  it('an API message carries both headers, DKIM-signed', async () => {
    const to = address();
    const { uuid, message } = await delivered(to);
    expectListUnsubscribe(message, uuid);
    const dkim = await dkimResult(message.raw, domain);
    expect(dkim.status.result).toBe('pass');
    expect(dkim.signingDomain).toBe('shop.example');
  });

  it("an SMTP-submitted message gets ours in place of the client's, DKIM-signed", async () => {
    const to = address();
    const client = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      auth: smtpAuth,
      tls: { rejectUnauthorized: false },
    });
    const info = await client.sendMail({
      from: 'Shop <orders@shop.example>',
      to,
      subject: 'Over SMTP',
      text: 'Hello',
      headers: {
        'List-Unsubscribe': '<https://client.example/u>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
    const uuid = /Queued as ([0-9a-f-]{36})/.exec(info.response)![1];
    const message = await sunk(to);
    expect(message.raw.toString()).not.toContain('client.example/u');
    expectListUnsubscribe(message, uuid);
    expect((await dkimResult(message.raw, domain)).status.result).toBe('pass');
  });

  it('a changed List-Unsubscribe no longer verifies (the signature covers it)', async () => {
    const { uuid, message } = await delivered(address());
    const tampered = Buffer.from(
      message.raw.toString('latin1').replace(`/header-unsubscribe/${uuid}`, `/header-unsubscribe/${randomUUID()}`),
      'latin1',
    );
    expect((await dkimResult(tampered, domain)).status.result).not.toBe('pass');
  });
});

describe('POST /header-unsubscribe/{transactionId} (RFC 8058 one-click)', () => {
  it('unsubscribes with no cookie and no Origin; the next send to the address fails as suppressed', async () => {
    const to = address();
    const { uuid } = await delivered(to);
    const res = await oneClick(uuid);
    expect(res.status).toBe(200);
    expect(await suppression(to)).toEqual({ origin: 'unsubscribe' });
    expect(await eventsOf(uuid)).toEqual([{ type: 'unsubscribe', data: { email: to, via: 'one_click' } }]);

    const next = await sendApi(to);
    expect(next.status).toBe('failed');
    expect(await transaction(next.uuid)).toMatchObject({
      status: 'failed',
      delivered_status: 'failed',
      last_reply: expect.stringMatching(/^suppressed/),
    });
  });

  it('accepts a cross-site POST with a foreign Origin, and a multipart body', async () => {
    const first = address();
    const { uuid } = await delivered(first);
    expect((await oneClick(uuid, { Origin: 'https://mail.google.com' })).status).toBe(200);
    expect(await suppression(first)).toEqual({ origin: 'unsubscribe' });

    const second = address();
    const other = await delivered(second);
    const boundary = 'x-one-click';
    const multipart =
      `--${boundary}\r\nContent-Disposition: form-data; ` +
      `name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const res = await post(`/header-unsubscribe/${other.uuid}`, multipart, {
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      Origin: 'null',
    });
    expect(res.status).toBe(200);
    expect(await suppression(second)).toEqual({ origin: 'unsubscribe' });
  });

  it('repeating it is harmless: 200, one suppression, one event', async () => {
    const to = address();
    const { uuid } = await delivered(to);
    const answers = await Promise.all([oneClick(uuid), oneClick(uuid), oneClick(uuid)]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await oneClick(uuid)).status).toBe(200);
    expect(await eventsOf(uuid)).toHaveLength(1);
    expect(await suppression(to)).toEqual({ origin: 'unsubscribe' });
  });

  it('refuses a POST without the one-click body, changing nothing', async () => {
    const to = address();
    const { uuid } = await delivered(to);
    const before = await counts();
    expect((await post(`/header-unsubscribe/${uuid}`, '', FORM)).status).toBe(400);
    expect((await post(`/header-unsubscribe/${uuid}`, 'List-Unsubscribe=Yes', FORM)).status).toBe(400);
    expect(
      (
        await post(`/header-unsubscribe/${uuid}`, '{"List-Unsubscribe":"One-Click"}', {
          'Content-Type': 'application/json',
        })
      ).status,
    ).toBe(400);
    expect(await counts()).toEqual(before);
    expect(await suppression(to)).toBeUndefined();
  });
});

describe('POST /v1/unsubscribe and POST /v1/resubscribe', () => {
  it(
    'unsubscribe then resubscribe answer {message, ' + 'redirect}; the next send is queued and delivered again',
    async () => {
      const to = address();
      const { uuid } = await delivered(to);

      const out = await callApi('/v1/unsubscribe', { transaction_id: uuid });
      expect(out.status).toBe(200);
      expect(await out.json()).toEqual({ message: 'You have been unsubscribed.', redirect: null });
      expect(await suppression(to)).toEqual({ origin: 'unsubscribe' });

      const back = await callApi('/v1/resubscribe', { transaction_id: uuid });
      expect(back.status).toBe(200);
      expect(await back.json()).toEqual({ message: 'You have been resubscribed.', redirect: null });
      expect(await suppression(to)).toBeUndefined();
      expect((await eventsOf(uuid)).map((e) => [e.type, e.data])).toEqual([
        ['unsubscribe', { email: to, via: 'page' }],
        ['resubscribe', { email: to, via: 'page' }],
      ]);

      const before = sink.messages.filter((m) => m.to.includes(to)).length;
      const next = await sendApi(to);
      expect(next.status).toBe('queued');
      await waitFor('the second delivery', async () =>
        sink.messages.filter((m) => m.to.includes(to)).length > before ? true : undefined,
      );
    },
  );

  it('repeating either changes nothing and appends no event', async () => {
    const to = address();
    const { uuid } = await delivered(to);
    expect((await callApi('/v1/resubscribe', { transaction_id: uuid })).status).toBe(200); // never unsubscribed
    expect(await eventsOf(uuid)).toEqual([]);
    await callApi('/v1/unsubscribe', { transaction_id: uuid });
    await callApi('/v1/unsubscribe', { transaction_id: uuid });
    await callApi('/v1/resubscribe', { transaction_id: uuid });
    await callApi('/v1/resubscribe', { transaction_id: uuid });
    expect((await eventsOf(uuid)).map((e) => e.type)).toEqual(['unsubscribe', 'resubscribe']);
  });

  it("resubscribing never lifts a bounce's or the customer's own suppression", async () => {
    const bounced = address();
    const { uuid } = await delivered(bounced);
    await app.ctx.db
      .insertInto('suppressions')
      .values({ customer_id: account.customerId, email: bounced, origin: 'bounce' })
      .execute();
    expect((await callApi('/v1/unsubscribe', { transaction_id: uuid })).status).toBe(200);
    expect((await callApi('/v1/resubscribe', { transaction_id: uuid })).status).toBe(200);
    expect(await suppression(bounced)).toEqual({ origin: 'bounce' });
    expect(await eventsOf(uuid)).toEqual([]);
  });

  it('finds a suppression whatever the case of the address, as sending does', async () => {
    const to = address();
    const { uuid } = await delivered(to);
    await app.ctx.db
      .insertInto('suppressions')
      .values({ customer_id: account.customerId, email: to.toUpperCase(), origin: 'unsubscribe' })
      .execute();
    await callApi('/v1/unsubscribe', { transaction_id: uuid });
    expect(await suppression(to)).toBeUndefined(); // no second row beside the upper-case one
    await callApi('/v1/resubscribe', { transaction_id: uuid });
    expect(await suppression(to.toUpperCase())).toBeUndefined();
  });

  it.each([
    ['an unknown uuid', () => randomUUID()],
    ['a malformed id', () => 'not-a-uuid'],
    ['an id with SQL in it', () => "' or 1=1 --"],
  ])('answers %s with 404 and the Error message, changing nothing', async (_name, id) => {
    const before = await counts();
    for (const path of ['/v1/unsubscribe', '/v1/resubscribe'] as const) {
      const res = await callApi(path, { transaction_id: id() });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: { code: 'not_found', message: 'This unsubscribe link is not valid.' },
      });
    }
    expect((await oneClick(encodeURIComponent(id()))).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it('refuses a body without transaction_id with 400', async () => {
    expect((await callApi('/v1/unsubscribe', {})).status).toBe(400);
    expect((await callApi('/v1/unsubscribe', { transaction_id: 42 })).status).toBe(400);
  });
});

describe('the mailto: address (bounce receiver)', () => {
  const mailer = () =>
    nodemailer.createTransport({
      host: '127.0.0.1',
      port: receiver.port,
      secure: false,
      tls: { rejectUnauthorized: false },
    });

  it('a message to unsubscribe+<token>@<return-path domain> unsubscribes', async () => {
    const to = address();
    const { uuid, message } = await delivered(to);
    const mailto = /<mailto:([^>]+)>/.exec(headerFields(message.raw).get('list-unsubscribe')![0])![1];
    const info = await mailer().sendMail({
      envelope: { from: to, to: [mailto] },
      raw: `From: ${to}\r\nTo: ${mailto}\r\nSubject: unsubscribe\r\n\r\nunsubscribe\r\n`,
    });
    expect(info.response).toMatch(/^250 /);
    expect(await suppression(to)).toEqual({ origin: 'unsubscribe' });
    expect(await eventsOf(uuid)).toEqual([{ type: 'unsubscribe', data: { email: to, via: 'mailto' } }]);
    // again: accepted, nothing new
    await mailer().sendMail({ envelope: { from: to, to: [mailto] }, raw: 'Subject: unsubscribe\r\n\r\nagain\r\n' });
    expect(await eventsOf(uuid)).toHaveLength(1);
  });

  it('refuses a forged token at RCPT with 550, changing nothing', async () => {
    const to = address();
    const { uuid } = await delivered(to);
    const good = unsubscribeAddress(TEST_SECRET, uuid, RETURN_PATH);
    const forged = good.replace(
      /\.([0-9a-f]{12})@/,
      (_m, mac: string) => `.${mac.startsWith('0') ? '1' : '0'}${mac.slice(1)}@`,
    );
    const before = await counts();
    await expect(
      mailer().sendMail({ envelope: { from: to, to: [forged] }, raw: 'Subject: unsubscribe\r\n\r\nx\r\n' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    const foreign = unsubscribeAddress('another-secret-another-secret-0123456789', uuid, RETURN_PATH);
    await expect(
      mailer().sendMail({ envelope: { from: to, to: [foreign] }, raw: 'Subject: unsubscribe\r\n\r\nx\r\n' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    expect(await counts()).toEqual(before);
  });

  it('accepts a valid token whose transaction is gone, changing nothing (no endless retries)', async () => {
    const before = await counts();
    const info = await mailer().sendMail({
      envelope: { from: 'x@customer.example', to: [unsubscribeAddress(TEST_SECRET, randomUUID(), RETURN_PATH)] },
      raw: 'Subject: u\r\n\r\nx\r\n',
    });
    expect(info.response).toMatch(/^250 /);
    expect(await counts()).toEqual(before);
  });
});

describe('GET and HEAD change nothing', () => {
  it('neither the HTTP server nor the pages act on GET or HEAD of either URL', async () => {
    const to = address();
    const { uuid } = await delivered(to);
    const before = await counts();
    for (const path of [`/unsubscribe/${uuid}`, `/header-unsubscribe/${uuid}`]) {
      for (const method of ['GET', 'HEAD']) {
        await fetch(`${base}${path}`, { method });
        // the pages' server side, as Astro runs it for these requests
        const page = await subscriptionPage(
          createPageBridge(app.ctx),
          new Request(`${ORIGIN}${path}`, { method }),
          uuid,
        );
        expect(page).toMatchObject({ kind: 'view', view: 'subscribed', status: 200 });
      }
    }
    // POST only (405 for a method a route does not serve)
    for (const method of ['GET', 'HEAD']) expect((await fetch(`${base}/v1/unsubscribe`, { method })).status).toBe(405);
    expect(await counts()).toEqual(before);
    expect(await suppression(to)).toBeUndefined();
  });

  it('the pages show the Error state for an unknown id on GET', async () => {
    const page = await subscriptionPage(
      createPageBridge(app.ctx),
      new Request(`${ORIGIN}/unsubscribe/x`),
      randomUUID(),
    );
    expect(page).toMatchObject({
      kind: 'view',
      view: 'error',
      status: 404,
      message: 'This unsubscribe link is not valid.',
    });
  });
});

describe('the pages without JavaScript (form POST rendered on the server)', () => {
  const form = (uuid: string, action: string) =>
    new Request(`${ORIGIN}/unsubscribe/${uuid}`, { method: 'POST', headers: FORM, body: `action=${action}` });

  it('unsubscribes, then resubscribes with a notice', async () => {
    const to = address();
    const { uuid } = await delivered(to);
    const bridge = createPageBridge(app.ctx);
    expect(await subscriptionPage(bridge, form(uuid, 'unsubscribe'), uuid)).toMatchObject({
      kind: 'view',
      view: 'unsubscribed',
      status: 200,
    });
    expect(await suppression(to)).toEqual({ origin: 'unsubscribe' });
    expect(await subscriptionPage(bridge, form(uuid, 'resubscribe'), uuid)).toMatchObject({
      kind: 'view',
      view: 'subscribed',
      notice: 'You have been resubscribed.',
    });
    expect(await suppression(to)).toBeUndefined();
  });

  it('shows the Error state for an unknown id, changing nothing', async () => {
    const before = await counts();
    const id = randomUUID();
    expect(await subscriptionPage(createPageBridge(app.ctx), form(id, 'unsubscribe'), id)).toMatchObject({
      kind: 'view',
      view: 'error',
      message: 'This unsubscribe link is not valid.',
    });
    expect(await counts()).toEqual(before);
  });
});
