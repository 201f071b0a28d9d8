// Sending domains with the official `resend` SDK, unchanged, pointed at /resend over a real socket:
// create (the confirmation link goes to postmaster@ unless another address is named), list, get
// with the DNS records, verify against a local DNS server, remove, and the refusals the SDK reads.
// No delivery worker runs, so mail sent from a domain stays queued: its removal is refused.
import type { Resend } from 'resend';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { addDomain, dnsRecords } from '../../src/server/domains/domains.service.ts';
import { findDomain } from '../../src/server/domains/domains.repository.ts';

let started: ResendApp;
let app: TestApp;
let dns: DnsTestServer;
let baseUrl: string;
let apiKey: string;
let resend: Resend;
let other: Resend;
let customerId: number;
let otherCustomerId: number;

beforeAll(async () => {
  dns = await startDnsServer();
  started = await startResendApp({
    delivery: false,
    second: true,
    env: {
      DNS_SERVERS: dns.address,
      RETURN_PATH_DOMAIN: 'rp.transact.test',
      SYSTEM_FROM: 'Transact <no-reply@transact.test>',
    },
  });
  ({ app, resend, apiKey, baseUrl } = started);
  other = started.other!;
  customerId = started.account.customerId;
  otherCustomerId = started.second!.customerId;
}, 240_000);

afterAll(async () => {
  await started?.close();
  await dns?.close();
});

/** Where the confirmation link for `domain` was mailed: the queued system message's recipient. */
async function linkMailedTo(domain: string): Promise<string> {
  const row = await app.ctx.db
    .selectFrom('messages')
    .innerJoin('transactions', 'transactions.message_id', 'messages.id')
    .select('transactions.to_email')
    .where('messages.subject', '=', `Verify ${domain} for sending`)
    .orderBy('messages.id', 'desc')
    .executeTakeFirstOrThrow();
  return row.to_email;
}

const post = (path: string, body: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('domains with the resend SDK at /resend', () => {
  it('creates a domain unverified with its records and mails the confirmation link to postmaster@', async () => {
    const { data, error } = await resend.domains.create({ name: 'Shop.Example' });
    expect(error).toBeNull();
    expect(data).toMatchObject({
      object: 'domain',
      id: expect.stringMatching(/^\d+$/),
      name: 'shop.example',
      status: 'pending',
      region: 'us-east-1',
      capabilities: { sending: 'enabled', receiving: 'disabled' },
    });
    const stored = (await findDomain(app.ctx.db, Number(data!.id)))!;
    expect(stored.sending_verified).toBe(false);
    expect(data!.records).toEqual(
      dnsRecords(app.ctx, stored).map((r) => ({
        record: { spf: 'SPF', dkim: 'DKIM', dmarc: 'DMARC', return_path: 'ReturnPath', receiving: 'Receiving' }[
          r.purpose
        ],
        name: r.name,
        type: r.type,
        value: r.value,
        ttl: 'Auto',
        status: 'not_started',
      })),
    );
    expect(await linkMailedTo('shop.example')).toBe('postmaster@shop.example');
  });

  it('mails the link to the verification_email the call names', async () => {
    const res = await post('/domains', { name: 'named.example', verification_email: 'it@named.example' });
    expect(res.status).toBe(200);
    expect(await linkMailedTo('named.example')).toBe('it@named.example');
  });

  it('refuses an invalid name, a verification address elsewhere and a name already in the account', async () => {
    const invalid = await resend.domains.create({ name: 'not a domain' });
    expect(invalid.data).toBeNull();
    expect(invalid.error).toMatchObject({ statusCode: 400, name: 'validation_error' });
    const elsewhere = await post('/domains', { name: 'else.example', verification_email: 'me@gmail.example' });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.json()).toMatchObject({ name: 'validation_error', message: /address at else.example/ });
    const again = await resend.domains.create({ name: 'SHOP.example' });
    expect(again.error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: expect.stringMatching(/already added/),
    });
  });

  it('lists the account’s domains newest first and nothing of another account', async () => {
    await addDomain(app.ctx, otherCustomerId, 'theirs.example');
    const { data, error } = await resend.domains.list();
    expect(error).toBeNull();
    expect(data).toMatchObject({ object: 'list', has_more: false });
    expect(data!.data.map((d) => d.name)).toEqual(['named.example', 'shop.example']);
    expect(Object.keys(data!.data[0]).sort()).toEqual([
      'capabilities',
      'click_tracking',
      'created_at',
      'id',
      'name',
      'open_tracking',
      'region',
      'status',
      'tls',
    ]);
  });

  it('checks the DNS now on verify and answers each record’s status on get', async () => {
    const created = (await resend.domains.create({ name: 'dns.example' })).data!;
    const records = dnsRecords(app.ctx, (await findDomain(app.ctx.db, Number(created.id)))!);
    for (const r of records.filter((r) => r.purpose !== 'dmarc')) dns.set(r.name, r.type, [r.value]);
    dns.fail(`_dmarc.dns.example`);

    const verified = await resend.domains.verify(created.id);
    expect(verified.error).toBeNull();
    expect(verified.data).toEqual({ object: 'domain', id: created.id });
    const { data } = await resend.domains.get(created.id);
    expect(data).toMatchObject({ object: 'domain', id: created.id, name: 'dns.example', status: 'pending' });
    expect(Object.fromEntries(data!.records.map((r) => [r.record, r.status]))).toEqual({
      SPF: 'verified',
      DKIM: 'verified',
      DMARC: 'temporary_failure',
      ReturnPath: 'verified',
    });

    dns.set('_dmarc.dns.example', 'TXT', ['v=DMARC1; p=everything']);
    await resend.domains.verify(created.id);
    const after = (await resend.domains.get(created.id)).data!;
    // DMARC and ReturnPath are names of ours beside the SDK's SPF and DKIM
    expect(after.records.find((r) => (r.record as string) === 'DMARC')?.status).toBe('failed');
  });

  it('answers not_started without a link, pending while it is out, failed once expired, verified after', async () => {
    const quiet = await addDomain(app.ctx, customerId, 'quiet.example'); // as the admin CLI adds one
    expect((await resend.domains.get(String(quiet.id))).data?.status).toBe('not_started');
    const { data } = await resend.domains.create({ name: 'expiring.example' });
    expect(data?.status).toBe('pending');
    const expire = { verification_expires_at: new Date(Date.now() - 1000) };
    await app.ctx.db.updateTable('domains').set(expire).where('id', '=', Number(data!.id)).execute();
    expect((await resend.domains.get(data!.id)).data?.status).toBe('failed');
    await app.ctx.db
      .updateTable('domains')
      .set({ sending_verified: true })
      .where('id', '=', Number(data!.id))
      .execute();
    expect((await resend.domains.get(data!.id)).data?.status).toBe('verified');
  });

  it('answers 404 not_found for another account’s id, an unknown id and one that is not digits', async () => {
    const theirs = await addDomain(app.ctx, otherCustomerId, 'private.example');
    for (const id of [String(theirs.id), '999999999', 'abc']) {
      const notFound = { statusCode: 404, name: 'not_found' };
      expect((await resend.domains.get(id)).error, id).toMatchObject(notFound);
      expect((await resend.domains.verify(id)).error, id).toMatchObject(notFound);
      expect((await resend.domains.remove(id)).error, id).toMatchObject(notFound);
    }
    expect((await other.domains.get(String(theirs.id))).data?.name).toBe('private.example');
    expect(await findDomain(app.ctx.db, theirs.id)).toBeDefined();
  });

  it('removes a domain: gone from get and list', async () => {
    const { data } = await resend.domains.create({ name: 'gone.example' });
    const removed = await resend.domains.remove(data!.id);
    expect(removed.error).toBeNull();
    expect(removed.data).toEqual({ object: 'domain', id: data!.id, deleted: true });
    expect((await resend.domains.get(data!.id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await resend.domains.list()).data!.data.map((d) => d.name)).not.toContain('gone.example');
  });
});

describe('removing a domain with mail still waiting', () => {
  const from = (domain: string) => ({ from: `Shop <orders@${domain}>`, subject: 'Receipt', text: 'Thanks' });

  it('is refused while a message from it is queued, and nothing changes', async () => {
    const { data: created } = await resend.domains.create({ name: 'queued.example' });
    await app.ctx.db
      .updateTable('domains')
      .set({ sending_verified: true })
      .where('id', '=', Number(created!.id))
      .execute();
    const sent = await resend.emails.send({ ...from('queued.example'), to: ['ada@customer.example'] });
    expect(sent.error).toBeNull();

    const refused = await resend.domains.remove(created!.id);
    expect(refused.error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: expect.stringMatching(/still queued or scheduled/),
    });
    expect((await resend.domains.get(created!.id)).data?.status).toBe('verified');
  });

  it(
    'is refused while one is scheduled; once it is canceled the domain goes, its mail stays readable and new ' +
      'mail from it is refused',
    async () => {
      const { data: created } = await resend.domains.create({ name: 'later.example' });
      await app.ctx.db
        .updateTable('domains')
        .set({ sending_verified: true })
        .where('id', '=', Number(created!.id))
        .execute();
      const sent = await resend.emails.send({
        ...from('later.example'),
        to: ['bo@customer.example'],
        scheduledAt: 'in 1 hour',
      });
      expect(sent.error).toBeNull();
      expect((await resend.domains.remove(created!.id)).error).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
      });

      expect((await resend.emails.cancel(sent.data!.id)).error).toBeNull();
      expect((await resend.domains.remove(created!.id)).data).toEqual({
        object: 'domain',
        id: created!.id,
        deleted: true,
      });
      const kept = await resend.emails.get(sent.data!.id);
      expect(kept.data).toMatchObject({ from: 'Shop <orders@later.example>', last_event: 'canceled' });
      const after = await resend.emails.send({ ...from('later.example'), to: ['bo@customer.example'] });
      expect(after.error).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
        message: /not a verified sending domain/,
      });
    },
  );
});

describe.skipIf(!process.env.DATABASE_URL)('a domain removed while a send from it is being accepted', () => {
  it('refuses the send as from an unverified domain (422), not with a 500, and stores nothing', async () => {
    const { data: created } = await resend.domains.create({ name: 'racing.example' });
    await app.ctx.db
      .updateTable('domains')
      .set({ sending_verified: true })
      .where('id', '=', Number(created!.id))
      .execute();
    // another session holds the domain's row, as the removal does, so the send's insert waits on it
    const holder = new pg.Client({ connectionString: app.ctx.config.databaseUrl! });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from domains where id = $1 for update', [Number(created!.id)]);
      const sending = resend.emails.send({
        from: 'Shop <orders@racing.example>',
        to: ['race@customer.example'],
        subject: 'Receipt',
        text: 'Thanks',
      });
      await expect
        .poll(
          async () =>
            Number(
              (
                await holder.query(
                  `select count(*) as n from pg_stat_activity
                    where datname = current_database() and wait_event_type = 'Lock'`,
                )
              ).rows[0].n,
            ),
          { timeout: 30_000 },
        )
        .toBeGreaterThan(0);
      await holder.query('delete from domains where id = $1', [Number(created!.id)]);
      await holder.query('commit');
      const { data, error } = await sending;
      expect(data).toBeNull();
      expect(error).toMatchObject({ statusCode: 422, name: 'validation_error', message: /sending domain was removed/ });
    } finally {
      await holder.end();
    }
    const stored = await app.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('to_email', '=', 'race@customer.example')
      .execute();
    expect(stored).toEqual([]);
  });
});
