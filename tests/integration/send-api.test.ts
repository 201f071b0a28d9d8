// Mail in by the HTTP API, out through the delivery worker to a local SMTP sink: the real pipeline
// (database queue, DKIM signing, VERP envelope), nothing mocked.
import { figuresOf } from '../helpers/figures.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestAccount } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { dkimResult } from '../helpers/dkim.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import type { Domain } from '../../src/server/db/schema.ts';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let account: TestAccount;
let domain: Domain;
let apiKey: string;
let apiUser: string;

const send = (body: unknown, headers: Record<string, string> = {}) =>
  app.api.request('http://localhost:4321/v1/mail', {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const countTransactions = async () =>
  Number(
    (
      await app.ctx.db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, RETURN_PATH_DOMAIN: 'rp.transact.test' });
  account = await app.createAccount();
  domain = await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  const creds = await credentialsForConsole(app.ctx, account.customerId);
  apiKey = creds.apiCredentials.apiKey;
  apiUser = creds.apiCredentials.username;
  worker = new DeliveryWorker(app.ctx);
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await sink?.close();
  await app?.close();
});

describe('POST /v1/mail', () => {
  it('queues one transaction per recipient and delivers each DKIM-signed through the relay', async () => {
    const before = sink.messages.length;
    const res = await send({
      from: 'Shop <orders@shop.example>',
      to: ['Ann <ann@customer.example>', { email: 'bob@customer.example', name: 'Bob' }],
      cc: 'carol@customer.example',
      bcc: ['dave@customer.example'],
      subject: 'Your order',
      html: '<p>Thanks for your order</p>',
      text: 'Thanks for your order',
      headers: { 'X-Order': '1001' },
      group: 'Orders',
      attachments: [
        {
          filename: 'receipt.txt',
          content: Buffer.from('receipt 1001').toString('base64'),
          content_type: 'text/plain',
        },
      ],
    });
    expect(res.status).toBe(202);
    const { data } = await res.json();
    expect(data.map((d: { to: string }) => d.to)).toEqual([
      'ann@customer.example',
      'bob@customer.example',
      'carol@customer.example',
      'dave@customer.example',
    ]);

    const messages = (await sink.waitFor(before + 4)).slice(before);
    const envelopeTo = messages.flatMap((m) => m.to).sort();
    expect(envelopeTo).toEqual([
      'ann@customer.example',
      'bob@customer.example',
      'carol@customer.example',
      'dave@customer.example',
    ]);
    for (const m of messages) {
      expect(m.from).toMatch(/^bounces\+[0-9a-f]{32}\.[0-9a-f]{12}@rp\.transact\.test$/);
      const text = m.raw.toString();
      expect(text).toMatch(/^To: Ann <ann@customer\.example>, Bob <bob@customer\.example>$/m);
      expect(text).toMatch(/^Cc: carol@customer\.example$/m);
      expect(text).not.toMatch(/^Bcc:/m);
      expect(text).toMatch(/^X-Order: 1001$/m);
      expect(text).toContain('receipt.txt');
      const dkim = await dkimResult(m.raw, domain);
      expect(dkim.status.result).toBe('pass');
      expect(dkim.signingDomain).toBe('shop.example');
    }
    // each recipient's copy carries its own stable Message-ID
    const ids = new Set(messages.map((m) => /^Message-ID: (<[^>]+>)/im.exec(m.raw.toString())?.[1]));
    expect(ids.size).toBe(4);

    await expect
      .poll(
        async () =>
          await app.ctx.db
            .selectFrom('transactions')
            .select(['status', 'delivered_status'])
            .where('uuid', '=', data[0].trans_uuid)
            .executeTakeFirstOrThrow(),
      )
      .toEqual({ status: 'sent', delivered_status: 'delivered' });
    const events = await app.ctx.db
      .selectFrom('events')
      .innerJoin('transactions', 'transactions.id', 'events.transaction_id')
      .select('events.type')
      .where('transactions.uuid', '=', data[0].trans_uuid)
      .orderBy('events.id')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['queued', 'sent', 'delivered']);
    const group = await app.ctx.db
      .selectFrom('transaction_groups')
      .selectAll()
      .where('customer_id', '=', account.customerId)
      .where('name', '=', 'Orders')
      .executeTakeFirstOrThrow();
    await expect
      .poll(async () => {
        const f = await figuresOf(app.ctx.db, account.customerId, Number(group.id));
        return { sent: f.sent, delivered: f.delivered };
      })
      .toEqual({ sent: 4, delivered: 4 });
  });

  it('accepts Basic username:apiKey', async () => {
    const res = await app.api.request('http://localhost:4321/v1/mail', {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`,
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ from: 'orders@shop.example', to: 'erin@customer.example', subject: 'Hi', text: 'Hi' }),
    });
    expect(res.status).toBe(202);
  });

  it(
    'marks a 5xx recipient failed/bounced (hard) and ' + 'suppresses it; the next send to it fails as suppressed',
    async () => {
      sink.replies.set('gone@customer.example', [550, '5.1.1 User unknown']);
      const res = await send({ from: 'orders@shop.example', to: 'gone@customer.example', subject: 'Hi', text: 'Hi' });
      const [{ trans_uuid }] = (await res.json()).data;
      await expect
        .poll(
          async () =>
            app.ctx.db
              .selectFrom('transactions')
              .select(['status', 'delivered_status', 'bounce_type'])
              .where('uuid', '=', trans_uuid)
              .executeTakeFirstOrThrow(),
          { timeout: 10_000 },
        )
        .toEqual({ status: 'failed', delivered_status: 'bounced', bounce_type: 'hard' });
      const suppression = await app.ctx.db
        .selectFrom('suppressions')
        .selectAll()
        .where('customer_id', '=', account.customerId)
        .where('email', '=', 'gone@customer.example')
        .executeTakeFirst();
      expect(suppression?.origin).toBe('bounce');

      const again = await send({
        from: 'orders@shop.example',
        to: 'gone@customer.example',
        subject: 'Hi again',
        text: 'Hi',
      });
      expect(again.status).toBe(202);
      const [second] = (await again.json()).data;
      expect(second.status).toBe('failed');
      const row = await app.ctx.db
        .selectFrom('transactions')
        .select(['status', 'delivered_status', 'last_reply'])
        .where('uuid', '=', second.trans_uuid)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'failed', delivered_status: 'failed' });
      expect(row.last_reply).toMatch(/suppress/);
    },
  );

  it('keeps a 4xx recipient queued for a retry with a deferred event', async () => {
    sink.replies.set('later@customer.example', [450, '4.2.0 Greylisted, try again in 600 seconds']);
    const res = await send({ from: 'orders@shop.example', to: 'later@customer.example', subject: 'Hi', text: 'Hi' });
    const [{ trans_uuid }] = (await res.json()).data;
    await expect
      .poll(
        async () =>
          (
            await app.ctx.db
              .selectFrom('events')
              .innerJoin('transactions', 'transactions.id', 'events.transaction_id')
              .select('events.type')
              .where('transactions.uuid', '=', trans_uuid)
              .execute()
          ).map((e) => e.type),
        { timeout: 10_000 },
      )
      .toContain('deferred');
    const row = await app.ctx.db
      .selectFrom('transactions')
      .select(['status', 'next_attempt_at', 'attempts'])
      .where('uuid', '=', trans_uuid)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('queued');
    expect(row.attempts).toBe(1);
    // the server asked for 600 s, more than the first step of the schedule
    expect(new Date(row.next_attempt_at!).getTime() - Date.now()).toBeGreaterThan(500_000);
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses the key with another body', async () => {
    const body = { from: 'orders@shop.example', to: 'idem@customer.example', subject: 'Once', text: 'Once' };
    const first = await send(body, { 'Idempotency-Key': 'order-1001-confirmation' });
    const before = await countTransactions();
    const second = await send(body, { 'Idempotency-Key': 'order-1001-confirmation' });
    expect(second.status).toBe(first.status);
    expect(await second.json()).toEqual(await first.json());
    expect(await countTransactions()).toBe(before);
    const other = await send({ ...body, subject: 'Different' }, { 'Idempotency-Key': 'order-1001-confirmation' });
    expect(other.status).toBe(409);
    expect(await countTransactions()).toBe(before);
  });

  it('sends a racing duplicate Idempotency-Key only once', async () => {
    const body = { from: 'orders@shop.example', to: 'race@customer.example', subject: 'Race', text: 'Race' };
    const before = await countTransactions();
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(body, { 'Idempotency-Key': 'race-key' })));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    const bodies = await Promise.all(answers.map((a) => a.json()));
    for (const b of bodies) expect(b).toEqual(bodies[0]);
    expect(await countTransactions()).toBe(before + 1);
  });
});
