// The tracked-attachment calls with the account's API key: an application makes a
// download link with its file by Bearer or Basic key, lists and reads it, and mails it with
// online_attachment_id; a wrong key is 401 even beside a session, another account's link 404.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, type TestApp, createTestApp } from '../helpers/app.ts';

let app: TestApp;
let key = '';
let username = '';
let otherKey = '';
let cookie = '';

async function credentials(account: { email: string; password: string }) {
  const session = await app.signIn(account.email, account.password);
  const settings = await (await app.call('GET', '/v1/ui-settings', { cookie: session })).json();
  return {
    session,
    key: settings.credentials.apiCredentials.apiKey as string,
    username: settings.credentials.apiCredentials.username as string,
  };
}

beforeAll(async () => {
  app = await createTestApp();
  const mine = await credentials(await app.createAccount());
  ({ key, username } = mine);
  cookie = mine.session;
  otherKey = (await credentials(await app.createAccount())).key;
}, 180_000);
afterAll(() => app.close());

async function upload(headers: Record<string, string>): Promise<Response> {
  const form = new FormData();
  form.set('group', JSON.stringify({ name: 'Invoice 1042', options: { access_limit: 3 } }));
  form.set('asset', new Blob(['%PDF-1.4 invoice'], { type: 'application/pdf' }), 'invoice-1042.pdf');
  return app.api.request(`${ORIGIN}/v1/tracked-attachments/groups`, { method: 'POST', headers, body: form });
}

describe('/v1/tracked-attachments with the API key', () => {
  it(
    'creates a link with its file by Bearer key (no ' + 'Request-Type needed), reads and lists it by Basic key',
    async () => {
      const created = await upload({ Authorization: `Bearer ${key}` });
      expect(created.status).toBe(201);
      const link = await created.json();
      expect(link).toMatchObject({ name: 'Invoice 1042', asset_count: 1, options: { access_limit: 3 } });
      const basic = `Basic ${Buffer.from(`${username}:${key}`).toString('base64')}`;
      const read = await app.api.request(`${ORIGIN}/v1/tracked-attachments/groups/${link.id}`, {
        headers: { Authorization: basic },
      });
      expect(read.status).toBe(200);
      expect((await read.json()).integration_id).toBe(link.integration_id);
      const list = await app.api.request(`${ORIGIN}/v1/tracked-attachments/groups?name=Invoice`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect((await list.json()).data.map((g: { id: number }) => g.id)).toContain(link.id);
      // another account's key does not see it
      const foreign = await app.api.request(`${ORIGIN}/v1/tracked-attachments/groups/${link.id}`, {
        headers: { Authorization: `Bearer ${otherKey}` },
      });
      expect(foreign.status).toBe(404);
    },
  );

  it('answers 401 for a wrong key even with a session, and for no key and no session', async () => {
    const wrong = await app.call('GET', '/v1/tracked-attachments/groups', {
      cookie,
      headers: { Authorization: 'Bearer tsk_wrong' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await wrong.json()).error.code).toBe('unauthorized');
    const none = await app.api.request(`${ORIGIN}/v1/tracked-attachments/groups`);
    expect(none.status).toBe(401);
  });

  it('still takes the console session, with its CSRF rule', async () => {
    expect((await app.call('GET', '/v1/tracked-attachments/branding', { cookie })).status).toBe(200);
    const noHeader = await app.api.request(`${ORIGIN}/v1/tracked-attachments/branding/logo`, {
      method: 'DELETE',
      headers: { Cookie: cookie },
    });
    expect(noHeader.status).toBe(403);
  });
});
