// Direct delivery to MX hosts, through the real pipeline: a DNS server started here
// serves MX, A and TXT records; MX hosts are SMTP servers on 127.0.0.2, 127.0.0.3, … on MX_PORT; an
// HTTPS server with a test CA serves MTA-STS policies. Every case goes through the API and the
// delivery worker, and reads the outcome back from the timeline, the database and the hosts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, type TestApp, sendAsClient } from '../helpers/app.ts';
import { freePort } from '../../scripts/lib/service-harness.mjs';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import {
  createTestCa,
  startMxHost,
  startPolicyServer,
  type MxHost,
  type PolicyServer,
  type TestCa,
} from '../helpers/mx-hosts.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { listSites } from '../../src/server/delivery/sites.ts';
import { eventView } from '../../src/lib/transaction-info-view.ts';
import type { TransactionEventWire } from '../../src/server/reports/transaction-events.service.ts';

let app: TestApp;
let dns: DnsTestServer;
let ca: TestCa;
let policy: PolicyServer;
let worker: DeliveryWorker;
let apiKey: string;
let cookie: string;
const hosts: MxHost[] = [];
let mxPort: number;

async function host(address: string, opts: Parameters<typeof startMxHost>[2] = {}): Promise<MxHost> {
  const h = await startMxHost(address, mxPort, opts);
  hosts.push(h);
  return h;
}

async function send(to: string[]): Promise<string[]> {
  const res = await sendAsClient(app, '/v1/mail', apiKey, {
    from: 'orders@shop.example',
    to,
    subject: 'Your order',
    text: 'Thanks',
  });
  expect(res.status, await res.clone().text()).toBe(202);
  return ((await res.json()) as { data: { trans_uuid: string }[] }).data.map((d) => d.trans_uuid);
}

async function timeline(uuid: string, as = cookie): Promise<TransactionEventWire[]> {
  const res = await app.call('GET', `/v1/transactions/${uuid}/events`, { cookie: as });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: TransactionEventWire[] }).data;
}

async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits for the transaction's event of `type` and returns it. */
const eventOf = (uuid: string, type: string, timeoutMs?: number, as = cookie) =>
  until(`${uuid} ${type}`, async () => (await timeline(uuid, as)).find((e) => e.type === type), timeoutMs);

beforeAll(async () => {
  dns = await startDnsServer();
  ca = await createTestCa();
  mxPort = await freePort('127.0.0.2');
  const stsPort = await freePort('127.0.0.20');
  const domains = ['enforce-plain.test', 'enforce-tls.test', 'testing.test'];
  policy = await startPolicyServer('127.0.0.20', stsPort, await ca.issue(domains.map((d) => `mta-sts.${d}`)));
  app = await createTestApp({
    DNS_SERVERS: dns.address,
    MX_PORT: String(mxPort),
    MTA_STS_PORT: String(stsPort),
    NODE_EXTRA_CA_CERTS: ca.file,
    SITE_PAUSE_SECONDS: '1',
    MX_TIMEOUT_SECONDS: '5',
    RETURN_PATH_DOMAIN: 'rp.transact.test',
  });
  const account = await app.createAccount();
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
  cookie = await app.signIn(account.email, account.password);
  worker = new DeliveryWorker(app.ctx);
  worker.start();
}, 240_000); // a fresh database, a test CA and certificates: slow on a busy machine

afterAll(async () => {
  await worker?.stop();
  await Promise.all(hosts.map((h) => h.close()));
  await policy?.close();
  await dns?.close();
  await app?.close();
});

describe('every MX in turn', () => {
  it('moves on from an MX that refuses to the next one in the same attempt, and records both', async () => {
    dns.set('backup.test', 'MX', ['10 mx1.backup.test', '20 mx2.backup.test']);
    dns.set('mx1.backup.test', 'A', ['127.0.0.2']); // nothing listens there: connection refused
    dns.set('mx2.backup.test', 'A', ['127.0.0.3']);
    const mx2 = await host('127.0.0.3', { tls: await ca.issue(['mx2.backup.test']) });
    const [uuid] = await send(['ann@backup.test']);
    const delivered = await eventOf(uuid, 'delivered');
    expect(mx2.messages.map((m) => m.to)).toEqual([['ann@backup.test']]);
    expect(delivered.data).toMatchObject({ attempt: 1, mx_host: 'mx2.backup.test', mx_address: '127.0.0.3' });
    expect(delivered.data.tried?.map((t) => [t.host, t.address])).toEqual([
      ['mx1.backup.test', '127.0.0.2'],
      ['mx2.backup.test', '127.0.0.3'],
    ]);
    expect(delivered.data.tried?.[0].reply).toMatch(/ECONNREFUSED|ECONNECTION/);
    // STARTTLS offered: taken (opportunistically, the certificate is not checked without MTA-STS)
    expect(delivered.data.tls_version).toMatch(/^TLSv1\.[23]$/);
    expect(mx2.messages[0].secure).toBe(true);
    const view = eventView(delivered);
    expect(view.details[0]).toMatch(/^Delivered to mx2\.backup\.test \(127\.0\.0\.3\) over TLS 1\.[23]$/);
    expect(view.details).toContainEqual(expect.stringMatching(/^Tried mx1\.backup\.test \(127\.0\.0\.2\): /));
  });

  it('shares the load between MX hosts of equal preference', async () => {
    dns.set('equal.test', 'MX', ['10 mxa.equal.test', '10 mxb.equal.test']);
    dns.set('mxa.equal.test', 'A', ['127.0.0.4']);
    dns.set('mxb.equal.test', 'A', ['127.0.0.5']);
    const a = await host('127.0.0.4');
    const b = await host('127.0.0.5');
    const uuids = await send(Array.from({ length: 24 }, (_, i) => `r${i}@equal.test`));
    await until('24 delivered', () => a.messages.length + b.messages.length === 24);
    expect(a.messages.length).toBeGreaterThan(0);
    expect(b.messages.length).toBeGreaterThan(0);
    expect((await eventOf(uuids[0], 'delivered')).data.mx_host).toMatch(/^mx[ab]\.equal\.test$/);
  });

  it("delivers to the domain's own address when it has no MX (implicit MX)", async () => {
    dns.set('implicit.test', 'A', ['127.0.0.6']);
    const own = await host('127.0.0.6');
    const [uuid] = await send(['cat@implicit.test']);
    const delivered = await eventOf(uuid, 'delivered');
    expect(own.messages).toHaveLength(1);
    expect(delivered.data).toMatchObject({ mx_host: 'implicit.test', mx_address: '127.0.0.6' });
  });

  it('fails a domain with a null MX for good', async () => {
    dns.set('nullmx.test', 'MX', ['0 .']);
    const [uuid] = await send(['nobody@nullmx.test']);
    const bounced = await eventOf(uuid, 'bounced');
    expect(bounced.data.reply).toMatch(/null MX/);
    // no address there can receive mail (RFC 7505): as bad an address as a 5.1.10
    expect(bounced.data).toMatchObject({ bounce_type: 'hard', category: 'invalid_recipient' });
  });

  it('gives a refusal at RCPT the verdict a DSN quoting it would get: only an unknown user is suppressed', async () => {
    dns.set('refuse.test', 'MX', ['10 mx.refuse.test']);
    dns.set('mx.refuse.test', 'A', ['127.0.0.12']);
    const mx = await host('127.0.0.12');
    mx.replies.set('blocked@refuse.test', [
      554,
      '5.7.1 Service unavailable; Client host [127.0.0.1] blocked using zen.spamhaus.org',
    ]);
    mx.replies.set('gone@refuse.test', [
      550,
      '5.1.1 <gone@refuse.test>: Recipient address rejected: User unknown in virtual mailbox table',
    ]);
    const [blocked, gone] = await send(['blocked@refuse.test', 'gone@refuse.test']);
    const policy = await eventOf(blocked, 'bounced');
    expect(policy.data).toMatchObject({ bounce_type: 'soft', category: 'policy_block', mx_host: 'mx.refuse.test' });
    expect(eventView(policy).details).toContain(
      'Cause: refused by the receiver’s policy (blocklist, reputation, not authorised)',
    );
    const unknown = await eventOf(gone, 'bounced');
    expect(unknown.data).toMatchObject({ bounce_type: 'hard', category: 'invalid_recipient' });
    const suppressed = await app.ctx.db
      .selectFrom('suppressions')
      .select('email')
      .where('email', 'in', ['blocked@refuse.test', 'gone@refuse.test'])
      .execute();
    expect(suppressed.map((s) => s.email)).toEqual(['gone@refuse.test']);
    expect(mx.messages).toHaveLength(0);
  });
});

describe('destination sites', () => {
  it(
    'halves and pauses a site that answers 421, lets other sites through meanwhile, and delivers everything once it ' +
      'recovers',
    async () => {
      dns.set('busy.test', 'MX', ['10 mx.busy.test']);
      dns.set('mx.busy.test', 'A', ['127.0.0.7']);
      dns.set('calm.test', 'MX', ['10 mx.calm.test']);
      dns.set('mx.calm.test', 'A', ['127.0.0.8']);
      const busy = await host('127.0.0.7');
      const calm = await host('127.0.0.8');
      busy.mode = '421';
      const busyIds = await send(Array.from({ length: 6 }, (_, i) => `b${i}@busy.test`));
      await until('busy site paused', async () =>
        (await listSites(app.ctx.db)).find((s) => s.site === 'mx.busy.test' && s.paused_until),
      );
      const calmIds = await send(Array.from({ length: 4 }, (_, i) => `c${i}@calm.test`));
      // the other site is not held up by the paused one
      await until('calm site delivered', () => calm.messages.length === 4);
      const row = (await listSites(app.ctx.db)).find((s) => s.site === 'mx.busy.test')!;
      // 10 halved; halved again when the 421s go on after the first (1 s) pause
      expect([5, 2, 1]).toContain(row.conn_limit);
      expect(row.last_reply).toMatch(/^421/);
      expect(busy.messages).toHaveLength(0);
      busy.mode = 'accept';
      await until('busy site delivered', () => busy.messages.length === 6, 30_000);
      // waiting for the site spent no retries: each message was delivered by its first counted attempt
      const rows = await until('busy site recorded', async () => {
        const r = await app.ctx.db
          .selectFrom('transactions')
          .select(['uuid', 'attempts', 'status'])
          .where('uuid', 'in', busyIds)
          .execute();
        return r.every((x) => x.status === 'sent') && r;
      });
      expect(Math.max(...rows.map((r) => r.attempts))).toBeLessThanOrEqual(2);
      for (const id of calmIds) expect((await eventOf(id, 'delivered')).data.mx_host).toBe('mx.calm.test');
      // deliveries after the pause raise the limit again, step by step
      await until('limit raised', async () => {
        const after = (await listSites(app.ctx.db)).find((s) => s.site === 'mx.busy.test')!;
        return after.conn_limit === null || after.conn_limit > row.conn_limit!;
      });
    },
  );
});

describe('MTA-STS', () => {
  beforeAll(() => {
    for (const [domain, mode] of [
      ['enforce-plain.test', 'enforce'],
      ['enforce-tls.test', 'enforce'],
      ['testing.test', 'testing'],
    ]) {
      dns.set(`_mta-sts.${domain}`, 'TXT', ['v=STSv1; id=20260101'] as string[]);
      dns.set(`mta-sts.${domain}`, 'A', ['127.0.0.20']);
      dns.set(domain, 'MX', [`10 mx.${domain}`]);
      policy.policies.set(`mta-sts.${domain}`, `version: STSv1\nmode: ${mode}\nmx: mx.${domain}\nmax_age: 86400\n`);
    }
    dns.set('mx.enforce-plain.test', 'A', ['127.0.0.9']);
    dns.set('mx.enforce-tls.test', 'A', ['127.0.0.10']);
    dns.set('mx.testing.test', 'A', ['127.0.0.11']);
  });

  it('enforce, and the MX offers no STARTTLS: deferred with the reason, never sent in plaintext', async () => {
    const plain = await host('127.0.0.9'); // no STARTTLS
    const [uuid] = await send(['dan@enforce-plain.test']);
    const deferred = await eventOf(uuid, 'deferred');
    expect(deferred.data.reply).toMatch(/MTA-STS enforce/);
    expect(deferred.data.mta_sts).toBe('enforce');
    expect(plain.messages).toHaveLength(0);
  });

  it('enforce, and the MX has a valid certificate for its name: delivered over TLS', async () => {
    const secure = await host('127.0.0.10', { tls: await ca.issue(['mx.enforce-tls.test']) });
    const [uuid] = await send(['eve@enforce-tls.test']);
    const delivered = await eventOf(uuid, 'delivered');
    expect(secure.messages).toHaveLength(1);
    expect(secure.messages[0].secure).toBe(true);
    expect(delivered.data).toMatchObject({ mta_sts: 'enforce', mx_host: 'mx.enforce-tls.test' });
    expect(delivered.data.tls_version).toMatch(/^TLSv1\.[23]$/);
    expect(delivered.data.tls_cipher).toBeTruthy();
  });

  it('testing: delivered even without TLS, and the failure reported', async () => {
    const plain = await host('127.0.0.11'); // no STARTTLS
    const [uuid] = await send(['fay@testing.test']);
    const delivered = await eventOf(uuid, 'delivered');
    expect(plain.messages).toHaveLength(1);
    expect(delivered.data).toMatchObject({ mta_sts: 'testing' });
    expect(delivered.data.mta_sts_failure).toMatch(/no STARTTLS/);
    expect(delivered.data.tls_version).toBeUndefined();
    expect(eventView(delivered).details).toContainEqual(
      expect.stringMatching(/MTA-STS policy: testing \(would refuse/),
    );
    const metrics = await (await app.api.request(`${ORIGIN}/metrics`)).text();
    expect(metrics).toMatch(/transact_mta_sts_testing_failures_total\S* [1-9]/);
  });
});

describe('TLS enforced by the sending domain (tls: enforced)', () => {
  let strictKey: string;
  let strictCookie: string;

  beforeAll(async () => {
    const account = await app.createAccount();
    await addDomain(app.ctx, account.customerId, 'strict.example', { verified: true, options: { tls: 'enforced' } });
    strictKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
    strictCookie = await app.signIn(account.email, account.password);
    dns.set('plain-rcpt.test', 'MX', ['10 mx.plain-rcpt.test']);
    dns.set('mx.plain-rcpt.test', 'A', ['127.0.0.14']);
    dns.set('tls-rcpt.test', 'MX', ['10 mx.tls-rcpt.test']);
    dns.set('mx.tls-rcpt.test', 'A', ['127.0.0.15']);
  });

  const sendStrict = async (to: string) => {
    const res = await sendAsClient(app, '/v1/mail', strictKey, {
      from: 'orders@strict.example',
      to,
      subject: 'Your statement',
      text: 'Attached',
    });
    expect(res.status, await res.clone().text()).toBe(202);
    return ((await res.json()) as { data: { trans_uuid: string }[] }).data[0].trans_uuid;
  };

  it('a receiver without STARTTLS: deferred with the reason, never sent in plaintext', async () => {
    const plain = await host('127.0.0.14'); // no STARTTLS, and no MTA-STS policy for the domain
    const uuid = await sendStrict('gil@plain-rcpt.test');
    const deferred = await eventOf(uuid, 'deferred', undefined, strictCookie);
    expect(deferred.data.reply).toMatch(
      /^TLS enforced by the sending domain: no verified TLS session with mx\.plain-rcpt\.test \(/,
    );
    expect(deferred.data.mta_sts ?? null).toBeNull();
    expect(plain.messages).toHaveLength(0);
    // another domain's mail to the same receiver goes as before, without TLS
    const [other] = await send(['hal@plain-rcpt.test']);
    await eventOf(other, 'delivered');
    expect(plain.messages.map((m) => m.to)).toEqual([['hal@plain-rcpt.test']]);
  });

  it('a receiver with a valid certificate for its name: delivered over TLS', async () => {
    const secure = await host('127.0.0.15', { tls: await ca.issue(['mx.tls-rcpt.test']) });
    const uuid = await sendStrict('ida@tls-rcpt.test');
    const delivered = await eventOf(uuid, 'delivered', undefined, strictCookie);
    expect(secure.messages).toHaveLength(1);
    expect(secure.messages[0].secure).toBe(true);
    expect(delivered.data.tls_version).toMatch(/^TLSv1\.[23]$/);
  });
});
