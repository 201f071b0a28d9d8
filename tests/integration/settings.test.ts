// The Settings page's calls (docs/console.md §2 Settings, §7): GET/POST /v1/ui-settings (one sending
// option per call, only for users who may send, CSRF-guarded) and GET /v1/webhooks; and the proof
// that Disable Suppressions takes effect on the very next message sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, TEST_SECRET, createTestApp, type TestAccount, type TestApp, sendAsClient } from '../helpers/app.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { createSecrets } from '../../src/server/core/secrets.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => app?.close());

// migration 002: tracking on, suppression on (so Disable Suppressions off) for a new customer
const DEFAULTS = { tsetting_track_opens: true, tsetting_track_links: true, tsetting_disable_suppression: false };
const DEFAULT_COLUMNS = { track_opens: true, track_links: true, disable_suppression: false };

async function settingsOf(cookie: string) {
  const res = await app.call('GET', '/v1/ui-settings', { cookie });
  expect(res.status).toBe(200);
  return (await res.json()).settings as typeof DEFAULTS;
}

async function optionColumns(customerId: number) {
  return app.ctx.db
    .selectFrom('customers')
    .select(['track_opens', 'track_links', 'disable_suppression'])
    .where('id', '=', customerId)
    .executeTakeFirstOrThrow();
}

async function signedInAccount(
  opts: Parameters<TestApp['createAccount']>[0] = {},
): Promise<{ account: TestAccount; cookie: string }> {
  const account = await app.createAccount(opts);
  return { account, cookie: await app.signIn(account.email, account.password) };
}

describe('POST /v1/ui-settings', () => {
  it.each([
    ['track_opens', 'tsetting_track_opens'],
    ['track_links', 'tsetting_track_links'],
    ['disable_suppression', 'tsetting_disable_suppression'],
  ] as const)('flips %s and back, answering every setting', async (key, wire) => {
    const { account, cookie } = await signedInAccount();
    expect(await settingsOf(cookie)).toEqual(DEFAULTS);
    const flipped = !DEFAULTS[wire];

    const changed = await app.call('POST', '/v1/ui-settings', { cookie, body: { [key]: flipped } });
    expect(changed.status).toBe(200);
    expect(await changed.json()).toEqual({ settings: { ...DEFAULTS, [wire]: flipped } });
    expect(await settingsOf(cookie)).toEqual({ ...DEFAULTS, [wire]: flipped });
    expect((await optionColumns(account.customerId))[key]).toBe(flipped);

    const back = await app.call('POST', '/v1/ui-settings', { cookie, body: { [key]: !flipped } });
    expect(await back.json()).toEqual({ settings: DEFAULTS });
    expect(await settingsOf(cookie)).toEqual(DEFAULTS);
  });

  it.each([
    ['no key', {}],
    ['two keys', { track_opens: false, track_links: false }],
    ['all three keys', { track_opens: false, track_links: false, disable_suppression: true }],
    ['an unknown key', { track_clicks: false }],
    ['a known and an unknown key', { track_opens: false, colour: 'red' }],
    ['a string', { track_opens: 'false' }],
    ['yes', { disable_suppression: 'yes' }],
    ['a number', { track_links: 0 }],
    ['null', { track_opens: null }],
    ['an array body', [{ track_opens: false }]],
  ])('refuses %s with 400 validation_failed and changes nothing', async (_name, body) => {
    const { account, cookie } = await signedInAccount();
    const res = await app.call('POST', '/v1/ui-settings', { cookie, body });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: 'validation_failed', message: expect.any(String), details: expect.any(Array) },
    });
    expect(await optionColumns(account.customerId)).toEqual(DEFAULT_COLUMNS);
  });

  it('refuses a body that is not JSON', async () => {
    const { account, cookie } = await signedInAccount();
    const res = await app.call('POST', '/v1/ui-settings', { cookie, raw: '{"track_opens": fals' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('invalid_json');
    expect(await optionColumns(account.customerId)).toEqual(DEFAULT_COLUMNS);
  });

  it('refuses a call without the console CSRF header, or from another site, and changes nothing', async () => {
    const { account, cookie } = await signedInAccount();
    const post = (headers: Record<string, string>) =>
      app.api.request(`${ORIGIN}/v1/ui-settings`, {
        method: 'POST',
        headers: { Cookie: cookie, 'Content-Type': 'application/json', ...headers },
        body: '{"track_opens":false}',
      });
    for (const res of [
      await post({ Origin: ORIGIN }),
      await post({ 'Request-Type': 'ui', Origin: 'https://evil.example' }),
    ]) {
      expect(res.status).toBe(403);
      expect((await res.json()).error.code).toBe('csrf_failed');
    }
    expect(await optionColumns(account.customerId)).toEqual(DEFAULT_COLUMNS);
  });

  it('answers 401 without a session', async () => {
    const res = await app.call('POST', '/v1/ui-settings', { body: { track_opens: true } });
    expect(res.status).toBe(401);
  });

  it('answers 403 forbidden to a user who may not send transactions, and changes nothing', async () => {
    const { account, cookie } = await signedInAccount({ permissions: ['domains_access'] });
    const res = await app.call('POST', '/v1/ui-settings', { cookie, body: { disable_suppression: true } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
    expect((await optionColumns(account.customerId)).disable_suppression).toBe(false);
  });

  it('changes only the signed-in user’s customer', async () => {
    const first = await signedInAccount();
    const second = await signedInAccount();
    await app.call('POST', '/v1/ui-settings', { cookie: first.cookie, body: { track_links: false } });
    expect((await optionColumns(first.account.customerId)).track_links).toBe(false);
    expect(await optionColumns(second.account.customerId)).toEqual(DEFAULT_COLUMNS);
  });
});

describe('GET /v1/webhooks', () => {
  const secrets = createSecrets(TEST_SECRET);

  it('answers an empty list when the customer has no webhook', async () => {
    const { cookie } = await signedInAccount();
    const res = await app.call('GET', '/v1/webhooks', { cookie });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [] });
  });

  it('answers the customer’s webhook with its basic-auth details decrypted, and never another customer’s', async () => {
    const owner = await signedInAccount();
    const other = await signedInAccount();
    await app.ctx.db
      .insertInto('webhooks')
      .values({
        customer_id: owner.account.customerId,
        url: 'https://hooks.example/transact',
        verb: 'put',
        status: 'disabled',
        auth_type: 'basic',
        auth_details_sealed: secrets.encrypt(JSON.stringify({ username: 'hook-user', password: 's3cret' })),
        event_types: JSON.stringify(['sent', 'bounce']),
        field_set: 'legacy',
        created_at: '2024-05-06T07:08:09Z',
      })
      .execute();

    const res = await app.call('GET', '/v1/webhooks', { cookie: owner.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({
      data: [
        {
          // ours: its uuid (an account may have several webhooks; docs/webhooks.md)
          id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
          url: 'https://hooks.example/transact',
          verb: 'put',
          status: 'disabled',
          auth_type: 'basic',
          auth_details: { username: 'hook-user', password: 's3cret' },
          event_types: ['sent', 'bounce'],
          field_set: 'legacy',
          created_timestamp: '2024-05-06T07:08:09.000Z',
          // the signing secret (created on first read for a webhook older than signing)
          secret: expect.stringMatching(/^whsec_/),
          disabled_reason: null,
          // ours: what email.received would carry (docs/receiving.md "To a webhook")
          received_content: 'metadata',
          received_inline_max_bytes: 262_144,
        },
      ],
    });
    const stored = await app.ctx.db
      .selectFrom('webhooks')
      .select('auth_details_sealed')
      .where('customer_id', '=', owner.account.customerId)
      .executeTakeFirstOrThrow();
    expect(stored.auth_details_sealed).not.toContain('s3cret');

    expect(await (await app.call('GET', '/v1/webhooks', { cookie: other.cookie })).json()).toEqual({ data: [] });
  });

  it('sends auth_type and auth_details as null for a webhook without authentication', async () => {
    const { account, cookie } = await signedInAccount();
    await app.ctx.db
      .insertInto('webhooks')
      .values({
        customer_id: account.customerId,
        url: 'https://hooks.example/open',
        auth_type: '',
        event_types: JSON.stringify(['open']),
      })
      .execute();
    const { data } = await (await app.call('GET', '/v1/webhooks', { cookie })).json();
    expect(data).toEqual([
      expect.objectContaining({
        url: 'https://hooks.example/open',
        verb: 'post',
        status: 'enabled',
        auth_type: null,
        auth_details: null,
        field_set: 'standard',
      }),
    ]);
  });

  it('answers 401 without a session', async () => {
    expect((await app.call('GET', '/v1/webhooks')).status).toBe(401);
  });
});

describe('Disable Suppressions', () => {
  it('takes effect on the next message sent', async () => {
    const { account, cookie } = await signedInAccount();
    await addDomain(app.ctx, account.customerId, 'settings-supp.example', { verified: true });
    const { apiKey } = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials;
    await app.ctx.db
      .insertInto('suppressions')
      .values({ customer_id: account.customerId, email: 'gone@q.example', origin: 'bounce' })
      .execute();
    const send = async () => {
      const res = await sendAsClient(app, '/v1/mail', apiKey, {
        from: 'news@settings-supp.example',
        to: 'gone@q.example',
        subject: 'Settings',
        text: 'Settings',
      });
      expect(res.status).toBe(202);
      const [accepted] = (await res.json()).data as { trans_uuid: string; status: string }[];
      return app.ctx.db
        .selectFrom('transactions')
        .select(['status', 'last_reply'])
        .where('uuid', '=', accepted.trans_uuid)
        .executeTakeFirstOrThrow();
    };

    const blocked = await send();
    expect(blocked.status).toBe('failed');
    expect(blocked.last_reply).toMatch(/suppress/);

    expect((await app.call('POST', '/v1/ui-settings', { cookie, body: { disable_suppression: true } })).status).toBe(
      200,
    );
    expect((await send()).status).toBe('queued');

    expect((await app.call('POST', '/v1/ui-settings', { cookie, body: { disable_suppression: false } })).status).toBe(
      200,
    );
    expect((await send()).status).toBe('failed');
  });
});
