// CSRF protection of console calls that change state: they must carry `Request-Type: ui` and, when
// the browser names one, our Origin. A refused call changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, createTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let account: TestAccount;
beforeAll(async () => {
  app = await createTestApp();
  account = await app.createAccount();
});
afterAll(async () => app?.close());

/** A request with exactly these headers (the helper's `call` adds the CSRF headers by default). */
function send(method: string, path: string, headers: Record<string, string>, body?: unknown, base = ORIGIN) {
  return app.api.request(`${base}${path}`, {
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function expectCsrfRefusal(res: Response) {
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({ error: { code: 'csrf_failed', message: expect.any(String) } });
}

async function signedIn(cookie: string): Promise<boolean> {
  const res = await app.call('GET', '/v1/verify_auth', { cookie });
  return (await res.json()).isAuthenticated;
}

async function countSessions(): Promise<number> {
  const row = await app.ctx.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('POST /v1/logout', () => {
  it('refuses a call without Request-Type: ui and the session keeps working', async () => {
    const cookie = await app.signIn(account.email, account.password);
    await expectCsrfRefusal(await send('POST', '/v1/logout', { Cookie: cookie, Origin: ORIGIN }));
    await expectCsrfRefusal(await send('POST', '/v1/logout', { Cookie: cookie }));
    await expectCsrfRefusal(
      await send('POST', '/v1/logout', { Cookie: cookie, Origin: ORIGIN, 'Request-Type': 'api' }),
    );
    expect(await signedIn(cookie)).toBe(true);
  });

  it.each(['https://evil.example', 'http://localhost:4321.evil.example', 'http://localhost:9999', 'null'])(
    'refuses Origin %s and the session keeps working',
    async (origin) => {
      const cookie = await app.signIn(account.email, account.password);
      await expectCsrfRefusal(
        await send('POST', '/v1/logout', { Cookie: cookie, Origin: origin, 'Request-Type': 'ui' }),
      );
      expect(await signedIn(cookie)).toBe(true);
    },
  );

  it('refuses a cross-site request that names no Origin but says so in Sec-Fetch-Site', async () => {
    const cookie = await app.signIn(account.email, account.password);
    await expectCsrfRefusal(
      await send('POST', '/v1/logout', { Cookie: cookie, 'Request-Type': 'ui', 'Sec-Fetch-Site': 'cross-site' }),
    );
    expect(await signedIn(cookie)).toBe(true);
  });

  it('accepts Request-Type: ui from our own origin, or with no Origin from the same site', async () => {
    const first = await app.signIn(account.email, account.password);
    const ok = await send('POST', '/v1/logout', { Cookie: first, Origin: ORIGIN, 'Request-Type': 'ui' });
    expect(ok.status).toBe(200);
    expect(await signedIn(first)).toBe(false);

    const second = await app.signIn(account.email, account.password);
    const sameSite = await send('POST', '/v1/logout', {
      Cookie: second,
      'Request-Type': 'ui',
      'Sec-Fetch-Site': 'same-origin',
    });
    expect(sameSite.status).toBe(200);
    expect(await signedIn(second)).toBe(false);
  });

  it('accepts the PUBLIC_URL origin when the request reaches us under another host name (reverse proxy)', async () => {
    const cookie = await app.signIn(account.email, account.password);
    const res = await send(
      'POST',
      '/v1/logout',
      { Cookie: cookie, Origin: ORIGIN, 'Request-Type': 'ui' },
      undefined,
      'http://127.0.0.1:4321',
    );
    expect(res.status).toBe(200);
    expect(await signedIn(cookie)).toBe(false);
  });
});

describe('POST /v1/auth/login', () => {
  it('refuses a sign-in without Request-Type: ui, even with the right password, and starts no session', async () => {
    const before = await countSessions();
    const res = await send(
      'POST',
      '/v1/auth/login',
      { Origin: ORIGIN },
      { email: account.email, password: account.password },
    );
    await expectCsrfRefusal(res);
    expect(res.headers.getSetCookie()).toEqual([]);
    expect(await countSessions()).toBe(before);
  });

  it('refuses a sign-in posted from another site', async () => {
    const before = await countSessions();
    const res = await send(
      'POST',
      '/v1/auth/login',
      { Origin: 'https://evil.example', 'Request-Type': 'ui' },
      { email: account.email, password: account.password },
    );
    await expectCsrfRefusal(res);
    expect(await countSessions()).toBe(before);
  });

  it('does not count a refused call as a failed sign-in', async () => {
    const throttled = await app.createAccount();
    for (let i = 0; i < 6; i++) {
      await expectCsrfRefusal(
        await send(
          'POST',
          '/v1/auth/login',
          { Origin: ORIGIN },
          { email: throttled.email, password: 'wrong-password' },
        ),
      );
    }
    expect(
      (await app.call('POST', '/v1/auth/login', { body: { email: throttled.email, password: throttled.password } }))
        .status,
    ).toBe(200);
  });
});

describe('POST /v1/auth/initiate-challenge', () => {
  it('refuses a call without Request-Type: ui', async () => {
    await expectCsrfRefusal(
      await send(
        'POST',
        '/v1/auth/initiate-challenge',
        { Origin: ORIGIN },
        { installUrl: 'https://parent.example', redirect: null },
      ),
    );
  });
});

describe('GET /v1/verify_auth', () => {
  it('needs no CSRF header (reads change nothing)', async () => {
    const cookie = await app.signIn(account.email, account.password);
    const res = await send('GET', '/v1/verify_auth', { Cookie: cookie });
    expect(res.status).toBe(200);
    expect((await res.json()).isAuthenticated).toBe(true);
  });
});
