import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import {
  confirmVerificationLink,
  inspectVerificationLink,
} from '../../src/server/verification/verification.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ SYSTEM_FROM: 'Transact <no-reply@transact.test>' });
});
afterAll(async () => app?.close());

async function signedIn(permissions?: Parameters<TestApp['createAccount']>[0]) {
  const account = await app.createAccount(permissions);
  return { account, cookie: await app.signIn(account.email, account.password) };
}

const create = (cookie: string, body: unknown) => app.call('POST', '/v1/domains', { cookie, body });

/** The verification link mailed for a domain: read from the queued system message. */
async function mailedLink(domain: string): Promise<{ id: number; token: string; to: string; from: string }> {
  const row = await app.ctx.db
    .selectFrom('messages')
    .innerJoin('transactions', 'transactions.message_id', 'messages.id')
    .select(['messages.text', 'messages.from_email', 'transactions.to_email'])
    .where('messages.subject', '=', `Verify ${domain} for sending`)
    .orderBy('messages.id', 'desc')
    .executeTakeFirstOrThrow();
  const m = /\/verify-domain\/(\d+)\/([A-Za-z0-9_-]+)/.exec(row.text ?? '');
  if (!m) throw new Error(`no link in: ${row.text}`);
  return { id: Number(m[1]), token: m[2], to: row.to_email, from: row.from_email };
}

describe('POST /v1/domains', () => {
  it("creates the domain, answers 'Domain Created' and queues a verification mail from the system sender", async () => {
    const { account, cookie } = await signedIn();
    const res = await create(cookie, {
      domain_url: 'Shop.Example',
      domain_verification_email: 'postmaster@shop.example',
    });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.messages).toEqual(['Domain Created']);
    expect(body.domain).toMatchObject({
      domain_domain: 'shop.example',
      domain_sending_verified: 'no',
      domain_verification_email: 'postmaster@shop.example',
    });
    expect(body.domain.dns_records.map((r: { purpose: string }) => r.purpose)).toEqual([
      'spf',
      'dkim',
      'dmarc',
      'return_path',
    ]);

    const link = await mailedLink('shop.example');
    expect(link).toMatchObject({
      id: body.domain.domain_id,
      to: 'postmaster@shop.example',
      from: 'no-reply@transact.test',
    });
    // sent as the system customer: nothing in the customer's own totals
    const overview = await (await app.call('POST', '/v1/dashboard/overview', { cookie, body: {} })).json();
    expect(overview.overviewStats).toEqual({ total: 0 });
    const queued = await app.ctx.db
      .selectFrom('transactions')
      .innerJoin('customers', 'customers.id', 'transactions.customer_id')
      .select(['customers.is_system', 'transactions.status'])
      .where('transactions.to_email', '=', 'postmaster@shop.example')
      .executeTakeFirstOrThrow();
    expect(queued).toEqual({ is_system: true, status: 'queued' });
    // only a hash of the token is stored
    const stored = await app.ctx.db
      .selectFrom('domains')
      .selectAll()
      .where('id', '=', link.id)
      .executeTakeFirstOrThrow();
    expect(stored.verification_token_hash).not.toContain(link.token);
    expect(stored.customer_id).toBe(account.customerId);
  });

  const bad: [string, unknown, RegExp][] = [
    [
      'a name without a top-level part',
      { domain_url: 'localhost', domain_verification_email: 'a@localhost' },
      /^Please enter a valid domain name$/,
    ],
    [
      'a top-level part of 11 letters',
      { domain_url: 'shop.abcdefghijk', domain_verification_email: 'a@shop.abcdefghijk' },
      /^Please enter a valid domain name$/,
    ],
    [
      'a digit in the top-level part',
      { domain_url: 'shop.c0m', domain_verification_email: 'a@shop.c0m' },
      /^Please enter a valid domain name$/,
    ],
    [
      'spaces',
      { domain_url: 'my shop.example', domain_verification_email: 'a@my shop.example' },
      /^Please enter a valid domain name$/,
    ],
    [
      'a label over 63 characters',
      { domain_url: `${'a'.repeat(64)}.example`, domain_verification_email: `a@${'a'.repeat(64)}.example` },
      /at most 63 characters/,
    ],
    ['no local part', { domain_url: 'shop2.example', domain_verification_email: '@shop2.example' }, /before the @/],
    [
      'an address at another domain',
      { domain_url: 'shop2.example', domain_verification_email: 'me@gmail.example' },
      /must be an address at shop2\.example/,
    ],
    [
      'a quoted local part',
      { domain_url: 'shop2.example', domain_verification_email: '"a b"@shop2.example' },
      /cannot be the first part/,
    ],
    ['a missing field', { domain_url: 'shop2.example' }, /domain_verification_email/],
    [
      'an unknown field',
      { domain_url: 'shop2.example', domain_verification_email: 'a@shop2.example', verified: true },
      /verified/,
    ],
  ];
  for (const [what, body, message] of bad) {
    it(`refuses ${what} with a message and creates nothing`, async () => {
      const { account, cookie } = await signedIn();
      const res = await create(cookie, body);
      expect(res.status).toBe(400);
      const answer = await res.json();
      expect(answer.error.code).toBe('validation_failed');
      expect(answer.messages.join(', ')).toMatch(message);
      const count = await app.ctx.db
        .selectFrom('domains')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('customer_id', '=', account.customerId)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(0);
    });
  }

  it('refuses a domain the account already has, and one verified by another account', async () => {
    const { cookie } = await signedIn();
    expect(
      (await create(cookie, { domain_url: 'twice.example', domain_verification_email: 'a@twice.example' })).status,
    ).toBe(201);
    const again = await create(cookie, { domain_url: 'TWICE.example', domain_verification_email: 'a@twice.example' });
    expect(again.status).toBe(409);
    expect((await again.json()).messages).toEqual(['twice.example is already added to this account']);

    const other = await app.createAccount();
    await addDomain(app.ctx, other.customerId, 'taken.example', { verified: true });
    const taken = await create(cookie, { domain_url: 'taken.example', domain_verification_email: 'a@taken.example' });
    expect(taken.status).toBe(409);
    expect((await taken.json()).messages).toEqual(['taken.example is verified by another account']);
  });

  it('needs a session and the console headers', async () => {
    expect(
      (
        await app.call('POST', '/v1/domains', {
          body: { domain_url: 'x.example', domain_verification_email: 'a@x.example' },
        })
      ).status,
    ).toBe(401);
    const { cookie } = await signedIn();
    const res = await app.call('POST', '/v1/domains', {
      cookie,
      body: { domain_url: 'x.example', domain_verification_email: 'a@x.example' },
      headers: { Origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
  });
});

describe('the verification link', () => {
  it('GET changes nothing; confirming verifies once; a reused link is refused', async () => {
    const { cookie } = await signedIn();
    await create(cookie, { domain_url: 'confirm.example', domain_verification_email: 'it@confirm.example' });
    const link = await mailedLink('confirm.example');
    expect(await inspectVerificationLink(app.ctx, link.id, link.token)).toEqual({
      state: 'ready',
      domain: 'confirm.example',
    });
    let domains = (await (await app.call('GET', '/v1/domains', { cookie })).json()).domains;
    expect(domains[0].domain_sending_verified).toBe('no');

    expect(await confirmVerificationLink(app.ctx, link.id, link.token)).toEqual({
      state: 'verified',
      domain: 'confirm.example',
    });
    domains = (await (await app.call('GET', '/v1/domains', { cookie })).json()).domains;
    expect(domains[0].domain_sending_verified).toBe('yes');
    expect(await confirmVerificationLink(app.ctx, link.id, link.token)).toEqual({ state: 'invalid' });

    // asking for another verification mail of a verified domain is a documented 409, and mails nothing
    const mails = async () =>
      (
        await app.ctx.db
          .selectFrom('messages')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    const before = await mails();
    const again = await app.call('POST', `/v1/domains/${domains[0].domain_id}/verification`, { cookie, body: {} });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: { code: 'conflict', message: 'confirm.example is already verified' },
    });
    expect(await mails()).toEqual(before);
  });

  it('refuses a link for another domain, a tampered token, and an expired one', async () => {
    const { cookie } = await signedIn();
    await create(cookie, { domain_url: 'one.example', domain_verification_email: 'a@one.example' });
    await create(cookie, { domain_url: 'two.example', domain_verification_email: 'a@two.example' });
    const one = await mailedLink('one.example');
    const two = await mailedLink('two.example');
    expect(await confirmVerificationLink(app.ctx, two.id, one.token)).toEqual({ state: 'invalid' });
    const flipped = one.token.slice(0, -1) + (one.token.endsWith('A') ? 'B' : 'A');
    expect(await confirmVerificationLink(app.ctx, one.id, flipped)).toEqual({ state: 'invalid' });
    expect(await confirmVerificationLink(app.ctx, one.id, 'short')).toEqual({ state: 'invalid' });

    await app.ctx.db
      .updateTable('domains')
      .set({ verification_expires_at: sql<Date>`now() - interval '1 minute'` })
      .where('id', '=', one.id)
      .execute();
    expect(await confirmVerificationLink(app.ctx, one.id, one.token)).toEqual({
      state: 'expired',
      domain: 'one.example',
    });
    const row = await app.ctx.db
      .selectFrom('domains')
      .select('sending_verified')
      .where('id', '=', one.id)
      .executeTakeFirstOrThrow();
    expect(row.sending_verified).toBe(false);
  });

  it(
    'a new mail replaces the old link; a domain verified ' + 'meanwhile by another account cannot be confirmed',
    async () => {
      const { account, cookie } = await signedIn();
      const created = await (
        await create(cookie, { domain_url: 'again.example', domain_verification_email: 'a@again.example' })
      ).json();
      const first = await mailedLink('again.example');
      const resend = await app.call('POST', `/v1/domains/${created.domain.domain_id}/verification`, {
        cookie,
        body: { email: 'b@again.example' },
      });
      expect(resend.status).toBe(200);
      expect((await resend.json()).messages).toEqual(['Verification email sent to b@again.example']);
      const second = await mailedLink('again.example');
      expect(second.to).toBe('b@again.example');
      expect(await inspectVerificationLink(app.ctx, first.id, first.token)).toEqual({ state: 'invalid' });

      const rival = await app.createAccount();
      await addDomain(app.ctx, rival.customerId, 'again.example', { verified: true, trusted: true });
      expect(await confirmVerificationLink(app.ctx, second.id, second.token)).toEqual({
        state: 'taken',
        domain: 'again.example',
      });
      const mine = await app.ctx.db
        .selectFrom('domains')
        .select('sending_verified')
        .where('customer_id', '=', account.customerId)
        .executeTakeFirstOrThrow();
      expect(mine.sending_verified).toBe(false);
    },
  );
});

describe('GET /v1/domains/{id} and GET /v1/get-started', () => {
  it("answers the account's own domain; another account's id is 404", async () => {
    const { cookie } = await signedIn();
    const created = await (
      await create(cookie, { domain_url: 'mine.example', domain_verification_email: 'a@mine.example' })
    ).json();
    const id = created.domain.domain_id;
    const res = await app.call('GET', `/v1/domains/${id}`, { cookie });
    expect(res.status).toBe(200);
    expect((await res.json()).domain.domain_domain).toBe('mine.example');

    const stranger = await signedIn();
    for (const [method, path] of [
      ['GET', `/v1/domains/${id}`],
      ['POST', `/v1/domains/${id}/verification`],
      ['GET', '/v1/domains/abc'],
      ['GET', '/v1/domains/99999999'],
    ] as const) {
      const r = await app.call(method, path, { cookie: stranger.cookie, body: method === 'POST' ? {} : undefined });
      expect(r.status, `${method} ${path}`).toBe(404);
    }
  });

  it('answers domains, both credentials and isReseller', async () => {
    const { account, cookie } = await signedIn();
    await create(cookie, { domain_url: 'start.example', domain_verification_email: 'a@start.example' });
    const res = await app.call('GET', '/v1/get-started', { cookie });
    expect(res.status).toBe(200);
    const body = await res.json();
    const creds = await credentialsForConsole(app.ctx, account.customerId);
    expect(body).toMatchObject({
      apiCredentials: creds.apiCredentials,
      smtpCredentials: creds.smtpCredentials,
      isReseller: false,
    });
    expect(body.domains.map((d: { domain_domain: string }) => d.domain_domain)).toEqual(['start.example']);
    expect((await app.call('GET', '/v1/get-started')).status).toBe(401);
  });
});

describe('POST /v1/dashboard/overview', () => {
  it('answers the real number of transactions sent', async () => {
    const { account, cookie } = await signedIn();
    await addDomain(app.ctx, account.customerId, 'count.example', { verified: true });
    const { apiCredentials } = await credentialsForConsole(app.ctx, account.customerId);
    const res = await app.api.request('http://localhost:4321/v1/mail', {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiCredentials.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        from: 'a@count.example',
        to: ['x@r.example', 'y@r.example'],
        cc: 'z@r.example',
        subject: 'Hi',
        text: 'Hi',
      }),
    });
    expect(res.status).toBe(202);
    const overview = await (await app.call('POST', '/v1/dashboard/overview', { cookie, body: {} })).json();
    expect(overview.overviewStats.total).toBe(3);
  });
});

describe('users who may not send transactions (docs/console.md §6)', () => {
  it(
    'get 403 from the domain, getting-started and settings ' + "calls, which would show the account's secrets",
    async () => {
      const { account: owner, cookie: ownerCookie } = await signedIn();
      const created = await (
        await create(ownerCookie, { domain_url: 'viewer.example', domain_verification_email: 'a@viewer.example' })
      ).json();
      const viewer = await app.createAccount({ permissions: ['domains_access'] });
      await app.ctx.db
        .updateTable('users')
        .set({ customer_id: owner.customerId })
        .where('id', '=', viewer.userId)
        .execute();
      const cookie = await app.signIn(viewer.email, viewer.password);
      const id = created.domain.domain_id;
      const calls: [string, string, unknown?][] = [
        ['GET', '/v1/domains'],
        ['POST', '/v1/domains', { domain_url: 'v2.example', domain_verification_email: 'a@v2.example' }],
        ['GET', `/v1/domains/${id}`],
        ['POST', `/v1/domains/${id}/verification`, {}],
        ['POST', `/v1/domains/${id}/check`, {}],
        ['GET', '/v1/get-started'],
        ['GET', '/v1/ui-settings'],
        ['GET', '/v1/webhooks'],
      ];
      for (const [method, path, body] of calls) {
        const res = await app.call(method, path, { cookie, body });
        expect(res.status, `${method} ${path}`).toBe(403);
        expect((await res.json()).error.code).toBe('forbidden');
      }
      // the overview stays open to them: their home is the dashboard
      expect((await app.call('POST', '/v1/dashboard/overview', { cookie, body: {} })).status).toBe(200);
    },
  );
});
