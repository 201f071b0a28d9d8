// System mail: the domain-verification mail goes through the normal queue as the hidden
// system customer, and must reach the postmaster as plain service mail — no List-Unsubscribe, no open
// pixel, no rewritten links — and never be refused because that address is suppressed, whether by
// the customer's own list or by an unsubscribe from an earlier verification mail.
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink, type SunkMessage } from '../helpers/smtp-sink.ts';
import { dkimResult } from '../helpers/dkim.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { systemSender } from '../../src/server/domains/system-sender.ts';
import * as domainsRepo from '../../src/server/domains/domains.repository.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { ONE_CLICK_BODY } from '../../src/server/message/list-unsubscribe.ts';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let account: TestAccount;
let cookie: string;
let systemCustomerId: number;

const POSTMASTER = 'postmaster@pm.example';

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({
    SMTP_RELAY_URL: sink.url,
    HOST: '127.0.0.1',
    RETURN_PATH_DOMAIN: 'rp.transact.test',
    SYSTEM_FROM: 'Transact <no-reply@system.transact.test>',
  });
  account = await app.createAccount();
  cookie = await app.signIn(account.email, account.password);
  // The system customer tracks everything here: system mail must go out plain because it is system
  // mail, not because of that customer's settings.
  systemCustomerId = (await systemSender(app.ctx)).customerId;
  await app.ctx.db
    .updateTable('customers')
    .set({ track_opens: true, track_links: true })
    .where('id', '=', systemCustomerId)
    .execute();
  worker = new DeliveryWorker(app.ctx);
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await sink?.close();
  await app?.close();
});

/** The verification mails delivered to the postmaster so far. */
const toPostmaster = () => sink.messages.filter((m) => m.to.includes(POSTMASTER));

async function nextVerificationMail(count: number): Promise<SunkMessage> {
  await expect.poll(() => toPostmaster().length, { timeout: 15_000 }).toBe(count);
  return toPostmaster()[count - 1];
}

/** The header section of a delivered message, as written. */
const headOf = (copy: SunkMessage) => copy.raw.toString('latin1').split('\r\n\r\n', 1)[0];

/** The system customer's transactions to the postmaster, oldest first. */
const systemTransactions = () =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['uuid', 'status'])
    .where('customer_id', '=', systemCustomerId)
    .where('to_email', '=', POSTMASTER)
    .orderBy('id')
    .execute();

async function expectPlainServiceMail(copy: SunkMessage) {
  const parsed = await simpleParser(copy.raw);
  expect(headOf(copy)).not.toMatch(/^List-Unsubscribe(-Post)?:/im);
  expect(parsed.headers.has('list')).toBe(false); // where mailparser puts List-* headers
  const html = parsed.html as string;
  const text = parsed.text as string;
  for (const body of [html, text]) {
    expect(body).not.toMatch(/\/t\/[oc]\//); // no pixel, no rewritten link
    expect(body).not.toMatch(/unsubscribe/i);
  }
  // the link is the verification page itself, as written
  expect(html).toMatch(/<a href="http:\/\/localhost:4321\/verify-domain\/\d+\/[A-Za-z0-9_-]{43}">/);
  expect(text).toMatch(/http:\/\/localhost:4321\/verify-domain\/\d+\/[A-Za-z0-9_-]{43}/);
  // still DKIM-signed by the system domain
  const systemDomain = await domainsRepo.findCustomerDomain(app.ctx.db, systemCustomerId, 'system.transact.test');
  expect((await dkimResult(copy.raw, systemDomain!)).status.result).toBe('pass');
  return parsed;
}

describe('the domain-verification mail', () => {
  let domainId: number;

  it('is delivered without List-Unsubscribe, open pixel or click rewriting', async () => {
    const res = await app.call('POST', '/v1/domains', {
      cookie,
      body: { domain_url: 'pm.example', domain_verification_email: POSTMASTER },
    });
    expect(res.status).toBe(201);
    domainId = (await res.json()).domain.domain_id;
    const parsed = await expectPlainServiceMail(await nextVerificationMail(1));
    expect(parsed.subject).toBe('Verify pm.example for sending');
  });

  it(
    "a customer's mail to the same kind of recipient still " +
      "carries List-Unsubscribe (the rule is the system customer's)",
    async () => {
      const shop = await app.createAccount();
      await addDomain(app.ctx, shop.customerId, 'shop.example', { verified: true });
      const apiKey = (await credentialsForConsole(app.ctx, shop.customerId)).apiCredentials.apiKey;
      const res = await app.api.request('http://localhost:4321/v1/mail', {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          from: 'orders@shop.example',
          to: 'buyer@pm.example',
          subject: 'Order',
          html: '<p>Thanks</p>',
          group: 'Orders',
        }),
      });
      expect(res.status).toBe(202);
      await expect
        .poll(() => sink.messages.some((m) => m.to.includes('buyer@pm.example')), { timeout: 15_000 })
        .toBe(true);
      const copy = sink.messages.find((m) => m.to.includes('buyer@pm.example'))!;
      expect(headOf(copy)).toMatch(
        /^List-Unsubscribe:\s*<http:\/\/localhost:4321\/header-unsubscribe\/[0-9a-f-]{36}>/im,
      );
      expect(headOf(copy)).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/im);
    },
  );

  it(
    'reaches a postmaster who unsubscribed from an ' + 'earlier one and is on the customer’s suppression list',
    async () => {
      // the one-click unsubscribe of the first verification mail (its page answers any transaction
      // of ours, and mails sent before this rule carried the header) ...
      const [first] = await systemTransactions();
      const unsubscribed = await app.api.request(`http://localhost:4321/header-unsubscribe/${first.uuid}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: ONE_CLICK_BODY,
      });
      expect(unsubscribed.status).toBe(200);
      // ... and the customer's own suppression of the address
      expect(
        (await app.call('POST', '/v1/suppression', { cookie, body: { emails: [POSTMASTER] } })).status,
      ).toBeLessThan(300);
      const suppressedFor = await app.ctx.db
        .selectFrom('suppressions')
        .select('customer_id')
        .where('email', '=', POSTMASTER)
        .orderBy('customer_id')
        .execute();
      expect(suppressedFor.map((r) => r.customer_id).sort()).toEqual([account.customerId, systemCustomerId].sort());

      const res = await app.call('POST', `/v1/domains/${domainId}/verification`, { cookie, body: {} });
      expect(res.status).toBe(200);
      await expectPlainServiceMail(await nextVerificationMail(2));
      await expect
        .poll(async () => (await systemTransactions()).map((t) => t.status), { timeout: 15_000 })
        .toEqual(['sent', 'sent']);
    },
  );
});
