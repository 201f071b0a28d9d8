// Named API keys (docs/architecture.md §7 "API keys") with the official `resend` SDK over a real
// socket: create, list in cursor pages, update and remove; a sending_access key sends only From its
// domain and is refused (`restricted_api_key`) everywhere else; a deleted key is refused at once
// over HTTP and SMTP; the last use is recorded; the table holds only the token's SHA-256.
import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, sendAsClient, type TestAccount, type TestApp } from '../helpers/app.ts';
import { listenOnSocket, type SocketServer } from '../helpers/socket-server.ts';
import { openDialog, plainAuth } from '../helpers/smtp-dialog.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { startSubmissionServer, type SubmissionServer } from '../../src/server/smtp/submission.ts';
import { grantForApiKey } from '../../src/server/credentials/api-keys.service.ts';
import { clearLookupCaches } from '../../src/server/core/lookup-cache.ts';
import { createContext } from '../../src/server/create-context.ts';
import { listenForChanges } from '../../src/server/delivery/listen.ts';

let app: TestApp;
let server: SocketServer;
let smtp: SubmissionServer;
let account: TestAccount;
let other: TestAccount;
let resend: Resend;
let baseUrl: string;
let shopDomainId: number;
let otherAccountDomainId: number;

beforeAll(async () => {
  app = await createTestApp({ HOST: '127.0.0.1' });
  account = await app.createAccount();
  other = await app.createAccount();
  shopDomainId = (await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true })).id;
  await addDomain(app.ctx, account.customerId, 'news.example', { verified: true });
  otherAccountDomainId = (await addDomain(app.ctx, other.customerId, 'elsewhere.example', { verified: true })).id;
  const accountKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
  server = await listenOnSocket(app);
  baseUrl = `${server.origin}/resend`;
  resend = new Resend(accountKey, { baseUrl });
  smtp = await startSubmissionServer(app.ctx, { port: 0, host: '127.0.0.1' });
}, 240_000);

afterAll(async () => {
  await smtp?.close(0);
  await server?.close();
  await app?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const message = (from: string) => ({ from, to: ['ada@customer.example'], subject: 'Hello', text: 'Hello' });

async function createKey(options: Parameters<Resend['apiKeys']['create']>[0]) {
  const { data, error } = await resend.apiKeys.create(options);
  expect(error).toBeNull();
  return data!;
}

const smtpClient = (pass: string, user = 'apikey') =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    auth: { user, pass },
    tls: { rejectUnauthorized: false },
  });

describe('named API keys with the resend SDK', () => {
  it('creates a key, answers its token once, lists it without the token, and removes it', async () => {
    const created = await createKey({ name: 'Deploys' });
    expect(created.id).toMatch(UUID);
    expect(created.token).toMatch(/^tsn_[A-Za-z0-9_-]{43}$/);

    const listed = await resend.apiKeys.list();
    expect(listed.error).toBeNull();
    expect(listed.data).toMatchObject({ object: 'list', has_more: false });
    expect(listed.data!.data.find((k) => k.id === created.id)).toEqual({
      id: created.id,
      name: 'Deploys',
      permission: 'full_access',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      last_used_at: null,
    });
    expect(JSON.stringify(listed.data)).not.toContain(created.token);

    const removed = await resend.apiKeys.remove(created.id);
    expect(removed).toMatchObject({ data: { object: 'api_key', id: created.id, deleted: true }, error: null });
    expect((await resend.apiKeys.list()).data!.data.map((k) => k.id)).not.toContain(created.id);
    const again = await resend.apiKeys.remove(created.id);
    expect(again.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('stores only the SHA-256 of a token and its first characters, never the token', async () => {
    const { id, token } = await createKey({ name: 'Hashed' });
    const row = await app.ctx.db
      .selectFrom('named_api_keys')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(token.startsWith(row.token_prefix)).toBe(true);
    expect(row.token_prefix.length).toBeLessThan(12);
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('refuses another account’s domain or key id (404), and a domain on a full_access key', async () => {
    const foreign = await resend.apiKeys.create({
      name: 'Foreign',
      permission: 'sending_access',
      domain_id: String(otherAccountDomainId),
    });
    expect(foreign.error).toMatchObject({ statusCode: 404, name: 'not_found' });
    const full = await resend.apiKeys.create({ name: 'Full', domain_id: String(shopDomainId) });
    expect(full.error).toMatchObject({ statusCode: 400, name: 'validation_error' });
    const blank = await resend.apiKeys.create({ name: '  ' });
    expect(blank.error).toMatchObject({ statusCode: 400, name: 'validation_error' });

    const otherKey = (await credentialsForConsole(app.ctx, other.customerId)).apiCredentials.apiKey;
    const theirs = new Resend(otherKey, { baseUrl });
    const { id } = await createKey({ name: 'Mine' });
    expect((await theirs.apiKeys.remove(id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await theirs.apiKeys.list()).data!.data).toEqual([]);
    expect((await resend.apiKeys.remove('not-a-uuid')).error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('lets a full_access key do what the account key does, managing keys too', async () => {
    const { token } = await createKey({ name: 'Full', permission: 'full_access' });
    const full = new Resend(token, { baseUrl });
    expect((await full.emails.send(message('orders@news.example'))).error).toBeNull();
    expect((await full.emails.list()).error).toBeNull();
    const made = await full.apiKeys.create({ name: 'Made by a key' });
    expect(made.error).toBeNull();
    expect((await full.apiKeys.remove(made.data!.id)).error).toBeNull();
  });

  it('lets a sending_access key send only From its domain and refuses it on every other call', async () => {
    const { token } = await createKey({ name: 'Shop', permission: 'sending_access', domain_id: String(shopDomainId) });
    const limited = new Resend(token, { baseUrl });
    const sent = await limited.emails.send(message('Shop <orders@shop.example>'));
    expect(sent.error).toBeNull();
    expect(sent.data!.id).toMatch(UUID);
    expect((await limited.batch.send([message('orders@shop.example')])).error).toBeNull();

    const restricted = { statusCode: 403, name: 'restricted_api_key' };
    expect((await limited.emails.send(message('orders@news.example'))).error).toMatchObject(restricted);
    expect((await limited.emails.list()).error).toMatchObject(restricted);
    expect((await limited.emails.get(sent.data!.id)).error).toMatchObject(restricted);
    expect((await limited.apiKeys.list()).error).toMatchObject(restricted);
    expect((await limited.apiKeys.create({ name: 'Escalate' })).error).toMatchObject(restricted);

    // our own send call and a call that takes the key or a session answer 403 forbidden
    const ours = await sendAsClient(app, '/v1/mail', token, message('orders@shop.example'));
    expect(ours.status).toBe(202);
    const elsewhere = await sendAsClient(app, '/v1/mail', token, message('orders@news.example'));
    expect(elsewhere.status).toBe(403);
    expect(await elsewhere.json()).toMatchObject({ error: { code: 'forbidden' } });
    const links = await app.call('GET', '/v1/tracked-attachments/groups', {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(links.status).toBe(403);

    // without a domain it sends from any verified domain of the account
    const anyDomain = new Resend((await createKey({ name: 'Any', permission: 'sending_access' })).token, { baseUrl });
    expect((await anyDomain.emails.send(message('orders@news.example'))).error).toBeNull();
    expect((await anyDomain.emails.list()).error).toMatchObject(restricted);
  });

  it('changes a key’s name, permission and domain with apiKeys.update, in force at once', async () => {
    const { id, token } = await createKey({ name: 'Deploys' });
    const client = new Resend(token, { baseUrl });
    expect((await client.emails.list()).error).toBeNull();
    const listedKey = async () => (await resend.apiKeys.list({ limit: 100 })).data!.data.find((k) => k.id === id);
    const row = () =>
      app.ctx.db.selectFrom('named_api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    const renamed = await resend.apiKeys.update(id, { name: 'Deploys (CI)' });
    expect(renamed).toEqual({ data: { object: 'api_key', id }, error: null, headers: expect.anything() });
    expect(await listedKey()).toMatchObject({ name: 'Deploys (CI)', permission: 'full_access' });

    // the SDK types only `name`, and sends whatever the caller gives
    const limit = { permission: 'sending_access', domain_id: String(shopDomainId) } as unknown as { name: string };
    expect((await resend.apiKeys.update(id.toUpperCase(), limit)).error).toBeNull();
    expect(await listedKey()).toMatchObject({ name: 'Deploys (CI)', permission: 'sending_access' });
    expect(Number((await row()).domain_id)).toBe(shopDomainId);
    const restricted = { statusCode: 403, name: 'restricted_api_key' };
    expect((await client.emails.list()).error).toMatchObject(restricted);
    expect((await client.emails.send(message('orders@news.example'))).error).toMatchObject(restricted);
    expect((await client.emails.send(message('orders@shop.example'))).error).toBeNull();
    expect((await client.apiKeys.update(id, { name: 'Escalate' })).error).toMatchObject(restricted);

    const full = { permission: 'full_access' } as unknown as { name: string };
    expect((await resend.apiKeys.update(id, full)).error).toBeNull();
    expect((await row()).domain_id).toBeNull(); // a full_access key has no domain
    expect((await client.emails.list()).error).toBeNull();
    expect((await client.emails.send(message('orders@news.example'))).error).toBeNull();
  });

  it('refuses an update that names nothing, a domain on a full_access key, and ids not of this account', async () => {
    const { id } = await createKey({ name: 'Kept' });
    const invalid = { statusCode: 400, name: 'validation_error' };
    expect((await resend.apiKeys.update(id, {} as { name: string })).error).toMatchObject(invalid);
    expect((await resend.apiKeys.update(id, { name: ' ' })).error).toMatchObject(invalid);
    const domainOnFull = { domain_id: String(shopDomainId) } as unknown as { name: string };
    expect((await resend.apiKeys.update(id, domainOnFull)).error).toMatchObject(invalid);
    const foreignDomain = {
      permission: 'sending_access',
      domain_id: String(otherAccountDomainId),
    } as unknown as { name: string };
    expect((await resend.apiKeys.update(id, foreignDomain)).error).toMatchObject({ statusCode: 404 });

    const notFound = { statusCode: 404, name: 'not_found' };
    const otherKey = (await credentialsForConsole(app.ctx, other.customerId)).apiCredentials.apiKey;
    const theirs = new Resend(otherKey, { baseUrl });
    expect((await theirs.apiKeys.update(id, { name: 'Taken' })).error).toMatchObject(notFound);
    for (const bad of ['not-a-uuid', 'x'.repeat(3000), "1' or '1'='1", '-1'])
      expect((await resend.apiKeys.update(encodeURIComponent(bad), { name: 'x' })).error).toMatchObject(notFound);
    const kept = await app.ctx.db
      .selectFrom('named_api_keys')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(kept).toMatchObject({ name: 'Kept', permission: 'full_access', domain_id: null });
  });

  it('lists keys newest first in cursor pages: limit, after, before and has_more', async () => {
    const own = await app.createAccount();
    const ownKey = (await credentialsForConsole(app.ctx, own.customerId)).apiCredentials.apiKey;
    const client = new Resend(ownKey, { baseUrl });
    for (const n of [1, 2, 3, 4, 5]) expect((await client.apiKeys.create({ name: `Key ${n}` })).error).toBeNull();
    const all = (await client.apiKeys.list()).data!;
    expect(all.has_more).toBe(false);
    const ids = all.data.map((k) => k.id);
    expect(all.data.map((k) => k.name).sort()).toEqual(['Key 1', 'Key 2', 'Key 3', 'Key 4', 'Key 5']);

    const first = await client.apiKeys.list({ limit: 2 });
    expect(first.data).toMatchObject({ object: 'list', has_more: true });
    expect(first.data!.data.map((k) => k.id)).toEqual(ids.slice(0, 2));
    const second = await client.apiKeys.list({ limit: 2, after: ids[1] });
    expect(second.data).toMatchObject({ has_more: true });
    expect(second.data!.data.map((k) => k.id)).toEqual(ids.slice(2, 4));
    const last = await client.apiKeys.list({ limit: 2, after: ids[3] });
    expect(last.data).toMatchObject({ has_more: false });
    expect(last.data!.data.map((k) => k.id)).toEqual([ids[4]]);
    const back = await client.apiKeys.list({ limit: 2, before: ids[4] });
    expect(back.data).toMatchObject({ has_more: true });
    expect(back.data!.data.map((k) => k.id)).toEqual(ids.slice(2, 4));
    const top = await client.apiKeys.list({ limit: 2, before: ids[2] });
    expect(top.data).toMatchObject({ has_more: false });
    expect(top.data!.data.map((k) => k.id)).toEqual(ids.slice(0, 2));

    const invalid = { statusCode: 400, name: 'validation_error' };
    expect((await client.apiKeys.list({ after: 'zzz' })).error).toMatchObject(invalid);
    expect((await client.apiKeys.list({ before: '1' })).error).toMatchObject(invalid);
    expect((await client.apiKeys.list({ limit: 101 })).error).toMatchObject(invalid);
    // another account's key is no cursor here
    const foreign = (await resend.apiKeys.list()).data!.data[0].id;
    expect((await client.apiKeys.list({ after: foreign })).error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('records the last use (written at most once a minute per key)', async () => {
    const { id, token } = await createKey({ name: 'Used' });
    const lastUsed = async () =>
      (await resend.apiKeys.list({ limit: 100 })).data!.data.find((k) => k.id === id)!.last_used_at;
    expect(await lastUsed()).toBeNull();
    const before = Date.now();
    expect((await new Resend(token, { baseUrl }).emails.list()).error).toBeNull();
    const first = await lastUsed();
    expect(first).not.toBeNull();
    expect(Date.parse(first!)).toBeGreaterThanOrEqual(before - 1000);
    expect((await new Resend(token, { baseUrl }).emails.list()).error).toBeNull();
    expect(await lastUsed()).toBe(first);
  });

  it('refuses a deleted key at once over HTTP, though it was just used', async () => {
    const { id, token } = await createKey({ name: 'Short-lived' });
    const client = new Resend(token, { baseUrl });
    expect((await client.emails.send(message('orders@shop.example'))).error).toBeNull();
    expect((await resend.apiKeys.remove(id)).error).toBeNull();
    expect((await client.emails.send(message('orders@shop.example'))).error).toMatchObject({
      statusCode: 401,
      name: 'invalid_api_key',
    });
    expect((await sendAsClient(app, '/v1/mail', token, message('orders@shop.example'))).status).toBe(401);
  });
});

describe('named API keys over SMTP', () => {
  it('log in with any username and send; a sending_access key only From its domain', async () => {
    const full = await createKey({ name: 'SMTP' });
    const info = await smtpClient(full.token).sendMail(message('orders@news.example'));
    expect(info.response).toMatch(/^250 .*Queued as/);
    expect((await smtpClient(full.token, 'any-name').sendMail(message('orders@shop.example'))).response).toMatch(
      /^250 /,
    );

    const limited = await createKey({
      name: 'SMTP shop',
      permission: 'sending_access',
      domain_id: String(shopDomainId),
    });
    expect((await smtpClient(limited.token).sendMail(message('orders@shop.example'))).response).toMatch(/^250 /);
    await expect(smtpClient(limited.token).sendMail(message('orders@news.example'))).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/may only send from shop\.example/),
    });
  });

  it('refuse a deleted key at once: at the next MAIL of an open session, and at AUTH', async () => {
    const { id, token } = await createKey({ name: 'SMTP short-lived' });
    const d = await openDialog(smtp.port);
    await d.command('EHLO client.test');
    expect(await d.command(`AUTH PLAIN ${plainAuth('apikey', token)}`)).toMatch(/^235/);
    expect(await d.command('MAIL FROM:<orders@shop.example>')).toMatch(/^250/);
    expect(await d.command('RSET')).toMatch(/^250/);

    expect((await resend.apiKeys.remove(id)).error).toBeNull();
    expect(await d.command('MAIL FROM:<orders@shop.example>')).toMatch(/^530 5\.7\.8/);
    d.end();
    await expect(smtpClient(token).sendMail(message('orders@shop.example'))).rejects.toMatchObject({
      code: 'EAUTH',
      responseCode: 535,
    });
  });
});

describe.skipIf(!process.env.DATABASE_URL)('named API keys in several processes on one PostgreSQL database', () => {
  it('another process refuses a deleted key at once when it listens, and within the 5 s cache bound if not', {
    timeout: 60_000,
  }, async () => {
    // two more processes' contexts on the same database (caches are per config object): one listening
    // on transact_changes as main.ts does, one that missed the notification (its cache expires on its own)
    const [listening, deaf] = await Promise.all([
      createContext({ ...app.ctx.config }),
      createContext({ ...app.ctx.config }),
    ]);
    const quiet = pino({ level: 'silent' });
    const unlisten = listenForChanges(app.ctx.config.databaseUrl!, quiet, {
      queued: () => {},
      changed: () => clearLookupCaches(listening.ctx),
    });
    try {
      const { id, token } = await createKey({ name: 'Shared' });
      for (const handle of [listening, deaf])
        expect(await grantForApiKey(handle.ctx, token)).toMatchObject({ customerId: account.customerId });
      expect((await resend.apiKeys.remove(id)).error).toBeNull();
      const deletedAt = Date.now();
      expect(await grantForApiKey(deaf.ctx, token)).not.toBeNull(); // its cached grant, for a few seconds more
      await expect.poll(() => grantForApiKey(listening.ctx, token), { timeout: 2_000, interval: 20 }).toBeNull();
      await expect.poll(() => grantForApiKey(deaf.ctx, token), { timeout: 6_000, interval: 100 }).toBeNull();
      expect(Date.now() - deletedAt).toBeLessThan(6_000);
    } finally {
      await unlisten();
      await Promise.all([listening.close(), deaf.close()]);
    }
  });
});
