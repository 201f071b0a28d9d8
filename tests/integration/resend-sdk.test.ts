// The official `resend` SDK pointed at us (baseUrl <service>/v1) sends through /v1/emails and
// /v1/emails/batch: same calls, same answers, and the mail goes out DKIM-signed. Served over a real
// socket, since the SDK speaks HTTP with fetch.
import { simpleParser } from 'mailparser';
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { dkimResult } from '../helpers/dkim.ts';
import type { Domain } from '../../src/server/db/schema.ts';

let started: ResendApp;
let app: TestApp;
let sink: SmtpSink;
let account: TestAccount;
let domain: Domain;
let resend: Resend;
let baseUrl: string;

beforeAll(async () => {
  started = await startResendApp({ path: '/v1' });
  ({ app, account, resend, baseUrl } = started);
  sink = started.sink!;
  domain = await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  await addDomain(app.ctx, account.customerId, 'pending.example');
});

afterAll(async () => {
  await started?.close();
});

const transaction = (uuid: string) =>
  app.ctx.db
    .selectFrom('transactions')
    .innerJoin('transaction_groups', 'transaction_groups.id', 'transactions.group_id')
    .select([
      'transactions.to_email',
      'transactions.message_id',
      'transactions.customer_id',
      'transaction_groups.name as group',
    ])
    .where('transactions.uuid', '=', uuid)
    .executeTakeFirst();

const countTransactions = async () =>
  Number(
    (
      await app.ctx.db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('Resend SDK against /v1/emails', () => {
  it('resend.emails.send queues the email, answers its id, and it arrives DKIM-signed with every field', async () => {
    const before = sink.messages.length;
    const receipt = Buffer.from('Receipt 1001: 2 × Coffee, €7.00\n');
    const { data, error } = await resend.emails.send({
      from: 'Shop <orders@shop.example>',
      to: ['a@customer.example'],
      subject: 'Your receipt',
      html: '<p>Thanks for your order</p>',
      text: 'Thanks for your order',
      cc: ['c@customer.example'],
      bcc: ['b@customer.example'],
      replyTo: 'Support <support@shop.example>',
      headers: { 'X-Order': '1001' },
      attachments: [{ filename: 'receipt.txt', content: receipt }],
      tags: [{ name: 'group', value: 'Receipts' }],
    });
    expect(error).toBeNull();
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
    });
    const row = await transaction(data!.id);
    expect(row).toMatchObject({ to_email: 'a@customer.example', customer_id: account.customerId, group: 'Receipts' });
    const siblings = await app.ctx.db
      .selectFrom('transactions')
      .select('to_email')
      .where('message_id', '=', row!.message_id)
      .orderBy('to_email')
      .execute();
    expect(siblings.map((s) => s.to_email)).toEqual(['a@customer.example', 'b@customer.example', 'c@customer.example']);
    const group = await app.ctx.db
      .selectFrom('transaction_groups')
      .select('name')
      .where('customer_id', '=', account.customerId)
      .where('name', '=', 'Receipts')
      .executeTakeFirst();
    expect(group).toEqual({ name: 'Receipts' });

    const messages = (await sink.waitFor(before + 3)).slice(before);
    expect(messages.flatMap((m) => m.to).sort()).toEqual([
      'a@customer.example',
      'b@customer.example',
      'c@customer.example',
    ]);
    for (const m of messages) {
      expect(m.raw.toString()).toMatch(/^DKIM-Signature:[\s\S]*?\bd=shop\.example;/m);
      const dkim = await dkimResult(m.raw, domain);
      expect(dkim.status.result).toBe('pass');
      expect(dkim.signingDomain).toBe('shop.example');

      const mail = await simpleParser(m.raw);
      expect(mail.from?.value).toEqual([{ address: 'orders@shop.example', name: 'Shop' }]);
      expect(mail.subject).toBe('Your receipt');
      expect(mail.replyTo?.value).toEqual([{ address: 'support@shop.example', name: 'Support' }]);
      expect(mail.headers.get('x-order')).toBe('1001');
      expect(mail.headers.has('bcc')).toBe(false);
      expect(mail.text?.trim()).toBe('Thanks for your order');
      expect(mail.html).toContain('<p>Thanks for your order</p>');
      expect(mail.attachments).toHaveLength(1);
      expect(mail.attachments[0].filename).toBe('receipt.txt');
      expect(mail.attachments[0].content.equals(receipt)).toBe(true);
    }
  });

  it('resend.batch.send answers one id per email and queues both', async () => {
    const before = sink.messages.length;
    const { data, error } = await resend.batch.send([
      { from: 'orders@shop.example', to: 'first@customer.example', subject: 'First', text: 'One' },
      {
        from: 'Shop <orders@shop.example>',
        to: ['second@customer.example'],
        subject: 'Second',
        html: '<b>Two</b>',
        tags: [{ name: 'group', value: 'Batch' }],
      },
    ]);
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);
    const [first, second] = data!.data;
    expect(await transaction(first.id)).toMatchObject({ to_email: 'first@customer.example', group: 'Default' });
    expect(await transaction(second.id)).toMatchObject({ to_email: 'second@customer.example', group: 'Batch' });
    const delivered = (await sink.waitFor(before + 2)).slice(before);
    expect(delivered.flatMap((m) => m.to).sort()).toEqual(['first@customer.example', 'second@customer.example']);
  });

  it(
    'answers { data: null, error } with a message for ' + 'a From on an unverified domain, and queues nothing',
    async () => {
      const before = await countTransactions();
      const { data, error } = await resend.emails.send({
        from: 'orders@pending.example',
        to: 'a@customer.example',
        subject: 'Hi',
        text: 'Hi',
      });
      expect(data).toBeNull();
      expect(error).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
        message: expect.stringContaining('pending.example is not a verified sending domain'),
      });
      expect(await countTransactions()).toBe(before);
    },
  );

  it('answers an error with a message for a bad request and for a wrong API key', async () => {
    const bad = await resend.emails.send({
      from: 'orders@shop.example',
      to: 'a@customer.example',
      subject: 'Hi\r\nBcc: victim@example.com',
      text: 'Hi',
    });
    expect(bad.data).toBeNull();
    expect(bad.error).toMatchObject({
      statusCode: 400,
      name: 'validation_error',
      message: expect.stringMatching(/subject: must not contain a line break/),
    });

    const stranger = new Resend('tsk_not-a-real-key-not-a-real-key', { baseUrl });
    const denied = await stranger.emails.send({
      from: 'orders@shop.example',
      to: 'a@customer.example',
      subject: 'Hi',
      text: 'Hi',
    });
    expect(denied.data).toBeNull();
    expect(denied.error).toMatchObject({
      statusCode: 401,
      name: 'invalid_api_key',
      message: 'The API key is not valid',
    });

    const batch = await resend.batch.send([
      { from: 'orders@shop.example', to: 'a@customer.example', subject: 'Hi', text: 'Hi' },
      { from: 'orders@pending.example', to: 'a@customer.example', subject: 'Hi', text: 'Hi' },
    ]);
    expect(batch.data).toBeNull();
    expect(batch.error).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/^Message 1: .*pending\.example/),
    });
  });

  it('keeps our { error: { code, message } } beside the Resend fields for other clients', async () => {
    const res = await fetch(`${baseUrl}/emails`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ from: 'orders@shop.example' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const body = await res.json();
    expect(body).toEqual({
      error: { code: 'unauthorized', message: expect.stringMatching(/API key is required/) },
      statusCode: 401,
      name: 'missing_api_key',
      message: body.error.message,
    });
  });

  it(
    'refuses what /v1/mail refuses too: a contentType that ' + 'is not a MIME type, a group tag with a line break',
    async () => {
      const before = await countTransactions();
      const email = { from: 'orders@shop.example', to: 'a@customer.example', subject: 'Hi', text: 'Hi' };
      const attachment = await resend.emails.send({
        ...email,
        attachments: [{ filename: 'a.txt', content: Buffer.from('hi'), contentType: 'text/plain\r\nX-Evil: 1' }],
      });
      expect(attachment.error).toMatchObject({
        statusCode: 400,
        message: expect.stringMatching(/attachments\.0\.content_type: must be a MIME type/),
      });
      const tag = await resend.emails.send({ ...email, tags: [{ name: 'group', value: 'Receipts\nX' }] });
      expect(tag.error).toMatchObject({
        statusCode: 400,
        message: expect.stringMatching(/tags\.0\.value: must not contain a line break/),
      });
      const long = await resend.emails.send({ ...email, tags: [{ name: 'group', value: 'g'.repeat(101) }] });
      expect(long.error).toMatchObject({
        statusCode: 400,
        message: expect.stringMatching(/tags\.0\.value: a group name is at most 100 characters/),
      });
      const path = await resend.emails.send({ ...email, attachments: [{ filename: 'passwd', path: '/etc/passwd' }] });
      // a path is fetched as a URL (resend-attachments.test.ts): a file path is not one
      expect(path.error).toMatchObject({
        statusCode: 422,
        message: expect.stringMatching(/attachments\.0\.path: \/etc\/passwd could not be attached: .*not a valid/),
      });
      expect(await countTransactions()).toBe(before);
    },
  );

  it('queues once for the same idempotencyKey sent twice, answering the same id', async () => {
    const before = await countTransactions();
    const payload = { from: 'orders@shop.example', to: 'once@customer.example', subject: 'Once', text: 'Once' };
    const first = await resend.emails.send(payload, { idempotencyKey: 'k1' });
    const second = await resend.emails.send(payload, { idempotencyKey: 'k1' });
    expect(first.error).toBeNull();
    expect(second).toMatchObject({ data: first.data, error: null });
    expect(await countTransactions()).toBe(before + 1);

    const reused = await resend.emails.send({ ...payload, subject: 'Something else' }, { idempotencyKey: 'k1' });
    expect(reused.data).toBeNull();
    expect(reused.error).toMatchObject({ statusCode: 409, message: expect.stringMatching(/Idempotency-Key/) });
    expect(await countTransactions()).toBe(before + 1);
  });
});
