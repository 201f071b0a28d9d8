// Bad requests get a 4xx in the one error shape { error: { code, message } }, never a stack trace,
// and write nothing.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let account: TestAccount;
beforeAll(async () => {
  app = await createTestApp();
  account = await app.createAccount();
});
afterAll(async () => app?.close());

const LIMIT = 1024 * 1024;

/** Rows in the tables a sign-in or challenge could write. */
async function writes() {
  const count = async (table: 'sessions' | 'login_failures' | 'auth_challenges' | 'users') =>
    Number(
      (
        await app.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    sessions: await count('sessions'),
    failures: await count('login_failures'),
    challenges: await count('auth_challenges'),
    users: await count('users'),
  };
}

/** Fails when a response body looks like it carries a stack trace or a source path. */
function expectNoStack(text: string) {
  expect(text).not.toMatch(/\bat\s+[\w$.<>]+\s*\(/); // "at fn (" frames
  expect(text).not.toMatch(/\bat\s+(file:|node:|\/)/); // "at /path" frames
  expect(text).not.toMatch(/\.(ts|js|mjs):\d+/);
  expect(text).not.toContain('/work/');
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/stack/i);
}

async function errorBody(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await res.text();
  expectNoStack(text);
  const body = JSON.parse(text);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(Object.keys(body)).toEqual(['error']);
  return body.error as { code: string; message: string; details?: { path: string; message: string }[] };
}

describe('POST /v1/auth/login with bad input', () => {
  it.each(['{"email":', '{email: "a@example.com"}', 'email=a@example.com&password=x', '{"email":"a@example.com",}'])(
    'answers 400 invalid_json for %j and writes nothing',
    async (raw) => {
      const before = await writes();
      const error = await errorBody(await app.call('POST', '/v1/auth/login', { raw }), 400, 'invalid_json');
      expect(error.details).toBeUndefined();
      expect(await writes()).toEqual(before);
    },
  );

  it('answers 400 validation_failed with one detail per wrong field', async () => {
    const before = await writes();
    const error = await errorBody(
      await app.call('POST', '/v1/auth/login', { body: { email: 5, password: ['x'] } }),
      400,
      'validation_failed',
    );
    expect(error.details!.map((d) => d.path).sort()).toEqual(['email', 'password']);
    for (const detail of error.details!) expect(detail.message).toEqual(expect.any(String));
    expect(await writes()).toEqual(before);
  });

  it.each<[string, unknown, string[]]>([
    ['an empty object', {}, ['email', 'password']],
    ['no password', { email: 'a@example.com' }, ['password']],
    ['empty strings', { email: '', password: '' }, ['email', 'password']],
    ['a blank email', { email: '   ', password: 'a-long-enough-password' }, ['email']],
    [
      'an email over 254 characters',
      { email: `${'a'.repeat(250)}@example.com`, password: 'a-long-enough-password' },
      ['email'],
    ],
    ['a password over 1024 characters', { email: 'a@example.com', password: 'p'.repeat(1025) }, ['password']],
  ])('answers 400 validation_failed for %s, naming %j', async (_label, body, paths) => {
    const before = await writes();
    const error = await errorBody(await app.call('POST', '/v1/auth/login', { body }), 400, 'validation_failed');
    expect(error.details!.map((d) => d.path).sort()).toEqual(paths);
    expect(await writes()).toEqual(before);
  });

  it.each([['null'], ['[]'], ['"a@example.com"'], ['42']])(
    'answers 400 validation_failed for the body %s',
    async (raw) => {
      const error = await errorBody(await app.call('POST', '/v1/auth/login', { raw }), 400, 'validation_failed');
      expect(error.details).toEqual([{ path: '(body)', message: expect.any(String) }]);
    },
  );

  it('answers 400 (not 500) for text PostgreSQL cannot store (NUL)', async () => {
    const before = await writes();
    const res = await app.call('POST', '/v1/auth/login', {
      body: { email: 'a\u0000@example.com', password: 'a-long-enough-password' },
    });
    const error = await errorBody(res, 400, 'validation_failed');
    expect(error.details).toEqual([{ path: 'email', message: expect.any(String) }]);
    expect(await writes()).toEqual(before);
  });

  it('answers 413 payload_too_large for a body over 1 MB and writes nothing', async () => {
    const before = await writes();
    const raw = JSON.stringify({ email: account.email, password: account.password, pad: 'x'.repeat(LIMIT) });
    await errorBody(await app.call('POST', '/v1/auth/login', { raw }), 413, 'payload_too_large');
    expect(await writes()).toEqual(before);
  });

  it('answers 413 for a large body sent without Content-Length (streamed)', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > LIMIT + chunk.length) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await app.api.request('http://localhost:4321/v1/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Request-Type': 'ui', Origin: 'http://localhost:4321' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    await errorBody(res, 413, 'payload_too_large');
  });

  it('reads a body of exactly 1 MB (the limit is inclusive)', async () => {
    const prefix = JSON.stringify({ email: account.email, password: account.password, pad: '' });
    const raw = `${prefix.slice(0, -2)}${'x'.repeat(LIMIT - prefix.length)}"}`;
    expect(new TextEncoder().encode(raw).length).toBe(LIMIT);
    const res = await app.call('POST', '/v1/auth/login', { raw });
    expect(res.status).toBe(200);
  });
});

describe('POST /v1/auth/initiate-challenge with bad input', () => {
  it('answers 400 validation_failed for a missing installUrl', async () => {
    const error = await errorBody(
      await app.call('POST', '/v1/auth/initiate-challenge', { body: { redirect: 'groups' } }),
      400,
      'validation_failed',
    );
    expect(error.details!.map((d) => d.path)).toEqual(['installUrl']);
  });
});

describe('DELETE with a body over the limit', () => {
  it('answers the documented 413 payload_too_large before the call runs', async () => {
    const cookie = await app.signIn(account.email, account.password);
    const res = await app.call('DELETE', '/v1/tracked-attachments/branding/logo', {
      cookie,
      raw: 'x'.repeat(LIMIT + 1),
      headers: { 'Content-Type': 'text/plain' },
    });
    await errorBody(res, 413, 'payload_too_large');
  });
});

describe('unknown /v1 routes', () => {
  it.each([
    ['GET', '/v1/nothing-here'],
    ['POST', '/v1/nothing-here'],
    ['GET', '/v1'],
  ])('%s %s answers 404 not_found in the error shape', async (method, path) => {
    const error = await errorBody(await app.call(method, path), 404, 'not_found');
    expect(error.message).toContain(path);
  });
});

describe('unexpected errors', () => {
  it('answer a plain 500 that reveals nothing of the cause', async () => {
    // break the database under the API: the next sign-in meets an error no service expects
    await sql`alter table login_failures rename to login_failures_away`.execute(app.ctx.db);
    try {
      const res = await app.call('POST', '/v1/auth/login', {
        body: { email: account.email, password: account.password },
      });
      const error = await errorBody(res, 500, 'internal');
      expect(error).toEqual({ code: 'internal', message: 'Internal server error' });
    } finally {
      await sql`alter table login_failures_away rename to login_failures`.execute(app.ctx.db);
    }
  });
});
