// MTA-STS policy caching (RFC 8461 §3.3 and §5.1) against a DNS server and an HTTPS policy
// server started here: a policy is fetched once and used for its max_age; a new TXT id fetches it
// again; a failed fetch, or a failed TXT lookup (SERVFAIL), keeps the cached policy — blocking DNS or
// the policy host must not turn enforcement off; a TXT record that is gone drops the policy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MtaSts } from '../../src/server/delivery/mta-sts.ts';
import { createResolver } from '../../src/server/core/resolver.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { freePort } from '../../scripts/lib/service-harness.mjs';
import { createTestCa, startPolicyServer, type PolicyServer } from '../helpers/mx-hosts.ts';

const DOMAIN = 'cache.test';
const HOST = `mta-sts.${DOMAIN}`;
const policyText = (mode: string, maxAge = 86_400) =>
  `version: STSv1\nmode: ${mode}\nmx: mx.${DOMAIN}\nmax_age: ${maxAge}\n`;

let dns: DnsTestServer;
let server: PolicyServer;
let sts: MtaSts;

beforeAll(async () => {
  dns = await startDnsServer();
  const ca = await createTestCa();
  server = await startPolicyServer('127.0.0.21', await freePort('127.0.0.21'), await ca.issue([HOST]));
  dns.set(HOST, 'A', ['127.0.0.21']);
  // TXT answers are not cached here (0 ms), so each call sees the record as it is now
  sts = new MtaSts(createResolver({ dnsServers: [dns.address] }), [ca.cert], server.port, 0);
}, 120_000);
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

const fetches = () => server.fetches.get(HOST) ?? 0;

describe('MTA-STS policy cache', () => {
  it('fetches once, keeps the policy while the TXT id stays, and fetches again when it changes', async () => {
    dns.set(`_mta-sts.${DOMAIN}`, 'TXT', ['v=STSv1; id=1']);
    server.policies.set(HOST, policyText('enforce'));
    expect((await sts.policyFor(DOMAIN))?.mode).toBe('enforce');
    expect(fetches()).toBe(1);
    server.policies.set(HOST, policyText('testing')); // changed on the server, same id
    expect((await sts.policyFor(DOMAIN))?.mode).toBe('enforce');
    expect(fetches()).toBe(1);
    dns.set(`_mta-sts.${DOMAIN}`, 'TXT', ['v=STSv1; id=2']);
    expect((await sts.policyFor(DOMAIN))?.mode).toBe('testing');
    expect(fetches()).toBe(2);
  });

  it('keeps the cached policy when a new fetch fails and when the TXT lookup fails', async () => {
    server.policies.set(HOST, policyText('enforce'));
    dns.set(`_mta-sts.${DOMAIN}`, 'TXT', ['v=STSv1; id=3']);
    expect((await sts.policyFor(DOMAIN))?.mode).toBe('enforce');
    server.policies.delete(HOST); // 404 from now on
    dns.set(`_mta-sts.${DOMAIN}`, 'TXT', ['v=STSv1; id=4']);
    expect((await sts.policyFor(DOMAIN))?.mode).toBe('enforce');
    dns.fail(`_mta-sts.${DOMAIN}`); // SERVFAIL
    expect((await sts.policyFor(DOMAIN))?.mode).toBe('enforce');
  });

  it('drops the policy once the TXT record is gone', async () => {
    dns.remove(`_mta-sts.${DOMAIN}`, 'TXT');
    expect(await sts.policyFor(DOMAIN)).toBeNull();
  });

  it('uses a policy with max_age 0 once and fetches it again next time', async () => {
    server.policies.set(HOST, policyText('testing', 0));
    dns.set(`_mta-sts.${DOMAIN}`, 'TXT', ['v=STSv1; id=5']);
    const before = fetches();
    expect((await sts.policyFor(DOMAIN))?.mode).toBe('testing');
    expect((await sts.policyFor(DOMAIN))?.mode).toBe('testing');
    expect(fetches()).toBe(before + 2);
  });
});
