// Online attachments in mail: POST /v1/mail with online_attachment_id and SMTP with
// X-Transact-Attachments (removed before delivery) are delivered through the worker to a local sink
// with a branded block holding a per-recipient link, DKIM intact; downloading through that link
// records a `download` event on the recipient's transaction (the More Info timeline's source) and
// counts on the link. Unknown and other customers' integration IDs are refused and store nothing.
import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, type TestApp, type TestAccount, sendAsClient } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink, type SunkMessage } from '../helpers/smtp-sink.ts';
import { dkimResult } from '../helpers/dkim.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { startSubmissionServer, type SubmissionServer } from '../../src/server/smtp/submission.ts';
import { createGroup } from '../../src/server/attachments/attachments.service.ts';
import { Readable } from 'node:stream';
import type { Domain } from '../../src/server/db/schema.ts';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let smtp: SubmissionServer;
let shop: TestAccount;
let other: TestAccount;
let shopDomain: Domain;
let shopKey: string;
let smtpUser: string;
let smtpPass: string;
let cookie: string;
let integrationId: string;
let otherIntegrationId: string;
let groupId: number;

const LINK = new RegExp(`${ORIGIN}/a/([A-Za-z0-9_-]{22})\\?r=([0-9a-f-]{36}\\.[A-Za-z0-9_-]{22})`);

async function deliveredCopy(uuid: string): Promise<SunkMessage> {
  const id = uuid.replace(/-/g, '');
  await expect.poll(() => sink.messages.some((m) => m.from.includes(id)), { timeout: 15_000 }).toBe(true);
  return sink.messages.find((m) => m.from.includes(id))!;
}

const sendApi = (body: Record<string, unknown>) => sendAsClient(app, '/v1/mail', shopKey, body);

async function linkedGroup(customerId: number, name: string) {
  const key = `attachments/test-${customerId}-${Date.now()}`;
  await app.ctx.storage.put(key, Readable.from([Buffer.from('the invoice bytes')]));
  return createGroup(app.ctx, customerId, { name }, [
    { key, name: 'invoice.pdf', size: 17, contentType: 'application/pdf' },
  ]);
}

/** Downloads through a link found in mail: the page, then its first file's form POST. */
async function downloadThrough(link: string): Promise<Response> {
  const url = new URL(link);
  const page = await (await app.api.request(`${ORIGIN}${url.pathname}${url.search}`)).text();
  const action = /<form method="post" action="([^"]+)"><input type="hidden" name="r" value="([^"]+)">/.exec(page);
  expect(action, page).not.toBeNull();
  return app.api.request(`${ORIGIN}${action![1]}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `r=${encodeURIComponent(action![2])}`,
  });
}

async function timeline(uuid: string) {
  const res = await app.call('GET', `/v1/transactions/${uuid}/events`, { cookie });
  expect(res.status).toBe(200);
  const body = await res.json();
  return (body.data ?? body) as { type: string; data: Record<string, string> }[];
}

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, HOST: '127.0.0.1', RETURN_PATH_DOMAIN: 'rp.transact.test' });
  shop = await app.createAccount();
  other = await app.createAccount();
  cookie = await app.signIn(shop.email, shop.password);
  shopDomain = await addDomain(app.ctx, shop.customerId, 'shop.example', { verified: true });
  const creds = await credentialsForConsole(app.ctx, shop.customerId);
  shopKey = creds.apiCredentials.apiKey;
  ({ username: smtpUser, password: smtpPass } = creds.smtpCredentials);
  const group = await linkedGroup(shop.customerId, 'Your invoices');
  integrationId = group.integration_id;
  groupId = group.id;
  otherIntegrationId = (await linkedGroup(other.customerId, 'Not yours')).integration_id;
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

describe('online attachments in mail', () => {
  it('adds a per-recipient link to API mail; its download is a download event on that transaction', async () => {
    const res = await sendApi({
      from: 'orders@shop.example',
      to: ['ann@customer.example', 'bob@customer.example'],
      subject: 'Invoice',
      html: '<html><body><p>Hello</p></body></html>',
      text: 'Hello',
      online_attachment_id: integrationId,
    });
    expect(res.status).toBe(202);
    const [ann, bob] = (await res.json()).data.map((d: { trans_uuid: string }) => d.trans_uuid);
    const annCopy = await deliveredCopy(ann);
    expect((await dkimResult(annCopy.raw, shopDomain)).status.result).toBe('pass');
    const parsed = await simpleParser(annCopy.raw);
    const html = parsed.html as string;
    expect(html).toContain('Your invoices');
    expect(html).toContain('invoice.pdf (17 Bytes)');
    expect(html.indexOf('Download files')).toBeLessThan(html.indexOf('</body>'));
    const annLink = LINK.exec(html)!;
    expect(annLink[2].startsWith(ann)).toBe(true);
    expect(parsed.text).toContain(`Download: ${annLink[0]}`);
    const bobLink = LINK.exec((await simpleParser((await deliveredCopy(bob)).raw)).html as string)!;
    expect(bobLink[2].startsWith(bob)).toBe(true);

    const download = await downloadThrough(annLink[0]);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('the invoice bytes');
    const events = await timeline(ann);
    const downloads = events.filter((e) => e.type === 'download');
    expect(downloads).toHaveLength(1);
    expect(downloads[0].data).toMatchObject({ file: 'invoice.pdf', link: 'Your invoices' });
    expect((await timeline(bob)).some((e) => e.type === 'download')).toBe(false);
    const row = await app.ctx.db
      .selectFrom('attachment_groups')
      .select('downloads')
      .where('id', '=', groupId)
      .executeTakeFirstOrThrow();
    expect(row.downloads).toBe(1);

    // a forged recipient token still downloads (the link is public) but records nothing
    const forged = `${ann}.AAAAAAAAAAAAAAAAAAAAAA`;
    const page = await (await app.api.request(`${ORIGIN}/a/${annLink[1]}?r=${forged}`)).text();
    expect(page).not.toContain('name="r"');
    const fileId = /action="\/a\/[^/]+\/files\/(\d+)"/.exec(page)![1];
    const forgedDownload = await app.api.request(`${ORIGIN}/a/${annLink[1]}/files/${fileId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `r=${forged}`,
    });
    expect(forgedDownload.status).toBe(200);
    expect((await timeline(ann)).filter((e) => e.type === 'download')).toHaveLength(1);
  });

  it('takes X-Transact-Attachments over SMTP and removes it before delivery', async () => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      auth: { user: smtpUser, pass: smtpPass },
      tls: { rejectUnauthorized: false },
    });
    const info = await transport.sendMail({
      from: 'orders@shop.example',
      to: 'cat@customer.example',
      subject: 'By SMTP',
      html: '<p>Hi</p>',
      text: 'Hi',
      headers: { 'X-Transact-Attachments': integrationId },
    });
    transport.close();
    const uuid = String(info.response).match(/[0-9a-f-]{36}/)![0];
    const copy = await deliveredCopy(uuid);
    expect(copy.raw.toString('latin1')).not.toMatch(/x-transact-attachments/i);
    expect((await dkimResult(copy.raw, shopDomain)).status.result).toBe('pass');
    const parsed = await simpleParser(copy.raw);
    const link = LINK.exec(parsed.html as string)!;
    expect(link[2].startsWith(uuid)).toBe(true);
    expect(parsed.text).toContain(link[0]);
    expect((await downloadThrough(link[0])).status).toBe(200);
    expect((await timeline(uuid)).filter((e) => e.type === 'download')).toHaveLength(1);
  });

  it("refuses an unknown or another customer's integration ID and stores nothing", async () => {
    const before = await app.ctx.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    for (const id of ['oa_unknown', otherIntegrationId, '../x']) {
      const res = await sendApi({
        from: 'orders@shop.example',
        to: 'ann@customer.example',
        subject: 'x',
        text: 'x',
        online_attachment_id: id,
      });
      expect(res.status, id).toBe(400);
    }
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      auth: { user: smtpUser, pass: smtpPass },
      tls: { rejectUnauthorized: false },
    });
    await expect(
      transport.sendMail({
        from: 'orders@shop.example',
        to: 'cat@customer.example',
        subject: 'x',
        text: 'x',
        headers: { 'X-Transact-Attachments': otherIntegrationId },
      }),
    ).rejects.toThrow(/550/);
    transport.close();
    const after = await app.ctx.db
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
  });
});
