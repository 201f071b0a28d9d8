import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import {
  credentialsForConsole,
  customerForSmtpLogin,
  rotateCredentials,
  API_KEY_PREFIX,
} from '../../src/server/credentials/credentials.service.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ SMTP_PORT: '2587', SMTP_PUBLIC_HOST: 'smtp.transact.test' });
});
afterAll(async () => app?.close());

const send = (apiKey: string) =>
  app.api.request('http://localhost:4321/v1/mail', {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ from: 'a@creds.example', to: 'b@customer.example', subject: 'Hi', text: 'Hi' }),
  });

describe('GET /v1/ui-settings', () => {
  it('answers the settings and both credentials of the signed-in customer, the secrets readable again', async () => {
    const account = await app.createAccount();
    const cookie = await app.signIn(account.email, account.password);
    const res = await app.call('GET', '/v1/ui-settings', { cookie });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.settings).toEqual({
      tsetting_track_opens: true,
      tsetting_track_links: true,
      tsetting_disable_suppression: false,
    });
    expect(body.credentials.isReseller).toBe(false);
    expect(body.credentials.apiCredentials).toMatchObject({ url: 'http://localhost:4321/v1/mail' });
    expect(body.credentials.apiCredentials.apiKey.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(body.credentials.smtpCredentials).toMatchObject({ host: 'smtp.transact.test', port: 2587 });
    // shown again, the same
    const again = await (await app.call('GET', '/v1/ui-settings', { cookie })).json();
    expect(again.credentials).toEqual(body.credentials);
    // stored sealed, not in clear
    const row = await app.ctx.db
      .selectFrom('api_keys')
      .select(['secret_sealed', 'lookup_digest'])
      .where('customer_id', '=', account.customerId)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(body.credentials.apiCredentials.apiKey);
    expect(row.lookup_digest).not.toContain(body.credentials.apiCredentials.apiKey);
  });

  it('needs a session', async () => {
    expect((await app.call('GET', '/v1/ui-settings')).status).toBe(401);
  });
});

describe('credentials rotation', () => {
  it('stops the old API key and SMTP password at once; the new ones work', async () => {
    const account = await app.createAccount();
    await addDomain(app.ctx, account.customerId, 'creds.example', { verified: true });
    const old = await credentialsForConsole(app.ctx, account.customerId);
    expect((await send(old.apiCredentials.apiKey)).status).toBe(202);
    await rotateCredentials(app.ctx, account.customerId);
    const fresh = await credentialsForConsole(app.ctx, account.customerId);
    expect(fresh.apiCredentials.apiKey).not.toBe(old.apiCredentials.apiKey);
    const revoked = await send(old.apiCredentials.apiKey);
    expect(revoked.status).toBe(401);
    expect((await revoked.json()).error.code).toBe('unauthorized');
    expect((await send(fresh.apiCredentials.apiKey)).status).toBe(202);
    expect(await customerForSmtpLogin(app.ctx, old.smtpCredentials.username, old.smtpCredentials.password)).toBeNull();
    expect(await customerForSmtpLogin(app.ctx, fresh.smtpCredentials.username, fresh.smtpCredentials.password)).toBe(
      account.customerId,
    );
  });
});
