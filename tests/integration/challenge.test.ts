// Sign-in through the parent platform: we hand the browser a challenge, the platform sends it back
// with an HS256 assertion naming enterprise, customer and user, and we upsert them. The test plays
// the parent platform with jose.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, createTestApp, type TestApp } from '../helpers/app.ts';

const PARENT = 'https://parent.example';
const PARENT_SECRET = 'parent-platform-shared-secret-0123456789';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ PARENT_PLATFORM_URL: PARENT, PARENT_PLATFORM_SECRET: PARENT_SECRET });
});
afterAll(async () => app?.close());

let counter = 0;

/** Claims for a new enterprise/customer/user triple; `id` names them. */
function claimsFor(nonce: string, id = `${++counter}-${Date.now()}`) {
  return {
    nonce,
    enterprise: {
      id: `ent-${id}`,
      name: 'Parent Enterprise',
      header_colour: '#aa0000',
      logo: `${PARENT}/logo.png`,
      pmailer_url: PARENT,
      sms_enabled: 'yes',
    },
    customer: { id: `cust-${id}`, name: 'Parent Customer' },
    user: {
      id: `user-${id}`,
      email: `pat-${id}@parent.example`,
      name: 'Pat Parent',
      profile_picture: `${PARENT}/pat.png`,
      permissions: { customer_administrator: 'yes', sms_edit: true, domains_access: 'no', send_transactions: 'no' },
    },
  };
}

interface SignOptions {
  secret?: string;
  issuer?: string;
  audience?: string;
  issuedAt?: number;
  expiresAt?: number | string;
}

/** The parent platform's side: an HS256 assertion over `claims`. */
function sign(claims: object, opts: SignOptions = {}): Promise<string> {
  return new SignJWT(claims as Record<string, unknown>)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(opts.issuer ?? PARENT)
    .setAudience(opts.audience ?? ORIGIN)
    .setIssuedAt(opts.issuedAt)
    .setExpirationTime(opts.expiresAt ?? '2m')
    .sign(new TextEncoder().encode(opts.secret ?? PARENT_SECRET));
}

async function initiate(redirect: string | null = 'groups?page=2') {
  const res = await app.call('POST', '/v1/auth/initiate-challenge', {
    body: { installUrl: `${PARENT}/install/abc`, redirect },
  });
  expect(res.status).toBe(200);
  const cookieLine = res.headers.getSetCookie().find((l) => l.startsWith('transact_challenge='))!;
  const nonce = /transact_challenge=([^;]+)/.exec(cookieLine)![1];
  const { redirectUrl } = await res.json();
  return { nonce, cookieLine, redirectUrl: redirectUrl as string };
}

function callback(assertion: string | undefined, nonce: string | undefined) {
  const query = assertion === undefined ? '' : `?assertion=${encodeURIComponent(assertion)}`;
  return app.call('GET', `/v1/auth/callback${query}`, {
    cookie: nonce === undefined ? undefined : `transact_challenge=${nonce}`,
  });
}

function sessionCookieOf(res: Response): string | undefined {
  const line = res.headers.getSetCookie().find((l) => l.startsWith('transact_session='));
  return line ? line.split(';', 1)[0] : undefined;
}

async function verifyAuth(cookie: string) {
  return (await app.call('GET', '/v1/verify_auth', { cookie })).json();
}

async function usersWithExternalId(externalId: string) {
  return app.ctx.db.selectFrom('users').selectAll().where('external_id', '=', externalId).execute();
}

async function expectRefused(res: Response) {
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe('/unauthorized');
  expect(sessionCookieOf(res)).toBeUndefined();
}

describe('POST /v1/auth/initiate-challenge', () => {
  it(
    'answers a redirectUrl on the parent platform with the challenge and our callback, and sets the challenge ' +
      'cookie',
    async () => {
      const { nonce, cookieLine, redirectUrl } = await initiate();
      expect(nonce.length).toBeGreaterThanOrEqual(32);
      const url = new URL(redirectUrl);
      expect(url.origin).toBe(PARENT);
      expect(url.searchParams.get('challenge')).toBe(nonce);
      expect(url.searchParams.get('callback')).toBe(`${ORIGIN}/v1/auth/callback`);
      expect(cookieLine).toMatch(/; HttpOnly/i);
      expect(cookieLine).toMatch(/; SameSite=Lax/i);
      expect(cookieLine).toMatch(/; Path=\/v1\/auth/);
      expect(cookieLine).toMatch(/; Max-Age=600/);
    },
  );

  it('gives every challenge its own nonce', async () => {
    const a = await initiate();
    const b = await initiate();
    expect(a.nonce).not.toBe(b.nonce);
  });

  it.each([
    'https://evil.example/install',
    'https://parent.example.evil.com/install',
    'http://parent.example/install',
    'https://parent.example:8443/install',
  ])('answers 403 for the foreign installUrl %s and stores no challenge', async (installUrl) => {
    const before = await app.ctx.db.selectFrom('auth_challenges').selectAll().execute();
    const res = await app.call('POST', '/v1/auth/initiate-challenge', { body: { installUrl, redirect: null } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
    expect(res.headers.getSetCookie().some((l) => l.startsWith('transact_challenge='))).toBe(false);
    expect(await app.ctx.db.selectFrom('auth_challenges').selectAll().execute()).toEqual(before);
  });

  it('answers 400 when installUrl is not a URL or the redirect holds NUL', async () => {
    const notUrl = await app.call('POST', '/v1/auth/initiate-challenge', {
      body: { installUrl: 'parent dot example', redirect: null },
    });
    expect(notUrl.status).toBe(400);
    const nul = await app.call('POST', '/v1/auth/initiate-challenge', {
      body: { installUrl: PARENT, redirect: 'groups\u0000' },
    });
    expect(nul.status).toBe(400);
  });
});

describe('GET /v1/auth/callback', () => {
  it('signs in the user named by a valid assertion and sends them to /{redirect}', async () => {
    const { nonce } = await initiate('groups?page=2');
    const claims = claimsFor(nonce);
    const res = await callback(await sign(claims), nonce);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/groups?page=2');
    const clearedChallenge = res.headers.getSetCookie().find((l) => l.startsWith('transact_challenge='))!;
    expect(clearedChallenge).toMatch(/Max-Age=0/);
    const session = sessionCookieOf(res)!;
    expect(session).toBeDefined();
    expect(res.headers.getSetCookie().find((l) => l.startsWith('transact_session='))).toMatch(/; HttpOnly/i);

    const body = await verifyAuth(session);
    const [user] = await usersWithExternalId(claims.user.id);
    expect(body).toEqual({
      isAuthenticated: true,
      backendUrl: ORIGIN,
      enterprise: {
        enterprise_id: expect.any(Number),
        enterprise_name: 'Parent Enterprise',
        enterprise_header_colour: '#aa0000',
        enterprise_logo: `${PARENT}/logo.png`,
        enterprise_pmailer_url: PARENT,
        enterprise_sms_enabled: 'yes',
      },
      customer: { customer_id: expect.any(Number), customer_name: 'Parent Customer' },
      user: {
        user_id: user.id,
        user_name: 'Pat Parent',
        user_email: claims.user.email,
        user_profile_picture: `${PARENT}/pat.png`,
        user_can_super_administrator: 'no',
        user_can_customer_administrator: 'yes',
        user_can_domains_access: 'no',
        user_can_archive_report_access: 'no',
        user_can_enterprise_templates: 'no',
        user_can_sms_edit: 'yes',
        user_can_message_report_access: 'no',
        user_can_send_transactions: 'no',
      },
    });
    expect(user.password_hash).toBeNull();
  });

  it('lets the user send transactions when the assertion does not mention it', async () => {
    const { nonce } = await initiate(null);
    const claims = claimsFor(nonce);
    claims.user.permissions = {} as typeof claims.user.permissions;
    const res = await callback(await sign(claims), nonce);
    expect(res.headers.get('location')).toBe('/');
    const body = await verifyAuth(sessionCookieOf(res)!);
    expect(body.user.user_can_send_transactions).toBe('yes');
    expect(body.user.user_can_customer_administrator).toBe('no');
  });

  it('refuses a second use of the same assertion', async () => {
    const { nonce } = await initiate();
    const assertion = await sign(claimsFor(nonce));
    expect((await callback(assertion, nonce)).status).toBe(302);
    await expectRefused(await callback(assertion, nonce));
  });

  it.each<[string, SignOptions]>([
    ['a wrong secret', { secret: 'not-the-parent-platform-secret-at-all' }],
    ['a wrong audience', { audience: 'https://other-transact.example' }],
    ['a wrong issuer', { issuer: 'https://evil.example' }],
    [
      'an expired token',
      { issuedAt: Math.floor(Date.now() / 1000) - 600, expiresAt: Math.floor(Date.now() / 1000) - 300 },
    ],
    ['a token issued over 5 minutes ago', { issuedAt: Math.floor(Date.now() / 1000) - 360, expiresAt: '10m' }],
  ])('refuses an assertion with %s and creates no user', async (_label, opts) => {
    const { nonce } = await initiate();
    const claims = claimsFor(nonce);
    await expectRefused(await callback(await sign(claims, opts), nonce));
    expect(await usersWithExternalId(claims.user.id)).toEqual([]);
    // the challenge is still good for the genuine assertion
    const res = await callback(await sign(claims), nonce);
    expect(res.headers.get('location')).toBe('/groups?page=2');
  });

  it('refuses an assertion whose nonce is not the one in this browser’s cookie', async () => {
    const mine = await initiate();
    const theirs = await initiate();
    const claims = claimsFor(theirs.nonce);
    await expectRefused(await callback(await sign(claims), mine.nonce));
    await expectRefused(await callback(await sign(claims), undefined));
    expect(await usersWithExternalId(claims.user.id)).toEqual([]);
  });

  it('refuses a nonce that was never issued, even when cookie and assertion agree', async () => {
    const claims = claimsFor('a-nonce-we-never-issued-0123456789');
    await expectRefused(await callback(await sign(claims), 'a-nonce-we-never-issued-0123456789'));
    expect(await usersWithExternalId(claims.user.id)).toEqual([]);
  });

  it('refuses an expired challenge', async () => {
    const { nonce } = await initiate();
    await app.ctx.db
      .updateTable('auth_challenges')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .execute();
    const claims = claimsFor(nonce);
    await expectRefused(await callback(await sign(claims), nonce));
    expect(await usersWithExternalId(claims.user.id)).toEqual([]);
  });

  it('refuses an assertion that lacks required claims', async () => {
    const { nonce } = await initiate();
    const claims = claimsFor(nonce) as Partial<ReturnType<typeof claimsFor>>;
    delete claims.customer;
    await expectRefused(await callback(await sign(claims), nonce));
  });

  it('sends a request without an assertion to /unauthorized', async () => {
    const { nonce } = await initiate();
    await expectRefused(await callback(undefined, nonce));
    await expectRefused(await callback('', nonce));
  });

  it('never redirects off the site, whatever redirect the challenge carried', async () => {
    const { nonce } = await initiate('..//evil.example/phish');
    const res = await callback(await sign(claimsFor(nonce)), nonce);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
  });

  it('updates the same enterprise, customer and user on a repeat sign-in', async () => {
    const id = `repeat-${Date.now()}`;
    const first = await initiate();
    const firstClaims = claimsFor(first.nonce, id);
    const firstBody = await verifyAuth(sessionCookieOf(await callback(await sign(firstClaims), first.nonce))!);

    const second = await initiate();
    const changed = claimsFor(second.nonce, id);
    changed.enterprise.name = 'Renamed Enterprise';
    changed.enterprise.sms_enabled = 'no';
    changed.customer.name = 'Renamed Customer';
    changed.user.name = 'Pat Renamed';
    changed.user.permissions = { ...changed.user.permissions, customer_administrator: 'no', domains_access: 'yes' };
    const secondBody = await verifyAuth(sessionCookieOf(await callback(await sign(changed), second.nonce))!);

    expect(secondBody.user.user_id).toBe(firstBody.user.user_id);
    expect(secondBody.customer.customer_id).toBe(firstBody.customer.customer_id);
    expect(secondBody.enterprise.enterprise_id).toBe(firstBody.enterprise.enterprise_id);
    expect(secondBody.enterprise.enterprise_name).toBe('Renamed Enterprise');
    expect(secondBody.enterprise.enterprise_sms_enabled).toBe('no');
    expect(secondBody.customer.customer_name).toBe('Renamed Customer');
    expect(secondBody.user.user_name).toBe('Pat Renamed');
    expect(secondBody.user.user_can_customer_administrator).toBe('no');
    expect(secondBody.user.user_can_domains_access).toBe('yes');
    expect(await usersWithExternalId(firstClaims.user.id)).toHaveLength(1);
    const enterprises = await app.ctx.db
      .selectFrom('enterprises')
      .selectAll()
      .where('external_id', '=', firstClaims.enterprise.id)
      .execute();
    expect(enterprises).toHaveLength(1);
  });

  it('refuses an assertion whose email belongs to a different (password) account', async () => {
    const local = await app.createAccount();
    const { nonce } = await initiate();
    const claims = claimsFor(nonce);
    claims.user.email = local.email;
    await expectRefused(await callback(await sign(claims), nonce));
    expect(await usersWithExternalId(claims.user.id)).toEqual([]);
  });
});
