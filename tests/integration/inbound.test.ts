// Receiving mail (docs/receiving.md): messages sent to the MX listener by nodemailer, as another
// mail server would, for a domain with receiving on; read back with the official `resend` SDK's
// emails.receiving.* over a real socket. SPF, DKIM and DMARC are answered by a local DNS server.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { countReceived, idOf, type Receiving, startReceiving } from '../helpers/receiving.ts';
import { openDialog } from '../helpers/smtp-dialog.ts';
import { addDomain, setDomainReceiving } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { type BounceReceiver, MAX_BOUNCE_BYTES } from '../../src/server/bounces/receiver.ts';
import { purgeReceived, sweepOrphanInboundFiles } from '../../src/server/inbound/inbound.service.ts';
import { WebhookWorker } from '../../src/server/webhooks/worker.ts';
import { startWebhookReceiver, webhookHeaders } from '../helpers/webhook-receiver.ts';

const MAX_BYTES = 200_000;

let receiving: Receiving;
let app: TestApp;
let receiver: BounceReceiver;
let resend: Resend;
let other: Resend;
let customerId: number;
let apiKey: string;
let mx: Receiving['mx'];

beforeAll(async () => {
  receiving = await startReceiving({
    RETURN_PATH_DOMAIN: 'rp.transact.test',
    INBOUND_MAX_MESSAGE_BYTES: String(MAX_BYTES),
  });
  ({ app, receiver, resend, apiKey, mx } = receiving);
  customerId = receiving.account.customerId;
  await addDomain(app.ctx, customerId, 'quiet.example', { verified: true });
  const stranger = await app.createAccount();
  const otherKey = (await credentialsForConsole(app.ctx, stranger.customerId)).apiCredentials.apiKey;
  other = new Resend(otherKey, { baseUrl: `${receiving.server.origin}/resend` });
  // the sender's domain: SPF allows loopback, DKIM key published, DMARC p=reject; a bank whose mail
  // never comes from here
  receiving.publishSenderPolicies();
});

afterAll(async () => {
  await receiving?.close();
});

async function received(id: string) {
  const { data, error } = await resend.emails.receiving.get(id);
  expect(error).toBeNull();
  return data!;
}

describe('the MX listener for a receiving domain', () => {
  it('takes multipart mail with attachments, 8-bit text and encoded headers; the SDK reads it back', async () => {
    const photo = Buffer.alloc(30_000, 7);
    const info = await mx({ dkim: true }).sendMail({
      from: 'Zoë Ünal <zoe@sender.example>',
      to: 'Support <support@shop.example>',
      cc: 'team@shop.example',
      envelope: { from: 'zoe@sender.example', to: ['support+ticket-7@shop.example'] },
      subject: 'Où est ma commande? 📦',
      text: 'Grüße — where is my parcel?',
      html: '<p>Grüße — <img src="cid:logo@sender"> where is my parcel?</p>',
      textEncoding: 'quoted-printable',
      attachments: [
        { filename: 'photo.jpg', content: photo, contentType: 'image/jpeg' },
        { filename: 'logo.png', content: Buffer.from('png-bytes'), cid: 'logo@sender' },
      ],
    });
    expect(info.response).toMatch(/^250 /);
    const email = await received(idOf(info.response));
    expect(email.from).toBe('Zoë Ünal <zoe@sender.example>');
    expect(email.to).toEqual(['Support <support@shop.example>']);
    expect(email.cc).toEqual(['team@shop.example']);
    expect(email.received_for).toEqual(['support+ticket-7@shop.example']);
    expect(email.subject).toBe('Où est ma commande? 📦');
    expect(email.text?.trim()).toBe('Grüße — where is my parcel?');
    expect(email.html).toContain('cid:logo@sender');
    expect(email.message_id).toBe(info.messageId);
    expect(email.headers?.subject).toContain('=?');
    expect(email).toMatchObject({ authentication: { spf: 'pass', dkim: 'pass', dmarc: 'pass', flagged: false } });
    const names = email.attachments.map((a) => [a.filename, a.size, a.content_id]).sort();
    expect(names).toEqual([
      ['logo.png', 9, 'logo@sender'],
      ['photo.jpg', photo.length, null],
    ]);

    const list = await resend.emails.receiving.attachments.list({ emailId: email.id });
    const jpg = list.data!.data.find((a) => a.filename === 'photo.jpg')!;
    const download = await fetch(jpg.download_url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename=photo.jpg');
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(photo.length);
    expect(bytes.equals(photo)).toBe(true);
    const one = await resend.emails.receiving.attachments.get({ emailId: email.id, id: jpg.id });
    expect(one.data).toMatchObject({ object: 'attachment', id: jpg.id, content_type: 'image/jpeg' });

    // forward: the SDK reads the raw message from its link and sends it on, attachments included
    const forwarded = await resend.emails.receiving.forward({
      emailId: email.id,
      to: 'desk@customer.example',
      from: 'Shop <orders@shop.example>',
    });
    expect(forwarded.error).toBeNull();
    const sent = await resend.emails.get(forwarded.data!.id);
    expect(sent.data).toMatchObject({ subject: 'Où est ma commande? 📦', to: ['desk@customer.example'] });

    const raw = await (await fetch(email.raw!.download_url)).text();
    expect(raw).toMatch(/^Received-SPF: pass/);
    expect(raw).toMatch(/Authentication-Results: [^;]+;\s+dkim=pass/);
    expect(raw).toContain(`Message-ID: ${info.messageId}`);
  });

  it('flags a forged From whose domain says p=reject, or refuses it when the domain asks', async () => {
    const info = await mx().sendMail({
      from: 'ceo@bank.example',
      to: 'billing@shop.example',
      subject: 'Wire the money',
      text: 'Now.',
    });
    const email = await received(idOf(info.response));
    expect(email).toMatchObject({ authentication: { spf: 'fail', dmarc: 'fail', flagged: true } });

    const shop = await app.ctx.db
      .selectFrom('domains')
      .select('id')
      .where('domain', '=', 'shop.example')
      .executeTakeFirstOrThrow();
    await setDomainReceiving(app.ctx, customerId, shop.id, { refuseDmarcReject: true });
    try {
      await expect(
        mx().sendMail({ from: 'ceo@bank.example', to: 'billing@shop.example', subject: 'Again', text: 'Now.' }),
      ).rejects.toMatchObject({ responseCode: 550 });
    } finally {
      await setDomainReceiving(app.ctx, customerId, shop.id, { refuseDmarcReject: false });
    }
  });

  it('refuses at RCPT a domain that does not receive here, and a message over the size limit with 552', async () => {
    const dialog = await openDialog(receiver.port);
    // SIZE is the larger of the two limits: a bounce report may take up to MAX_BOUNCE_BYTES
    expect(await dialog.command('EHLO mail.sender.example')).toContain(`SIZE ${MAX_BOUNCE_BYTES}`);
    expect(await dialog.command('MAIL FROM:<zoe@sender.example>')).toMatch(/^250/);
    expect(await dialog.command('RCPT TO:<someone@elsewhere.example>')).toMatch(/^550 5\.7\.1/);
    expect(await dialog.command('RCPT TO:<someone@quiet.example>')).toMatch(/^550 5\.7\.1/);
    dialog.end();

    const before = await countReceived(app);
    await expect(
      mx().sendMail({
        from: 'zoe@sender.example',
        to: 'support@shop.example',
        subject: 'Big',
        text: 'x'.repeat(MAX_BYTES),
      }),
    ).rejects.toMatchObject({ responseCode: 552 });
    expect(await countReceived(app)).toBe(before);
  });

  it('answers malformed MIME and header floods with a clear reply and stores nothing half', async () => {
    const before = await countReceived(app);
    const flood = `${Array.from({ length: 40_000 }, (_, i) => `X-Flood-${i}: ${'y'.repeat(20)}`).join('\r\n')}\r\n`;
    for (const body of [
      'From: a@sender.example\r\nContent-Type: multipart/mixed; boundary="b"\r\n\r\n' +
        '--b\r\nContent-Type: text/plain\r\n\r\nunterminated',
      `From: a@sender.example\r\n${flood}\r\nbody`,
    ]) {
      const dialog = await openDialog(receiver.port);
      await dialog.command('EHLO mail.sender.example');
      await dialog.command('MAIL FROM:<a@sender.example>');
      expect(await dialog.command('RCPT TO:<support@shop.example>')).toMatch(/^250/);
      expect(await dialog.command('DATA')).toMatch(/^354/);
      const reply = await dialog.raw(`${body}\r\n.\r\n`);
      expect(reply).toMatch(/^(250|55\d) /);
      dialog.end();
    }
    // the unterminated multipart is still a message (its text as far as it goes); the flood is over the size
    expect((await countReceived(app)) - before).toBeLessThanOrEqual(1);
    const files = await filesWithoutRows();
    expect(files).toEqual([]);
  });

  it('links a reply to the message it answers, through In-Reply-To', async () => {
    const sent = await app.call('POST', '/v1/mail', {
      headers: { Authorization: `Bearer ${apiKey}` },
      body: { from: 'orders@shop.example', to: 'zoe@sender.example', subject: 'Your order', text: 'Shipped.' },
    });
    const uuid = ((await sent.json()) as { data: { trans_uuid: string }[] }).data[0].trans_uuid;
    const info = await mx({ dkim: true }).sendMail({
      from: 'zoe@sender.example',
      to: 'orders@shop.example',
      subject: 'Re: Your order',
      text: 'Thanks!',
      inReplyTo: `<${uuid}@shop.example>`,
      references: [`<${uuid}@shop.example>`],
    });
    const email = await received(idOf(info.response));
    expect(email).toMatchObject({ in_reply_to_email_id: uuid });
  });

  it('hands a message to a webhook as email.received: signed as the SDK checks, retried after 503, once', async () => {
    const hookReceiver = await startWebhookReceiver();
    let answered = 0;
    hookReceiver.respond = () =>
      answered++ === 0 ? { status: 503, headers: { 'Retry-After': '1' } } : { status: 200, body: 'ok' };
    const { data: hook } = await resend.webhooks.create({
      endpoint: `${hookReceiver.url}/in`,
      events: ['email.received'],
    });
    const worker = new WebhookWorker(app.ctx, { random: () => 0.5 });
    worker.start();
    try {
      const info = await mx().sendMail({
        from: 'zoe@sender.example',
        to: 'support@shop.example',
        envelope: { from: 'zoe@sender.example', to: ['support+ticket-9@shop.example'] },
        subject: 'Order 9',
        text: 'Where is it?',
        attachments: [{ filename: 'a.txt', content: 'abc' }],
      });
      const id = idOf(info.response);
      await vi.waitFor(() => expect(hookReceiver.received).toHaveLength(2), { timeout: 60_000, interval: 100 });
      const last = hookReceiver.received[1];
      const event = resend.webhooks.verify({
        payload: last.body,
        headers: webhookHeaders(last),
        webhookSecret: hook!.signing_secret,
      });
      expect(event).toMatchObject({
        type: 'email.received',
        data: {
          email_id: id,
          from: 'zoe@sender.example',
          to: ['support@shop.example'],
          received_for: ['support+ticket-9@shop.example'],
          subject: 'Order 9',
          message_id: info.messageId,
          attachments: [{ filename: 'a.txt', content_type: 'text/plain' }],
        },
      });
      expect(JSON.parse(hookReceiver.received[0].body)).toEqual(JSON.parse(last.body));
      // the worker records outcomes in batches: the second answer is written a moment after it came
      const request = () =>
        app.ctx.db
          .selectFrom('webhook_requests')
          .select(['status', 'attempts'])
          .where('event_type', '=', 'email.received')
          .executeTakeFirstOrThrow();
      await vi.waitFor(async () => expect(await request()).toEqual({ status: 'success', attempts: 2 }), {
        timeout: 30_000,
        interval: 100,
      });
      expect(hookReceiver.received).toHaveLength(2);
    } finally {
      await worker.stop();
      await hookReceiver.close();
      await resend.webhooks.remove(hook!.id);
    }
  });

  it('sweeps files of received mail that no row names once they are an hour old, and keeps the rest', async () => {
    const info = await mx().sendMail({
      from: 'zoe@sender.example',
      to: 'support@shop.example',
      subject: 'Kept',
      text: 'A message whose row committed.',
      attachments: [{ filename: 'kept.txt', content: 'kept' }],
    });
    const kept = await received(idOf(info.response));
    // what a process killed between writing the files and committing the row leaves behind
    const lost = randomUUID();
    const orphans = [`inbound/${lost}/raw`, `inbound/${lost}/${randomUUID()}`, `inbound/${kept.id}/${randomUUID()}`];
    for (const key of orphans) await app.ctx.storage.put(key, Readable.from([Buffer.from('half-stored')]));
    const before = await storedKeys();
    expect(before).toEqual(expect.arrayContaining(orphans));

    // younger than the grace: a message may be being received right now
    expect(await sweepOrphanInboundFiles(app.ctx)).toBe(0);
    expect(await storedKeys()).toEqual(before);
    const inTwoHours = new Date(Date.now() + 2 * 3_600_000);
    expect(await sweepOrphanInboundFiles(app.ctx, 3_600_000, inTwoHours)).toBe(orphans.length);
    const after = await storedKeys();
    expect(after).toEqual(before.filter((key) => !orphans.includes(key)));
    expect(await filesWithoutRows()).toEqual([]);
    // the kept message is whole: its raw message and its attachment still download
    expect(await (await fetch(kept.raw!.download_url)).text()).toContain('A message whose row committed.');
    const attachment = (await resend.emails.receiving.attachments.list({ emailId: kept.id })).data!.data[0];
    expect(await (await fetch(attachment.download_url)).text()).toBe('kept');
    expect(await sweepOrphanInboundFiles(app.ctx, 3_600_000, inTwoHours)).toBe(0);
  });

  it('pages newest first, keeps accounts apart, answers 404 to a malformed id, purges after retention', async () => {
    const first = await resend.emails.receiving.list({ limit: 2 });
    expect(first.data!.data).toHaveLength(2);
    expect(first.data!.has_more).toBe(true);
    const next = await resend.emails.receiving.list({ limit: 2, after: first.data!.data[1].id });
    expect(next.data!.data[0].created_at <= first.data!.data[1].created_at).toBe(true);
    const id = first.data!.data[0].id;
    expect((await other.emails.receiving.get(id)).error).toMatchObject({ statusCode: 404 });
    expect((await resend.emails.receiving.get('not-a-uuid')).error?.statusCode).toBeOneOf([404, 422]);
    expect((await other.emails.receiving.list()).data!.data).toEqual([]);

    const later = new Date(Date.now() + 31 * 86_400_000);
    expect(await purgeReceived(app.ctx, later)).toBeGreaterThan(0);
    expect(await countReceived(app)).toBe(0);
    const left: string[] = [];
    for await (const object of app.ctx.storage.list('inbound/')) left.push(object.key);
    expect(left).toEqual([]);
  });
});

/** Stored files of received mail whose message has no row (a half-stored message). */
async function filesWithoutRows(): Promise<string[]> {
  const ids = new Set((await app.ctx.db.selectFrom('inbound_emails').select('id').execute()).map((r) => r.id));
  const orphans: string[] = [];
  for await (const object of app.ctx.storage.list('inbound/'))
    if (!ids.has(object.key.split('/')[1])) orphans.push(object.key);
  return orphans;
}

/** Every stored key of received mail, sorted. */
async function storedKeys(): Promise<string[]> {
  const keys: string[] = [];
  for await (const object of app.ctx.storage.list('inbound/')) keys.push(object.key);
  return keys.sort();
}
