// DNS checks of sending domains against a local authoritative DNS server: the records a customer is
// told to publish (dnsRecords) must check out, and the usual publishing mistakes must not.
import { generateKeyPairSync } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import type { Domain } from '../../src/server/db/schema.ts';
import { findDomain, insertDomain } from '../../src/server/domains/domains.repository.ts';
import { addDomain, dnsRecords, type DnsRecord } from '../../src/server/domains/domains.service.ts';
import { refreshDueDomains, runDnsCheck, startDnsRefresher } from '../../src/server/domains/dns-check.service.ts';

const RETURN_PATH = 'mail.transact.test';

let dns: DnsTestServer;
let app: TestApp;
let customerId: number;
let domain: Domain;
let records: DnsRecord[];

const record = (purpose: DnsRecord['purpose']) => records.find((r) => r.purpose === purpose)!;

/** Publishes exactly the records dnsRecords asks for. */
function publishAll(): void {
  for (const r of records) dns.set(r.name, r.type, [r.value]);
}

beforeAll(async () => {
  dns = await startDnsServer();
  app = await createTestApp({ DNS_SERVERS: dns.address, RETURN_PATH_DOMAIN: RETURN_PATH });
  ({ customerId } = await app.createAccount());
  domain = await addDomain(app.ctx, customerId, 'example.test');
  records = dnsRecords(app.ctx, domain);
});

afterAll(async () => {
  await app?.close();
  await dns?.close();
});

beforeEach(() => {
  for (const r of records) dns.remove(r.name, r.type);
});

describe('runDnsCheck', () => {
  it('finds nothing when nothing is published', async () => {
    const results = await runDnsCheck(app.ctx, domain.id);
    for (const purpose of ['spf', 'dkim', 'dmarc', 'return_path'] as const) {
      expect(results[purpose]).toEqual({
        ok: false,
        found: null,
        expected: record(purpose).value,
        detail: 'No record found',
      });
    }
  });

  it('passes every check for exactly the records we ask for, and stores the results', async () => {
    publishAll();
    const before = new Date(Date.now() - 1000);
    const results = await runDnsCheck(app.ctx, domain.id);
    expect(results).toEqual({
      spf: { ok: true, found: record('spf').value, expected: record('spf').value },
      dkim: { ok: true, found: record('dkim').value, expected: record('dkim').value },
      dmarc: { ok: true, found: record('dmarc').value, expected: record('dmarc').value, detail: 'Policy: p=none' },
      return_path: { ok: true, found: RETURN_PATH, expected: RETURN_PATH },
    });
    const row = await findDomain(app.ctx.db, domain.id);
    expect(row!.dns_results).toEqual(results);
    expect(row!.dns_checked_at!.getTime()).toBeGreaterThan(before.getTime());
  });

  it('rejects a DKIM record with another key', async () => {
    publishAll();
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const otherKey = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
    dns.set(record('dkim').name, 'TXT', [otherKey]);
    const results = await runDnsCheck(app.ctx, domain.id);
    expect(results.dkim).toMatchObject({
      ok: false,
      found: otherKey,
      detail: "The published key (p=) is not this domain's DKIM key",
    });
    expect(results.spf.ok && results.dmarc.ok && results.return_path.ok).toBe(true);
  });

  it('rejects two SPF records (RFC 7208 §4.5 permerror)', async () => {
    publishAll();
    dns.set(domain.domain, 'TXT', [
      record('spf').value,
      'v=spf1 include:_spf.google.com ~all',
      'google-site-verification=abc',
    ]);
    const { spf } = await runDnsCheck(app.ctx, domain.id);
    expect(spf.ok).toBe(false);
    expect(spf.detail).toContain('2 SPF records found');
  });

  it('accepts a DKIM key split over several strings of one TXT record', async () => {
    publishAll();
    const value = record('dkim').value;
    dns.set(record('dkim').name, 'TXT', [[value.slice(0, 40), value.slice(40, 250), value.slice(250)]]);
    const { dkim } = await runDnsCheck(app.ctx, domain.id);
    expect(dkim).toEqual({ ok: true, found: value, expected: value });
  });

  it('accepts the return-path CNAME written with a trailing dot and in capitals', async () => {
    publishAll();
    dns.set(record('return_path').name, 'CNAME', [`${RETURN_PATH.toUpperCase()}.`]);
    const { return_path } = await runDnsCheck(app.ctx, domain.id);
    expect(return_path.ok).toBe(true);
  });

  it('rejects a return-path CNAME to somewhere else', async () => {
    publishAll();
    dns.set(record('return_path').name, 'CNAME', ['bounces.elsewhere.test']);
    const { return_path } = await runDnsCheck(app.ctx, domain.id);
    expect(return_path).toMatchObject({ ok: false, found: 'bounces.elsewhere.test' });
  });

  it('reports a missing DMARC record', async () => {
    publishAll();
    dns.remove(record('dmarc').name, 'TXT');
    const results = await runDnsCheck(app.ctx, domain.id);
    expect(results.dmarc).toMatchObject({ ok: false, found: null, detail: 'No record found' });
    expect(results.spf.ok && results.dkim.ok && results.return_path.ok).toBe(true);
  });

  it('says the lookup failed on SERVFAIL instead of throwing', async () => {
    publishAll();
    dns.fail(record('dkim').name);
    const results = await runDnsCheck(app.ctx, domain.id);
    expect(results.dkim).toMatchObject({ ok: false, found: null });
    expect(results.dkim.detail).toContain('lookup failed (ESERVFAIL)');
    expect(results.spf.ok).toBe(true);
  });

  it('answers not_found for an unknown domain', async () => {
    await expect(runDnsCheck(app.ctx, 987654)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('DNS check refresher', () => {
  /** A domain without key generation (the refresher never signs), last checked `minutesAgo`. */
  async function domainCheckedAgo(name: string, minutesAgo: number | null): Promise<Domain> {
    const row = await insertDomain(app.ctx.db, {
      customer_id: customerId,
      domain: name,
      sending_verified: false,
      dkim_selector: 'tx',
      dkim_private_key_sealed: 'unused',
      dkim_public_key: 'MIIBunused',
    });
    if (minutesAgo !== null) {
      await app.ctx.db
        .updateTable('domains')
        .set({ dns_checked_at: sql`now() - make_interval(mins => ${minutesAgo})` })
        .where('id', '=', row.id)
        .execute();
    }
    return (await findDomain(app.ctx.db, row.id))!;
  }

  it('checks due and never-checked domains and leaves fresh ones alone', async () => {
    const due = await domainCheckedAgo('due.test', 120);
    const never = await domainCheckedAgo('never.test', null);
    const fresh = await domainCheckedAgo('fresh.test', 5);
    dns.set('due.test', 'TXT', [`v=spf1 include:_spf.${RETURN_PATH} -all`]);

    const checked = await refreshDueDomains(app.ctx);
    expect(checked).toEqual(expect.arrayContaining([due.id, never.id]));
    expect(checked).not.toContain(fresh.id);
    expect((await findDomain(app.ctx.db, due.id))!.dns_results!.spf.ok).toBe(true);
    expect((await findDomain(app.ctx.db, never.id))!.dns_results!.spf.detail).toBe('No record found');
    const freshAfter = (await findDomain(app.ctx.db, fresh.id))!;
    expect(freshAfter.dns_results).toBeNull();
    expect(freshAfter.dns_checked_at).toEqual(fresh.dns_checked_at);

    expect(await refreshDueDomains(app.ctx)).toEqual([]);
  });

  it('never gives one domain to two refreshers at once', async () => {
    await app.ctx.db.updateTable('domains').set({ dns_checked_at: sql`now()` }).execute(); // only ours are due
    const due = await Promise.all(Array.from({ length: 30 }, (_, i) => domainCheckedAgo(`busy${i}.test`, null)));
    const [a, b] = await Promise.all([refreshDueDomains(app.ctx), refreshDueDomains(app.ctx)]);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    expect([...a, ...b].sort((x, y) => x - y)).toEqual(due.map((d) => d.id).sort((x, y) => x - y));
  });

  it('runs in the background until stopped', async () => {
    const due = await domainCheckedAgo('background.test', 90);
    const stop = startDnsRefresher(app.ctx);
    await stop(); // the first round starts at once; stop waits for it
    expect((await findDomain(app.ctx.db, due.id))!.dns_results).not.toBeNull();
  });

  it('does nothing when DNS_CHECK_INTERVAL_MINUTES is 0', async () => {
    const due = await domainCheckedAgo('disabled.test', null);
    const stop = startDnsRefresher({ ...app.ctx, config: { ...app.ctx.config, dnsCheckIntervalMinutes: 0 } });
    await stop();
    expect((await findDomain(app.ctx.db, due.id))!.dns_checked_at).toBeNull();
    await refreshDueDomains(app.ctx); // leave no due domain behind
  });
});

describe('POST /v1/domains/{id}/check', () => {
  it(
    "checks the signed-in customer's domain on demand and answers " +
      'its records with their results; another account gets 404',
    async () => {
      const owner = await app.createAccount();
      const cookie = await app.signIn(owner.email, owner.password);
      const own = await addDomain(app.ctx, owner.customerId, 'route.example.test');
      const ownRecords = dnsRecords(app.ctx, own);
      for (const r of ownRecords.filter((x) => x.purpose !== 'dmarc')) dns.set(r.name, r.type, [r.value]);

      const res = await app.call('POST', `/v1/domains/${own.id}/check`, { cookie, body: {} });
      expect(res.status).toBe(200);
      const { domain: wire } = await res.json();
      expect(wire.dns_checked_timestamp).not.toBeNull();
      const ok = Object.fromEntries(
        wire.dns_records.map((r: { purpose: string; check: { ok: boolean } }) => [r.purpose, r.check.ok]),
      );
      expect(ok).toEqual({ spf: true, dkim: true, dmarc: false, return_path: true });

      const stranger = await app.createAccount();
      const strangerCookie = await app.signIn(stranger.email, stranger.password);
      expect((await app.call('POST', `/v1/domains/${own.id}/check`, { cookie: strangerCookie, body: {} })).status).toBe(
        404,
      );
      expect((await app.call('POST', `/v1/domains/${own.id}/check`, { body: {} })).status).toBe(401);
    },
  );
});
