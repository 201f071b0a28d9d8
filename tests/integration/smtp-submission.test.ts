// Mail in over SMTP (the smtp role) and out through the worker to a local sink.
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, type TestAccount } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { openDialog, plainAuth } from '../helpers/smtp-dialog.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { startSubmissionServer, type SubmissionServer } from '../../src/server/smtp/submission.ts';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let smtp: SubmissionServer;
let account: TestAccount;
let user: string;
let pass: string;

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
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, SMTP_MAX_MESSAGE_BYTES: '200000', HOST: '127.0.0.1' });
  account = await app.createAccount();
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  await addDomain(app.ctx, account.customerId, 'unverified.example');
  ({ username: user, password: pass } = (await credentialsForConsole(app.ctx, account.customerId)).smtpCredentials);
  smtp = await startSubmissionServer(app.ctx, { port: 0, host: '127.0.0.1' });
  worker = new DeliveryWorker(app.ctx);
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await smtp?.close();
  await sink?.close();
  await app?.close();
});

const client = () =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    auth: { user, pass },
    tls: { rejectUnauthorized: false },
  });

describe('SMTP submission', () => {
  it(
    'accepts an authenticated message over STARTTLS, delivers it to every envelope recipient (Bcc too) and drops ' +
      'X-Transact-Group',
    async () => {
      const before = sink.messages.length;
      const info = await client().sendMail({
        from: 'Shop <orders@shop.example>',
        to: 'ann@customer.example',
        bcc: 'hidden@customer.example',
        subject: 'Over SMTP',
        text: 'Hello over SMTP',
        headers: { 'X-Transact-Group': 'Receipts' },
      });
      expect(info.response).toMatch(/^250 .*Queued as [0-9a-f-]{36} [0-9a-f-]{36}/);
      const messages = (await sink.waitFor(before + 2)).slice(before);
      expect(messages.flatMap((m) => m.to).sort()).toEqual(['ann@customer.example', 'hidden@customer.example']);
      for (const m of messages) {
        const text = m.raw.toString();
        expect(text).not.toMatch(/X-Transact-Group/i);
        expect(text).not.toMatch(/^Bcc:/im);
        expect(text).toMatch(/^DKIM-Signature: .*d=shop\.example/im);
        expect(text).toContain('Hello over SMTP');
      }
      const group = await app.ctx.db
        .selectFrom('transaction_groups')
        .select('id')
        .where('customer_id', '=', account.customerId)
        .where('name', '=', 'Receipts')
        .executeTakeFirst();
      expect(group).toBeDefined();
    },
  );

  it('refuses MAIL before AUTH with 530', async () => {
    const d = await openDialog(smtp.port);
    await d.command('EHLO client.test');
    expect(await d.command('MAIL FROM:<orders@shop.example>')).toMatch(/^530/);
    expect(await d.command('RCPT TO:<stranger@elsewhere.example>')).toMatch(/^530/);
    d.end();
  });

  it('disconnects after five wrong passwords', async () => {
    const d = await openDialog(smtp.port);
    await d.command('EHLO client.test');
    const replies: string[] = [];
    for (let i = 0; i < 5; i++) replies.push(await d.command(`AUTH PLAIN ${plainAuth(user, 'wrong-password')}`));
    expect(replies.slice(0, 4).every((r) => r.startsWith('535'))).toBe(true);
    expect(replies[4]).toMatch(/^421/);
    await d.closed();
  });

  it('refuses SIZE over the limit at MAIL FROM with 552, and an oversized DATA with 552', async () => {
    const d = await openDialog(smtp.port);
    await d.command('EHLO client.test');
    expect(await d.command(`AUTH PLAIN ${plainAuth(user, pass)}`)).toMatch(/^235/);
    expect(await d.command('MAIL FROM:<orders@shop.example> SIZE=999999999')).toMatch(/^552/);
    d.end();
    const before = await countTransactions();
    await expect(
      client().sendMail({
        from: 'orders@shop.example',
        to: 'ann@customer.example',
        subject: 'Big',
        text: 'x'.repeat(300_000),
      }),
    ).rejects.toMatchObject({ responseCode: 552 });
    expect(await countTransactions()).toBe(before);
  });

  it('answers an HTTP request with 554', async () => {
    const d = await openDialog(smtp.port);
    expect(await d.command('GET / HTTP/1.1')).toMatch(/^554/);
    await d.closed();
  });

  it('refuses a From domain that is not verified with 550 5.7.1', async () => {
    const before = await countTransactions();
    await expect(
      client().sendMail({ from: 'x@unverified.example', to: 'ann@customer.example', subject: 'No', text: 'No' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    expect(await countTransactions()).toBe(before);
  });

  it.each([
    ['\\n.\\n', '\n.\n'],
    ['\\n.\\r\\n', '\n.\r\n'],
  ])('does not let %s smuggle a second message', async (_name, sequence) => {
    const before = await countTransactions();
    const d = await openDialog(smtp.port);
    await d.command('EHLO client.test');
    await d.command(`AUTH PLAIN ${plainAuth(user, pass)}`);
    expect(await d.command('MAIL FROM:<orders@shop.example>')).toMatch(/^250/);
    expect(await d.command('RCPT TO:<ann@customer.example>')).toMatch(/^250/);
    expect(await d.command('DATA')).toMatch(/^354/);
    const smuggled =
      'From: orders@shop.example\r\nTo: ann@customer.example\r\nSubject: first\r\n\r\nfirst body' +
      sequence +
      'MAIL FROM:<orders@shop.example>\r\nRCPT TO:<victim@customer.example>\r\nDATA\r\nFrom: ' +
      'orders@shop.example\r\nSubject: smuggled\r\n\r\nsmuggled\r\n.\r\n';
    const reply = await d.raw(smuggled);
    expect(reply).toMatch(/^554 5\.6\.0/);
    expect(await d.command('QUIT')).toMatch(/^221/);
    expect(await countTransactions()).toBe(before);
  });
});
