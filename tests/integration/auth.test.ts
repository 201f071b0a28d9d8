// Password sign-in, the session answer, sessions (hashed, sliding expiry) and sign-out, against a
// real migrated database (docs/console.md §3 and §7).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setPassword } from '../../src/server/accounts/accounts.service.ts';
import { sha256 } from '../../src/server/core/crypto.ts';
import { ORIGIN, createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => app?.close());

const TTL_SECONDS = 604800;

/** The transact_session Set-Cookie line of a response, if any. */
function sessionSetCookie(res: Response): string | undefined {
  return res.headers.getSetCookie().find((line) => line.startsWith('transact_session='));
}

function tokenOf(cookie: string): string {
  return /transact_session=([^;]*)/.exec(cookie)![1];
}

function login(email: string, password: string, headers?: Record<string, string>, target: TestApp = app) {
  return target.call('POST', '/v1/auth/login', { body: { email, password }, headers });
}

async function verifyAuth(cookie?: string, target: TestApp = app) {
  const res = await target.call('GET', '/v1/verify_auth', { cookie });
  expect(res.status).toBe(200);
  return { res, body: await res.json() };
}

async function sessionsOf(userId: number) {
  return app.ctx.db.selectFrom('sessions').selectAll().where('user_id', '=', userId).execute();
}

const SIGNED_OUT = { isAuthenticated: false, enterprise: null, customer: null, user: null, backendUrl: ORIGIN };

describe('POST /v1/auth/login', () => {
  it('signs in with the right password and sets an HttpOnly, SameSite=Lax cookie for the whole site', async () => {
    const account = await app.createAccount();
    const res = await login(account.email, account.password);
    expect(res.status).toBe(200);
    const cookie = sessionSetCookie(res)!;
    expect(cookie).toMatch(/^transact_session=[\w-]{40,};/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\/(;|$)/);
    expect(cookie).toMatch(new RegExp(`; Max-Age=${TTL_SECONDS}(;|$)`));
    expect(cookie).not.toMatch(/; Secure/i); // PUBLIC_URL is http here
    const body = await res.json();
    expect(body.isAuthenticated).toBe(true);
    expect(body.user.user_email).toBe(account.email);
    expect((await sessionsOf(account.userId)).length).toBe(1);
  });

  it('accepts the email in any case and with surrounding spaces', async () => {
    const account = await app.createAccount();
    const res = await login(`  ${account.email.toUpperCase()} `, account.password);
    expect(res.status).toBe(200);
    expect((await res.json()).user.user_id).toBe(account.userId);
  });

  it('answers the same 401 for an unknown email and a wrong password, and starts no session', async () => {
    const account = await app.createAccount();
    const wrong = await login(account.email, 'not-the-password');
    const unknown = await login('nobody@example.com', 'whatever-it-is');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const body = await wrong.json();
    expect(body).toEqual({ error: { code: 'invalid_credentials', message: expect.any(String) } });
    expect(await unknown.json()).toEqual(body);
    expect(sessionSetCookie(wrong)).toBeUndefined();
    expect(await sessionsOf(account.userId)).toEqual([]);
  });

  it('refuses a user who has no password (parent-platform accounts)', async () => {
    const account = await app.createAccount();
    await app.ctx.db.updateTable('users').set({ password_hash: null }).where('id', '=', account.userId).execute();
    const res = await login(account.email, account.password);
    expect(res.status).toBe(401);
  });

  it('answers 429 with Retry-After on the 6th try after 5 failures, even with the right password', async () => {
    const account = await app.createAccount();
    for (let i = 0; i < 5; i++) expect((await login(account.email, `wrong-password-${i}`)).status).toBe(401);
    const res = await login(account.email, account.password);
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(880);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(await res.json()).toEqual({
      error: { code: 'too_many_requests', message: expect.stringMatching(/minute/) },
    });
    expect(sessionSetCookie(res)).toBeUndefined();
    expect(await sessionsOf(account.userId)).toEqual([]);
  });

  it('lets no more than 5 tries through when they arrive together', async () => {
    const account = await app.createAccount();
    const statuses = await Promise.all(
      Array.from({ length: 12 }, (_, i) => login(account.email, `wrong-password-${i}`).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s !== 401).every((s) => s === 429)).toBe(true);
  });

  it('counts failures per address whatever the case of the email', async () => {
    const account = await app.createAccount();
    for (let i = 0; i < 5; i++) await login(i % 2 ? account.email.toUpperCase() : account.email, 'wrong-password');
    expect((await login(account.email, account.password)).status).toBe(429);
  });

  it('throttles one address without blocking another', async () => {
    const blocked = await app.createAccount();
    const other = await app.createAccount();
    for (let i = 0; i < 5; i++) await login(blocked.email, 'wrong-password');
    expect((await login(blocked.email, blocked.password)).status).toBe(429);
    expect((await login(other.email, other.password)).status).toBe(200);
  });

  it('lets the user in again once the failures leave the 15-minute window', async () => {
    const account = await app.createAccount();
    for (let i = 0; i < 5; i++) await login(account.email, 'wrong-password');
    expect((await login(account.email, account.password)).status).toBe(429);
    const key = `email:${account.email.toLowerCase()}`;
    await sql`update login_failures set at = ${new Date(Date.now() - 901_000)} where key = ${key}`.execute(app.ctx.db);
    expect((await login(account.email, account.password)).status).toBe(200);
  });

  it('clears the failure count of the email on success', async () => {
    const account = await app.createAccount();
    for (let i = 0; i < 4; i++) expect((await login(account.email, 'wrong-password')).status).toBe(401);
    expect((await login(account.email, account.password)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await login(account.email, 'wrong-password')).status).toBe(401);
    expect((await login(account.email, account.password)).status).toBe(200);
  });
});

describe('POST /v1/auth/login behind a TLS proxy (PUBLIC_URL https, TRUST_PROXY)', () => {
  let proxied: TestApp;
  beforeAll(async () => {
    proxied = await createTestApp({ PUBLIC_URL: 'https://transact.example', TRUST_PROXY: 'true' });
  });
  afterAll(async () => proxied?.close());

  it('marks the session cookie Secure when PUBLIC_URL is https', async () => {
    const account = await proxied.createAccount();
    const res = await login(account.email, account.password, {}, proxied);
    expect(res.status).toBe(200);
    expect(sessionSetCookie(res)).toMatch(/; Secure/i);
  });

  it('follows X-Forwarded-Proto from a trusted proxy', async () => {
    const account = await proxied.createAccount();
    const res = await login(account.email, account.password, { 'X-Forwarded-Proto': 'http' }, proxied);
    expect(res.status).toBe(200);
    expect(sessionSetCookie(res)).not.toMatch(/; Secure/i);
  });

  it('throttles one client address (X-Forwarded-For) across emails', async () => {
    const account = await proxied.createAccount();
    const attacker = { 'X-Forwarded-For': '203.0.113.7, 10.0.0.1' };
    for (let i = 0; i < 5; i++)
      expect((await login(`someone${i}@example.com`, 'guess-guess', attacker, proxied)).status).toBe(401);
    const res = await login(account.email, account.password, attacker, proxied);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // the same user from another address is not blocked
    expect((await login(account.email, account.password, { 'X-Forwarded-For': '198.51.100.2' }, proxied)).status).toBe(
      200,
    );
  });
});

describe('GET /v1/verify_auth', () => {
  it('answers exactly the signed-out shape without a cookie, with an unknown cookie and with garbage', async () => {
    for (const cookie of [undefined, 'transact_session=unknown-token', `transact_session=${'x'.repeat(300)}`]) {
      const { res, body } = await verifyAuth(cookie);
      expect(body).toEqual(SIGNED_OUT);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(sessionSetCookie(res)).toBeUndefined();
    }
  });

  it('answers the signed-in shape of docs/console.md §3 with yes/no flags', async () => {
    const account = await app.createAccount({
      name: 'Ann Example',
      customerName: 'Ann Co',
      permissions: ['domains_access', 'sms_edit', 'send_transactions'],
      enterprise: {
        name: 'Example Enterprise',
        header_colour: '#112233',
        logo_url: 'https://cdn.example/logo.png',
        parent_url: 'https://parent.example',
        sms_enabled: true,
      },
    });
    await app.ctx.db
      .updateTable('users')
      .set({ picture_url: 'https://cdn.example/ann.png' })
      .where('id', '=', account.userId)
      .execute();
    const { body } = await verifyAuth(await app.signIn(account.email, account.password));
    expect(body).toEqual({
      isAuthenticated: true,
      backendUrl: ORIGIN,
      enterprise: {
        enterprise_id: account.enterpriseId,
        enterprise_name: 'Example Enterprise',
        enterprise_header_colour: '#112233',
        enterprise_logo: 'https://cdn.example/logo.png',
        enterprise_pmailer_url: 'https://parent.example',
        enterprise_sms_enabled: 'yes',
      },
      customer: { customer_id: account.customerId, customer_name: 'Ann Co' },
      user: {
        user_id: account.userId,
        user_name: 'Ann Example',
        user_email: account.email,
        user_profile_picture: 'https://cdn.example/ann.png',
        user_can_super_administrator: 'no',
        user_can_customer_administrator: 'no',
        user_can_domains_access: 'yes',
        user_can_archive_report_access: 'no',
        user_can_enterprise_templates: 'no',
        user_can_sms_edit: 'yes',
        user_can_message_report_access: 'no',
        user_can_send_transactions: 'yes',
      },
    });
  });

  it('sends enterprise_sms_enabled no and user_can_send_transactions no when they are off', async () => {
    const account = await app.createAccount({ permissions: [], enterprise: { sms_enabled: false } });
    const { body } = await verifyAuth(await app.signIn(account.email, account.password));
    expect(body.enterprise.enterprise_sms_enabled).toBe('no');
    expect(body.enterprise.enterprise_pmailer_url).toBeNull();
    expect(body.user.user_can_send_transactions).toBe('no');
  });

  it('stores only the sha256 of the cookie token', async () => {
    const account = await app.createAccount();
    const cookie = await app.signIn(account.email, account.password);
    const token = tokenOf(cookie);
    const rows = await sessionsOf(account.userId);
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(sha256(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    const { rows: found } = await sql<{
      n: number;
    }>`select count(*)::int as n from sessions where token_hash = ${token}`.execute(app.ctx.db);
    expect(found[0].n).toBe(0);
  });

  it('treats an expired session as signed out', async () => {
    const account = await app.createAccount();
    const cookie = await app.signIn(account.email, account.password);
    expect((await verifyAuth(cookie)).body.isAuthenticated).toBe(true);
    await app.ctx.db
      .updateTable('sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('user_id', '=', account.userId)
      .execute();
    const { res, body } = await verifyAuth(cookie);
    expect(body).toEqual(SIGNED_OUT);
    expect(sessionSetCookie(res)).toBeUndefined();
  });

  it('does not re-send the cookie for a fresh session', async () => {
    const account = await app.createAccount();
    const cookie = await app.signIn(account.email, account.password);
    const { res } = await verifyAuth(cookie);
    expect(sessionSetCookie(res)).toBeUndefined();
  });

  it('extends a session well into its lifetime and sends the cookie again (sliding expiry)', async () => {
    const account = await app.createAccount();
    const cookie = await app.signIn(account.email, account.password);
    const halfway = new Date(Date.now() + (TTL_SECONDS / 2) * 1000);
    await app.ctx.db
      .updateTable('sessions')
      .set({ expires_at: halfway })
      .where('user_id', '=', account.userId)
      .execute();
    const { res, body } = await verifyAuth(cookie);
    expect(body.isAuthenticated).toBe(true);
    const resent = sessionSetCookie(res)!;
    expect(resent).toBeDefined();
    expect(tokenOf(resent)).toBe(tokenOf(cookie));
    expect(resent).toMatch(new RegExp(`; Max-Age=${TTL_SECONDS}(;|$)`));
    expect(resent).toMatch(/; HttpOnly/i);
    const [row] = await sessionsOf(account.userId);
    const expiresAt = new Date(row.expires_at).getTime();
    expect(expiresAt).toBeGreaterThan(Date.now() + (TTL_SECONDS - 60) * 1000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + TTL_SECONDS * 1000);
  });
});

describe('POST /v1/logout', () => {
  it('ends the session, clears the cookie and answers the enterprise parent URL', async () => {
    const account = await app.createAccount({ enterprise: { parent_url: 'https://parent.example/app' } });
    const cookie = await app.signIn(account.email, account.password);
    const other = await app.createAccount();
    const otherCookie = await app.signIn(other.email, other.password);

    const res = await app.call('POST', '/v1/logout', { cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ redirect: 'https://parent.example/app' });
    const cleared = res.headers.getSetCookie().at(-1)!;
    expect(cleared).toMatch(/^transact_session=;/);
    expect(cleared).toMatch(/Max-Age=0/);
    expect(await sessionsOf(account.userId)).toEqual([]);
    expect((await verifyAuth(cookie)).body).toEqual(SIGNED_OUT);
    // nobody else is signed out
    expect((await verifyAuth(otherCookie)).body.isAuthenticated).toBe(true);
  });

  it('answers /login when the enterprise has no parent platform', async () => {
    const account = await app.createAccount();
    const cookie = await app.signIn(account.email, account.password);
    const res = await app.call('POST', '/v1/logout', { cookie });
    expect(await res.json()).toEqual({ redirect: '/login' });
    expect(await sessionsOf(account.userId)).toEqual([]);
  });

  it('answers /login when already signed out', async () => {
    const res = await app.call('POST', '/v1/logout');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ redirect: '/login' });
  });
});

describe('setPassword (admin CLI: user password)', () => {
  it("ends the user's sessions and only the new password signs in", async () => {
    const account = await app.createAccount();
    const first = await app.signIn(account.email, account.password);
    const second = await app.signIn(account.email, account.password);
    const other = await app.createAccount();
    const otherCookie = await app.signIn(other.email, other.password);

    await setPassword(app.ctx, account.email, 'a-brand-new-password');

    expect((await verifyAuth(first)).body).toEqual(SIGNED_OUT);
    expect((await verifyAuth(second)).body).toEqual(SIGNED_OUT);
    expect(await sessionsOf(account.userId)).toEqual([]);
    expect((await verifyAuth(otherCookie)).body.isAuthenticated).toBe(true);
    expect((await login(account.email, account.password)).status).toBe(401);
    expect((await login(account.email, 'a-brand-new-password')).status).toBe(200);
  });

  it('refuses a password shorter than 10 characters and keeps the sessions', async () => {
    const account = await app.createAccount();
    const cookie = await app.signIn(account.email, account.password);
    await expect(setPassword(app.ctx, account.email, 'short')).rejects.toMatchObject({ code: 'validation_failed' });
    expect((await verifyAuth(cookie)).body.isAuthenticated).toBe(true);
  });
});
