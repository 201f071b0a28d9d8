// Attachments by URL and reading a message's attachments back, with the official `resend` SDK over a
// real socket: a local HTTP server serves the files (loopback allowed by WEBHOOK_ALLOWED_NETWORKS, as
// in the webhook tests); a private address, a 404, an oversize file, a slow server and a redirect
// to a private address are refused with a validation_error naming the attachment; a fetched file is
// delivered (worker → local SMTP sink) and listed, read and downloaded by its signed URL, which
// refuses a changed or expired link.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import type { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { getAttachment } from '../../src/server/resend/email-attachments.service.ts';

let started: ResendApp;
let app: TestApp;
let sink: SmtpSink;
let server: ResendApp['server'];
let files: http.Server;
let filesOrigin: string;
let resend: Resend;
let other: Resend;
let apiKey: string;
let customerId: number;

const PDF = randomBytes(50_000);
// SEND_BODY_LIMIT_BYTES below: what one request could carry inline, 3/4 of it, bounds the fetches
const BODY_LIMIT = 400_000;

beforeAll(async () => {
  files = http.createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/files/invoice-1042.pdf') {
      res.writeHead(200, { 'Content-Type': 'application/pdf', 'Content-Length': PDF.length });
      res.end(PDF);
    } else if (path === '/moved') {
      res.writeHead(302, { Location: '/files/invoice-1042.pdf' });
      res.end();
    } else if (path === '/moved-inside') {
      res.writeHead(302, { Location: 'http://10.20.30.40/secret' });
      res.end();
    } else if (path === '/big') {
      // no Content-Length: the bound must hold on the stream itself
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const more = () => {
        while (sent < 2_000_000) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      more();
      res.on('error', () => {});
    } else if (path === '/slow') {
      // never answers
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesOrigin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  started = await startResendApp({
    env: {
      WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
      SEND_BODY_LIMIT_BYTES: String(BODY_LIMIT),
      ATTACHMENT_FETCH_TIMEOUT_SECONDS: '2',
    },
    second: true,
  });
  ({ app, server, resend, apiKey } = started);
  sink = started.sink!;
  other = started.other!;
  customerId = started.account.customerId;
  await addDomain(app.ctx, customerId, 'shop.example', { verified: true });
  await addDomain(app.ctx, started.second!.customerId, 'theirs.example', { verified: true });
}, 240_000);

afterAll(async () => {
  await started?.close();
  files?.closeAllConnections();
  await new Promise((resolve) => files?.close(resolve));
});

const message = (attachments: object[]) => ({
  from: 'orders@shop.example',
  to: 'ann@customer.example',
  subject: 'Your invoice',
  html: '<p>Your invoice, and our logo: <img src="cid:logo"></p>',
  attachments,
});
const countMessages = async () =>
  Number(
    (
      await app.ctx.db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
/** The download URL of an answer, at the socket this test listens on. */
const local = (url: string) => {
  const u = new URL(url);
  return `${server.origin}${u.pathname}${u.search}`;
};

describe('attachments by path', () => {
  let emailId: string;

  it('fetches the URL before answering, and the message goes out with the file', async () => {
    const { data, error } = await resend.emails.send(
      message([
        { path: `${filesOrigin}/files/invoice-1042.pdf` },
        { filename: 'logo.png', content: Buffer.from('png bytes'), contentType: 'image/png', contentId: 'logo' },
        { path: `${filesOrigin}/moved`, filename: 'copy.pdf', contentType: 'application/x-pdf' },
      ]),
    );
    expect(error).toBeNull();
    emailId = data!.id;
    const id = emailId.replace(/-/g, '');
    await expect.poll(() => sink.messages.some((m) => m.from.includes(id)), { timeout: 15_000 }).toBe(true);
    const parsed = await simpleParser(sink.messages.find((m) => m.from.includes(id))!.raw);
    // an inline image goes in the related part, before the others
    const sent = parsed.attachments.map((a) => [a.filename, a.contentType, a.size]);
    expect(sent.sort((a, b) => String(a[0]).localeCompare(String(b[0])))).toEqual([
      ['copy.pdf', 'application/x-pdf', PDF.length],
      ['invoice-1042.pdf', 'application/pdf', PDF.length],
      ['logo.png', 'image/png', 9],
    ]);
    expect(parsed.attachments.find((a) => a.filename === 'invoice-1042.pdf')!.content.equals(PDF)).toBe(true);
    expect(parsed.attachments.find((a) => a.filename === 'logo.png')!.contentId).toBe('<logo>');
  });

  it('lists and reads the attachments back, and their download URLs serve the bytes', async () => {
    const { data, error } = await resend.emails.attachments.list({ emailId });
    expect(error).toBeNull();
    expect(data!.has_more).toBe(false);
    expect(data!.data.map((a) => [a.filename, a.size, a.content_type, a.content_disposition, a.content_id])).toEqual([
      ['invoice-1042.pdf', PDF.length, 'application/pdf', 'attachment', undefined],
      ['logo.png', 9, 'image/png', 'inline', 'logo'],
      ['copy.pdf', PDF.length, 'application/x-pdf', 'attachment', undefined],
    ]);
    const [first] = data!.data;
    expect(Date.parse(first.expires_at) - Date.now()).toBeGreaterThan(3_500_000);

    const one = await resend.emails.attachments.get({ emailId, id: first.id });
    expect(one.data).toMatchObject({ object: 'attachment', id: first.id, filename: 'invoice-1042.pdf' });
    const res = await fetch(local(one.data!.download_url));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/octet-stream');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename=invoice-1042.pdf');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(PDF)).toBe(true);

    // a page of one, then the next
    const page = await resend.emails.attachments.list({ emailId, limit: 1 });
    expect(page.data).toMatchObject({ has_more: true, data: [{ id: first.id }] });
    const next = await resend.emails.attachments.list({ emailId, limit: 2, after: first.id });
    expect(next.data!.data.map((a) => a.filename)).toEqual(['logo.png', 'copy.pdf']);
    expect(next.data!.has_more).toBe(false);
  });

  it('refuses a changed or expired download URL, and answers 404 for what is not the account’s', async () => {
    const { data } = await resend.emails.attachments.list({ emailId });
    const url = new URL(data!.data[0].download_url);
    const changed = new URL(url);
    changed.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    const refused = await fetch(local(changed.toString()));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'forbidden', message: /not valid/ } });
    const otherFile = local(url.toString()).replace(data!.data[0].id, data!.data[2].id);
    expect((await fetch(otherFile)).status).toBe(403);

    const old = await getAttachment(app.ctx, customerId, emailId, data!.data[0].id, new Date(Date.now() - 7_200_000));
    const expired = await fetch(local(old.download_url));
    expect(expired.status).toBe(403);
    expect(await expired.json()).toMatchObject({ error: { code: 'forbidden', message: /expired/ } });

    expect((await other.emails.attachments.list({ emailId })).error).toMatchObject({ statusCode: 404 });
    expect((await resend.emails.attachments.list({ emailId: 'not-a-uuid' })).error).toMatchObject({
      statusCode: 404,
    });
    const unknown = await resend.emails.attachments.get({ emailId, id: '00000000-0000-8000-8000-000000000000' });
    expect(unknown.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('refuses a private address, a redirect to one, a 404, an oversize file and a slow server', async () => {
    const before = await countMessages();
    const refusal = async (path: string, at = 0) => {
      const attachments: object[] = [{ filename: 'a.txt', content: 'aGk=' }];
      attachments.splice(at, 0, { path });
      const { data, error } = await resend.emails.send(message(attachments));
      expect(data).toBeNull();
      expect(error).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(error!.message).toContain(`attachments.${at}.path: ${path} could not be attached: `);
      return error!.message;
    };
    expect(await refusal('http://10.1.2.3/invoice.pdf')).toMatch(/is a private \(RFC 1918\) address/);
    expect(await refusal('http://169.254.169.254/latest/meta-data', 1)).toMatch(/link-local/);
    expect(await refusal(`${filesOrigin}/moved-inside`)).toMatch(/redirects to .*10\.20\.30\.40.* private/);
    expect(await refusal(`${filesOrigin}/nothing-here.pdf`)).toMatch(/the server answered 404/);
    expect(await refusal(`${filesOrigin}/big`)).toMatch(/larger than the 300,000 bytes/);
    expect(await refusal(`${filesOrigin}/slow`)).toMatch(/no answer within 2 s/);
    expect(await refusal('file:///etc/passwd')).toMatch(/must use http or https/);
    expect(await countMessages()).toBe(before);
  });

  it('names the message of a batch, and takes a path at /v1/emails too', async () => {
    const batch = await resend.batch.send([
      message([{ path: `${filesOrigin}/files/invoice-1042.pdf` }]),
      message([{ path: `${filesOrigin}/gone` }]),
    ]);
    expect(batch.error).toMatchObject({ statusCode: 422, message: expect.stringContaining('1.attachments.0.path') });

    const res = await fetch(`${server.origin}/v1/emails`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(message([{ path: `${filesOrigin}/files/invoice-1042.pdf`, filename: 'x.pdf' }])),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    const listed = await resend.emails.attachments.list({ emailId: id });
    expect(listed.data!.data).toMatchObject([{ filename: 'x.pdf', size: PDF.length }]);

    const both = await resend.emails.send(message([{ path: `${filesOrigin}/x`, content: 'aGk=', filename: 'a' }]));
    expect(both.error).toMatchObject({ name: 'validation_error', message: /content \(base64\) or path/ });
  });
});
