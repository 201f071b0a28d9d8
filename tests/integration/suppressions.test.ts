// The Suppression List's calls (docs/console-reports.md §2, §7 "Suppression"; docs/console.md §6): adding
// addresses by hand, searching by part of the address and by origin with paging, deleting one
// address; tenant isolation, the send permission, CSRF; and the proof that the list is what
// POST /v1/mail honours.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGIN, createTestApp, type TestAccount, type TestApp, sendAsClient } from '../helpers/app.ts';
import { createUser } from '../../src/server/accounts/accounts.service.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import type { SuppressionOrigin } from '../../src/server/db/schema.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => app?.close());

async function signedInAccount(
  opts: Parameters<TestApp['createAccount']>[0] = {},
): Promise<{ account: TestAccount; cookie: string }> {
  const account = await app.createAccount(opts);
  return { account, cookie: await app.signIn(account.email, account.password) };
}

/** The customer's list as stored, sorted by address. */
async function listOf(customerId: number) {
  const rows = await app.ctx.db
    .selectFrom('suppressions')
    .select(['email', 'origin', 'created_at'])
    .where('customer_id', '=', customerId)
    .execute();
  return rows.sort((a, b) => (a.email < b.email ? -1 : 1));
}

async function seed(customerId: number, entries: { email: string; origin: SuppressionOrigin; at: string }[]) {
  await app.ctx.db
    .insertInto('suppressions')
    .values(entries.map((e) => ({ customer_id: customerId, email: e.email, origin: e.origin, created_at: e.at })))
    .execute();
}

const add = (cookie: string, emails: unknown) => app.call('POST', '/v1/suppression', { cookie, body: { emails } });
const search = (cookie: string, body: unknown) => app.call('POST', '/v1/suppression/search', { cookie, body });
const remove = (cookie: string, email: string) =>
  app.call('DELETE', `/v1/suppression/${encodeURIComponent(email)}`, { cookie });

async function searchJson(cookie: string, body: unknown) {
  const res = await search(cookie, body);
  expect(res.status).toBe(200);
  return (await res.json()) as {
    data: { email: string; origin: string; suppressed_timestamp: string }[];
    meta: Record<string, number>;
  };
}

describe('POST /v1/suppression', () => {
  it(
    'adds trimmed, normalised addresses with origin user, ' + 'merges duplicates and reports invalid lines by number',
    async () => {
      const { account, cookie } = await signedInAccount();
      const res = await add(cookie, [
        '  Alice@Example.COM ',
        'alice@example.com',
        '',
        'not-an-address',
        '   ',
        'bob@Bücher.example',
        'ALICE@EXAMPLE.COM',
        'carol@x',
      ]);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        added: 2,
        already: 0,
        invalid: [
          { line: 4, value: 'not-an-address', message: "'not-an-address' is not a valid email address" },
          { line: 8, value: 'carol@x', message: "'carol@x' is not a valid email address" },
        ],
      });
      // the local part keeps its case (parseEmail); the domain is lower-cased and in ASCII form
      expect((await listOf(account.customerId)).map(({ email, origin }) => ({ email, origin }))).toEqual([
        { email: 'Alice@example.com', origin: 'user' },
        { email: 'bob@xn--bcher-kva.example', origin: 'user' },
      ]);
    },
  );

  it('leaves an address already on the list as it was, in any spelling', async () => {
    const { account, cookie } = await signedInAccount();
    await seed(account.customerId, [{ email: 'carol@example.com', origin: 'bounce', at: '2024-01-02T03:04:05Z' }]);
    const res = await add(cookie, ['CAROL@example.com', 'dave@example.com', 'carol@EXAMPLE.com']);
    expect(await res.json()).toEqual({ added: 1, already: 1, invalid: [] });
    const list = await listOf(account.customerId);
    expect(list.map((r) => [r.email, r.origin])).toEqual([
      ['carol@example.com', 'bounce'],
      ['dave@example.com', 'user'],
    ]);
    expect(list[0].created_at.toISOString()).toBe('2024-01-02T03:04:05.000Z');
    // and again: nothing new
    expect(await (await add(cookie, ['dave@example.com'])).json()).toEqual({ added: 0, already: 1, invalid: [] });
  });

  it(`takes ${10_000} lines in one call and refuses one more`, async () => {
    const { account, cookie } = await signedInAccount();
    const emails = Array.from({ length: 10_000 }, (_, i) => `r${i}@bulk.example`);
    const tooMany = await add(cookie, [...emails, 'one-more@bulk.example']);
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error).toMatchObject({
      code: 'validation_failed',
      message: expect.stringContaining('at most 10000'),
    });
    expect(await listOf(account.customerId)).toEqual([]);

    const res = await add(cookie, emails);
    expect(await res.json()).toEqual({ added: 10_000, already: 0, invalid: [] });
    expect((await searchJson(cookie, { page: 1 })).meta.total).toBe(10_000);
  });

  it('answers 400 with the invalid lines and stores nothing when no line holds a valid address', async () => {
    const { account, cookie } = await signedInAccount();
    const res = await add(cookie, ['nope', '', 'a b@example.com', '"quoted"@example.com']);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.message).toBe(
      "No address was added: 'nope' is not a valid email address (and 2 more invalid lines)",
    );
    expect(body.error.details.map((d: { line: number }) => d.line)).toEqual([1, 3, 4]);
    expect(await listOf(account.customerId)).toEqual([]);
  });

  it.each([
    ['an empty list', { emails: [] }, 'Enter at least one email address'],
    ['only blank lines', { emails: ['', '  ', '\t'] }, 'Enter at least one email address'],
    ['no emails key', {}, undefined],
    ['a string instead of a list', { emails: 'a@example.com' }, undefined],
    ['a number in the list', { emails: ['a@example.com', 42] }, undefined],
    ['null in the list', { emails: [null] }, undefined],
    ['an unknown key', { emails: ['a@example.com'], origin: 'bounce' }, undefined],
    ['a NUL character', { emails: ['a\u0000@example.com'] }, undefined],
    ['an array body', [['a@example.com']], undefined],
  ])('refuses %s with 400 and stores nothing', async (_name, body, message) => {
    const { account, cookie } = await signedInAccount();
    const res = await app.call('POST', '/v1/suppression', { cookie, body });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('validation_failed');
    if (message) expect(error.message).toBe(message);
    expect(await listOf(account.customerId)).toEqual([]);
  });

  it('refuses a body that is not JSON', async () => {
    const { account, cookie } = await signedInAccount();
    const res = await app.call('POST', '/v1/suppression', { cookie, raw: '{"emails": ["a@example.com"' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('invalid_json');
    expect(await listOf(account.customerId)).toEqual([]);
  });
});

describe('POST /v1/suppression/search', () => {
  let cookie: string;
  // 23 entries, one a minute from 2024-03-01 10:00 (newest last in this array)
  const entries: { email: string; origin: SuppressionOrigin; at: string }[] = [];
  beforeAll(async () => {
    const signed = await signedInAccount();
    cookie = signed.cookie;
    const origins: SuppressionOrigin[] = ['user', 'bounce', 'unsubscribe'];
    for (let i = 0; i < 20; i++) {
      entries.push({
        email: `person${String(i).padStart(2, '0')}@Example.org`,
        origin: origins[i % 3],
        at: new Date(Date.UTC(2024, 2, 1, 10, i)).toISOString(),
      });
    }
    // LIKE's wildcards and escape character, literally in addresses
    entries.push({
      email: 'a_b@wild.example',
      origin: 'user',
      at: new Date(Date.UTC(2024, 2, 1, 10, 20)).toISOString(),
    });
    entries.push({
      email: 'axb@wild.example',
      origin: 'user',
      at: new Date(Date.UTC(2024, 2, 1, 10, 21)).toISOString(),
    });
    entries.push({
      email: '100%@wild.example',
      origin: 'bounce',
      at: new Date(Date.UTC(2024, 2, 1, 10, 22)).toISOString(),
    });
    await seed(signed.account.customerId, entries);
    // another customer's entries that match every search below
    const other = await app.createAccount();
    await seed(other.customerId, [
      { email: 'person99@example.org', origin: 'user', at: '2025-01-01T00:00:00Z' },
      { email: 'a_c@wild.example', origin: 'bounce', at: '2025-01-01T00:00:00Z' },
    ]);
  });

  const newestFirst = () => [...entries].reverse();

  it('answers the first page, newest first, with paging meta', async () => {
    const page = await searchJson(cookie, { page: 1, email: '', suppressed_origin: '' });
    expect(page.meta).toEqual({ current_page: 1, per_page: 10, total: 23, last_page: 3 });
    expect(page.data).toEqual(
      newestFirst()
        .slice(0, 10)
        .map((e) => ({ email: e.email, origin: e.origin, suppressed_timestamp: e.at })),
    );
  });

  it('pages through every entry exactly once', async () => {
    const seen: string[] = [];
    for (const n of [1, 2, 3]) {
      const page = await searchJson(cookie, { page: n });
      expect(page.meta.current_page).toBe(n);
      seen.push(...page.data.map((d) => d.email));
    }
    expect(seen).toEqual(newestFirst().map((e) => e.email));
    const beyond = await searchJson(cookie, { page: 4 });
    expect(beyond).toEqual({ data: [], meta: { current_page: 4, per_page: 10, total: 23, last_page: 3 } });
  });

  it('matches a part of the address, in any case', async () => {
    const page = await searchJson(cookie, { page: 1, email: 'SON1' });
    expect(page.data.map((d) => d.email)).toEqual([
      'person19@Example.org',
      'person18@Example.org',
      'person17@Example.org',
      'person16@Example.org',
      'person15@Example.org',
      'person14@Example.org',
      'person13@Example.org',
      'person12@Example.org',
      'person11@Example.org',
      'person10@Example.org',
    ]);
    expect(page.meta.total).toBe(10);
    expect((await searchJson(cookie, { page: 1, email: ' example.ORG ' })).meta.total).toBe(20);
    expect((await searchJson(cookie, { page: 1, email: 'nobody' })).data).toEqual([]);
  });

  it('treats LIKE wildcards in the search text literally', async () => {
    expect((await searchJson(cookie, { page: 1, email: '_' })).data.map((d) => d.email)).toEqual(['a_b@wild.example']);
    expect((await searchJson(cookie, { page: 1, email: '%' })).data.map((d) => d.email)).toEqual(['100%@wild.example']);
    expect((await searchJson(cookie, { page: 1, email: '\\' })).data).toEqual([]);
  });

  it.each(['user', 'bounce', 'unsubscribe'] as const)('filters by origin %s', async (origin) => {
    const expected = newestFirst().filter((e) => e.origin === origin);
    const page = await searchJson(cookie, { page: 1, email: '', suppressed_origin: origin });
    expect(page.meta.total).toBe(expected.length);
    expect(page.data.map((d) => d.email)).toEqual(expected.slice(0, 10).map((e) => e.email));
    expect(page.data.every((d) => d.origin === origin)).toBe(true);
  });

  it.each([
    ['all', { page: 1, suppressed_origin: 'all' }],
    ['an empty origin', { page: 1, suppressed_origin: '' }],
    ['a null origin', { page: 1, suppressed_origin: null, email: null }],
    ['no origin and no page', {}],
  ])('reads %s as every origin', async (_name, body) => {
    expect((await searchJson(cookie, body)).meta.total).toBe(23);
  });

  it('combines the search text with the origin', async () => {
    const page = await searchJson(cookie, { page: 1, email: 'wild', suppressed_origin: 'bounce' });
    expect(page.data.map((d) => d.email)).toEqual(['100%@wild.example']);
  });

  it.each([
    ['page 0', { page: 0 }],
    ['a page that is a string', { page: '2' }],
    ['a fractional page', { page: 1.5 }],
    ['an unknown origin', { page: 1, suppressed_origin: 'spam' }],
    ['an email that is a number', { page: 1, email: 5 }],
    ['an unknown key', { page: 1, order: 'asc' }],
  ])('refuses %s with 400', async (_name, body) => {
    const res = await search(cookie, body);
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('validation_failed');
  });
});

describe('DELETE /v1/suppression/{email}', () => {
  it('removes the address, answers 404 the second time, and leaves the rest', async () => {
    const { account, cookie } = await signedInAccount();
    await add(cookie, ['erin@example.com', 'frank@example.com']);
    const res = await remove(cookie, 'erin@example.com');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: 'Suppression Deleted Successfully' });
    expect((await listOf(account.customerId)).map((r) => r.email)).toEqual(['frank@example.com']);
    const again = await remove(cookie, 'erin@example.com');
    expect(again.status).toBe(404);
    expect((await again.json()).error.code).toBe('not_found');
  });

  it('removes every spelling that sending would match, and addresses with URL-special characters', async () => {
    const { account, cookie } = await signedInAccount();
    await seed(account.customerId, [
      { email: 'Grace@example.com', origin: 'bounce', at: '2024-01-01T00:00:00Z' },
      { email: 'grace@example.com', origin: 'user', at: '2024-01-01T00:00:00Z' },
      { email: 'a/b+c?d#e@example.com', origin: 'user', at: '2024-01-01T00:00:00Z' },
      { email: 'keep@example.com', origin: 'user', at: '2024-01-01T00:00:00Z' },
    ]);
    expect((await remove(cookie, ' GRACE@Example.COM')).status).toBe(200);
    expect((await remove(cookie, 'a/b+c?d#e@example.com')).status).toBe(200);
    expect((await listOf(account.customerId)).map((r) => r.email)).toEqual(['keep@example.com']);
  });

  it('answers 404 for an address that is not on the list', async () => {
    const { cookie } = await signedInAccount();
    expect((await remove(cookie, 'nobody@example.com')).status).toBe(404);
    expect((await remove(cookie, 'not an address')).status).toBe(404);
  });
});

describe('tenant isolation', () => {
  it('never shows, counts or deletes another customer’s entries', async () => {
    const owner = await signedInAccount();
    const other = await signedInAccount();
    await add(owner.cookie, ['secret@owner.example']);

    expect(await searchJson(other.cookie, { page: 1, email: 'secret' })).toEqual({
      data: [],
      meta: { current_page: 1, per_page: 10, total: 0, last_page: 1 },
    });
    expect((await remove(other.cookie, 'secret@owner.example')).status).toBe(404);
    // the same address on the other customer's list is new there, not 'already'
    expect(await (await add(other.cookie, ['secret@owner.example'])).json()).toEqual({
      added: 1,
      already: 0,
      invalid: [],
    });
    expect((await remove(other.cookie, 'secret@owner.example')).status).toBe(200);
    expect((await listOf(owner.account.customerId)).map((r) => r.email)).toEqual(['secret@owner.example']);
  });
});

describe('who may call', () => {
  it('answers 403 forbidden to a user who may not send transactions, and changes nothing', async () => {
    const sender = await signedInAccount();
    await add(sender.cookie, ['kept@example.com']);
    // a colleague of the same customer without the send permission
    const email = `viewer-${Date.now()}@example.com`;
    await createUser(app.ctx, {
      customerId: sender.account.customerId,
      email,
      name: 'Viewer',
      password: 'a-long-enough-password',
      permissions: ['domains_access'],
    });
    const cookie = await app.signIn(email, 'a-long-enough-password');

    for (const res of [
      await add(cookie, ['new@example.com']),
      await search(cookie, { page: 1 }),
      await remove(cookie, 'kept@example.com'),
    ]) {
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ error: { code: 'forbidden', message: expect.any(String) } });
    }
    expect((await listOf(sender.account.customerId)).map((r) => r.email)).toEqual(['kept@example.com']);
  });

  it('answers 401 without a session', async () => {
    expect((await add('', ['a@example.com'])).status).toBe(401);
    expect((await search('', { page: 1 })).status).toBe(401);
    expect((await remove('', 'a@example.com')).status).toBe(401);
  });

  it('refuses calls without the console CSRF header, or from another site, and changes nothing', async () => {
    const { account, cookie } = await signedInAccount();
    await add(cookie, ['kept@example.com']);
    const request = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      app.api.request(`${ORIGIN}${path}`, {
        method,
        headers: { Cookie: cookie, 'Content-Type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const refused: Record<string, string>[] = [
      { Origin: ORIGIN },
      { 'Request-Type': 'ui', Origin: 'https://evil.example' },
      { 'Request-Type': 'ui', 'Sec-Fetch-Site': 'cross-site' },
    ];
    for (const headers of refused) {
      const answers = [
        await request('POST', '/v1/suppression', headers, { emails: ['added@example.com'] }),
        await request('POST', '/v1/suppression/search', headers, { page: 1 }),
        await request('DELETE', '/v1/suppression/kept%40example.com', headers),
      ];
      for (const res of answers) {
        expect(res.status).toBe(403);
        expect((await res.json()).error.code).toBe('csrf_failed');
      }
    }
    expect((await listOf(account.customerId)).map((r) => r.email)).toEqual(['kept@example.com']);
  });
});

describe('the list and POST /v1/mail', () => {
  it(
    'fails the next message to an address added here, ' + 'queues it once deleted or with suppression disabled',
    async () => {
      const { account, cookie } = await signedInAccount();
      await addDomain(app.ctx, account.customerId, 'list-send.example', { verified: true });
      const { apiKey } = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials;
      const send = async (to: string) => {
        const res = await sendAsClient(app, '/v1/mail', apiKey, {
          from: `news@list-send.example`,
          to,
          subject: 'Suppressed?',
          text: 'Hello',
        });
        expect(res.status).toBe(202);
        return ((await res.json()).data as { status: string }[])[0].status;
      };

      expect(await send('Blocked@q.example')).toBe('queued');
      // added in another spelling: the domain's case never matters, the local part's neither for matching
      expect((await add(cookie, ['blocked@Q.EXAMPLE'])).status).toBe(200);
      expect(await send('Blocked@q.example')).toBe('failed');
      expect(await send('blocked@q.example')).toBe('failed');

      const disable = await app.call('POST', '/v1/ui-settings', { cookie, body: { disable_suppression: true } });
      expect(disable.status).toBe(200);
      expect(await send('blocked@q.example')).toBe('queued');
      await app.call('POST', '/v1/ui-settings', { cookie, body: { disable_suppression: false } });
      expect(await send('blocked@q.example')).toBe('failed');

      expect((await remove(cookie, 'BLOCKED@q.example')).status).toBe(200);
      expect(await send('blocked@q.example')).toBe('queued');
    },
  );
});
