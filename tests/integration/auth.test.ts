import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => app?.close());

describe('POST /v1/auth/login', () => {
  it('signs in with the right password and sets an HttpOnly, SameSite=Lax cookie', async () => {
    const account = await app.createAccount();
    const res = await app.call('POST', '/v1/auth/login', { body: { email: account.email, password: account.password } });
    expect(res.status).toBe(200);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/transact_session=[\w-]{40,}/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    const body = await res.json();
    expect(body.isAuthenticated).toBe(true);
    expect(body.user.user_email).toBe(account.email);
  });

  it('answers the same 401 for an unknown email and a wrong password', async () => {
    const account = await app.createAccount();
    const wrong = await app.call('POST', '/v1/auth/login', { body: { email: account.email, password: 'not-the-password' } });
    const unknown = await app.call('POST', '/v1/auth/login', { body: { email: 'nobody@example.com', password: 'whatever-it-is' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });
});
