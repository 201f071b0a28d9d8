// TRACKING_URL: tracking links and the open pixel may live on another host than PUBLIC_URL (a
// click.<brand> CNAME to this service); unsubscribe links stay on PUBLIC_URL.
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, type TestApp, sendAsClient } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';

const TRACKING = 'https://click.shop.test';
let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, TRACKING_URL: `${TRACKING}/` });
  worker = new DeliveryWorker(app.ctx);
  worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await app?.close();
  await sink?.close();
});

describe('TRACKING_URL', () => {
  it('puts the pixel and the tracked links on the tracking host, the unsubscribe link on PUBLIC_URL', async () => {
    const account = await app.createAccount();
    await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
    const { apiKey } = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials;
    const res = await sendAsClient(app, '/v1/mail', apiKey, {
      from: 'a@shop.example',
      to: 'b@customer.example',
      subject: 'Hosts',
      html: '<p><a href="https://shop.example/x">x</a></p>',
    });
    expect(res.status).toBe(202);
    const [mail] = await sink.waitFor(1, 15_000);
    const parsed = await simpleParser(mail.raw);
    const html = parsed.html as string;
    expect(html).toMatch(new RegExp(`href="${TRACKING}/t/c/[\\w-]+"`));
    expect(html).toMatch(new RegExp(`<img src="${TRACKING}/t/o/[\\w.-]+"`));
    expect(html).not.toContain(`${ORIGIN}/t/`);
    const headerBlock = mail.raw
      .toString('utf8')
      .split('\r\n\r\n')[0]
      .replace(/\r\n[ \t]+/g, ' ');
    expect(headerBlock).toMatch(new RegExp(`^List-Unsubscribe: <${ORIGIN}/header-unsubscribe/`, 'm'));
  });
});
