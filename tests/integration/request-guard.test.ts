// Three requests that a sweep from outside saw answer 500 — JSON nested 100,000 deep, a NUL in a
// path parameter, TRACE on a page — each get a clear 4xx in { error: { code, message } } and change
// nothing. In-process through the Hono app, and over a real socket through the one HTTP server
// (some of these fail before Hono or Astro would see them); tests/e2e/request-guard.test.ts repeats
// the socket cases against the built service with its real pages.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { MAX_JSON_DEPTH } from '../../src/server/http/validate.ts';
import { createHttpServer } from '../../src/server/server.ts';
import { createTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { rawRequest } from '../helpers/raw-http.ts';

let app: TestApp;
let account: TestAccount;
let cookie: string;
let apiKey: string;
beforeAll(async () => {
  app = await createTestApp();
  account = await app.createAccount();
  cookie = await app.signIn(account.email, account.password);
  apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
});
afterAll(async () => app?.close());

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

async function expectError(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toEqual(expect.any(String));
  return body.error;
}

async function suppressionCount() {
  const row = await app.ctx.db
    .selectFrom('suppressions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('JSON bodies nested too deep', () => {
  it('POST /v1/auth/login (signed out) answers 400 invalid_json for [ x100,000 ]', async () => {
    const error = await expectError(
      await app.call('POST', '/v1/auth/login', { raw: nested(100_000) }),
      400,
      'invalid_json',
    );
    expect(error.message).toContain(String(MAX_JSON_DEPTH));
  });

  it('objects count as levels too', async () => {
    const raw = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
    await expectError(await app.call('POST', '/v1/auth/login', { raw }), 400, 'invalid_json');
  });

  it(`takes ${MAX_JSON_DEPTH} levels (then checks the schema) and refuses ${MAX_JSON_DEPTH + 1}`, async () => {
    await expectError(
      await app.call('POST', '/v1/auth/login', { raw: nested(MAX_JSON_DEPTH) }),
      400,
      'validation_failed',
    );
    await expectError(
      await app.call('POST', '/v1/auth/login', { raw: nested(MAX_JSON_DEPTH + 1) }),
      400,
      'invalid_json',
    );
    const deepField = JSON.stringify({
      email: account.email,
      password: account.password,
      extra: JSON.parse(nested(MAX_JSON_DEPTH + 1)),
    });
    await expectError(await app.call('POST', '/v1/auth/login', { raw: deepField }), 400, 'invalid_json');
  });

  it('the send endpoints (API key) answer 400 and queue nothing', async () => {
    for (const path of ['/v1/mail', '/v1/mail/batch', '/v1/emails', '/v1/emails/batch']) {
      const res = await app.api.request(`http://localhost:4321${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: nested(100_000),
      });
      await expectError(res, 400, 'invalid_json');
    }
    const queued = await app.ctx.db
      .selectFrom('transactions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(queued.n)).toBe(0);
  });

  it('no route that takes a body answers 500 (signed in, with an API key)', async () => {
    // its own session: POST /v1/logout reads no body and signs it out
    const session = await app.signIn(account.email, account.password);
    const routes = new Map<string, string>();
    for (const route of app.api.routes) {
      if (['POST', 'PUT', 'PATCH', 'DELETE'].includes(route.method))
        routes.set(`${route.method} ${route.path}`, route.path);
    }
    expect(routes.size).toBeGreaterThan(10);
    for (const [key, path] of routes) {
      const concrete = path.replace(/:\w+(\{[^}]*\})?/g, '1');
      const res = await app.call(key.split(' ')[0], concrete, {
        raw: nested(100_000),
        cookie: session,
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect({ key, status: res.status }).toEqual({ key, status: expect.toSatisfy((s: number) => s < 500) });
    }
  });
});

describe('control characters in the path or query', () => {
  it('DELETE /v1/suppression/%00 answers 400 and removes nothing', async () => {
    await app.call('POST', '/v1/suppression', { cookie, body: { emails: ['kept@example.com'] } });
    const before = await suppressionCount();
    expect(before).toBeGreaterThan(0);
    const error = await expectError(await app.call('DELETE', '/v1/suppression/%00', { cookie }), 400, 'bad_request');
    expect(error.message).toMatch(/control characters/);
    expect(await suppressionCount()).toBe(before);
  });

  it.each([
    ['a NUL inside an address', 'DELETE', '/v1/suppression/kept%00@example.com'],
    ['a tab', 'DELETE', '/v1/suppression/kept%09@example.com'],
    ['DEL', 'GET', '/v1/domains/1%7F'],
    ['a C1 control (NEL, UTF-8 encoded)', 'GET', '/v1/transactions/%C2%85/events'],
    ['a NUL in a query value', 'GET', '/v1/dashboard?startDate=%00&endDate=1'],
    ['a NUL in a query name', 'GET', '/v1/dashboard/get-quota?%00=1'],
    ['a NUL signed out', 'GET', '/v1/verify_auth?x=%00'],
  ])('%s answers 400 bad_request (%s %s)', async (_label, method, path) => {
    await expectError(await app.call(method, path, { cookie }), 400, 'bad_request');
  });

  it('leaves ordinary escapes alone', async () => {
    const res = await app.call('DELETE', `/v1/suppression/${encodeURIComponent('not listed+x@example.com')}`, {
      cookie,
    });
    expect(res.status).toBe(404);
  });
});

describe('methods a route does not serve', () => {
  it.each([
    ['GET', '/v1/auth/login', 'POST'],
    ['DELETE', '/v1/verify_auth', 'GET, HEAD'],
    ['PUT', '/v1/domains/7', 'GET, HEAD'],
    ['PATCH', '/v1/suppression', 'POST'],
    ['OPTIONS', '/v1/suppression/a@example.com', 'DELETE'],
  ])('%s %s answers 405 with Allow: %s', async (method, path, allow) => {
    const res = await app.call(method, path, { cookie });
    const error = await expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe(allow);
    expect(error.message).toContain(method);
  });

  it('a path no route has stays 404', async () => {
    await expectError(await app.call('PUT', '/v1/nothing-here', { cookie }), 404, 'not_found');
  });
});

/** A refusal in Resend's shape alone, `{ statusCode, name, message }`, as its SDK reads it. */
function expectResendError(status: number, name: string, body: unknown) {
  expect(body).toEqual({ statusCode: status, name, message: expect.any(String) });
}

describe('under /resend every refusal is Resend’s shape', () => {
  const key = () => ({ headers: { Authorization: `Bearer ${apiKey}` } });

  it.each([
    ['a NUL in a query value', 'GET', '/resend/emails?after=%00'],
    ['a control character in a query name', 'GET', '/resend/api-keys?%01=1'],
    ['DEL in a path parameter', 'GET', '/resend/domains/1%7F'],
    ['a C1 control in a path parameter', 'DELETE', '/resend/api-keys/%C2%85'],
  ])('%s answers 400 validation_error (%s %s)', async (_label, method, path) => {
    const res = await app.call(method, path, key());
    expect(res.status).toBe(400);
    expectResendError(400, 'validation_error', await res.json());
  });

  it('an unknown path answers 404 not_found; a method the path does not serve 405 with Allow', async () => {
    const unknown = await app.call('GET', '/resend/no-such-thing', key());
    expect(unknown.status).toBe(404);
    expectResendError(404, 'not_found', await unknown.json());
    const wrong = await app.call('PUT', '/resend/emails', key());
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST');
    expectResendError(405, 'method_not_allowed', await wrong.json());
  });
});

describe('over a socket, through the one HTTP server', () => {
  let server: Server;
  let port: number;
  /**
   * Stands in for Astro's handler the way it answers: a page for /groups, else a 404 that keeps its Response's 'OK'.
   */
  const pages = (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.split('?')[0] === '/groups') {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end('<h1>groups</h1>');
      return;
    }
    res.statusMessage = 'OK';
    res.writeHead(404, { 'Content-Type': 'text/html' });
    res.end('<h1>Not Found</h1>');
  };
  beforeAll(async () => {
    server = createHttpServer({ ctx: app.ctx, api: app.api, pages });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it.each([
    ['TRACE', '/groups', 405, 'GET, HEAD, POST'],
    ['TRACE', '/', 405, 'GET, HEAD, POST'],
    ['TRACK', '/settings', 405, 'GET, HEAD, POST'],
    ['PROPFIND', '/groups', 405, 'GET, HEAD, POST'],
    ['DELETE', '/groups', 405, 'GET, HEAD, POST'],
    ['TRACE', '/v1/domains', 405, 'GET, HEAD, POST'],
    ['TRACE', '/v1/verify_auth', 405, 'GET, HEAD'],
    ['TRACE', '/v1/nothing-here', 404, null],
  ])('%s %s answers %i (Allow: %s)', async (method, path, status, allow) => {
    const res = await rawRequest(port, `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(status);
    expect(res.headers.allow ?? null).toBe(allow);
    expect(JSON.parse(res.body).error.code).toBe(status === 405 ? 'method_not_allowed' : 'not_found');
  });

  it('CONNECT answers 405 instead of a dropped connection', async () => {
    const res = await rawRequest(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(res.statusLine).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(JSON.parse(res.body).error.code).toBe('method_not_allowed');
  });

  it('a method the parser does not know answers 405', async () => {
    const res = await rawRequest(port, 'FROB /groups HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(res.statusLine).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(JSON.parse(res.body).error.code).toBe('method_not_allowed');
  });

  it('other malformed requests keep their 400', async () => {
    const res = await rawRequest(port, 'GET /groups HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n');
    expect(res.statusLine).toBe('HTTP/1.1 400 Bad Request');
  });

  it.each(['/v1/suppression/%00', '/groups%00', '/groups?from=%00', '/_astro/x%01.js'])(
    'GET %s answers 400 bad_request',
    async (path) => {
      const res = await rawRequest(
        port,
        `GET ${path} HTTP/1.1\r\nHost: localhost\r\nCookie: ${cookie}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe('bad_request');
    },
  );

  it.each([
    ['/groups/', '/groups'],
    ['/settings/', '/settings'],
    ['/suppression-list//', '/suppression-list'],
    ['/groups/?tab=recipients&q=a%2Fb', '/groups?tab=recipients&q=a%2Fb'],
    ['/domains/5/', '/domains/5'],
    ['//evil.example/', '/evil.example'],
    ['///evil.example//', '/evil.example'],
    ['/\\evil.example/', '/evil.example'],
    ['/a\\b/', '/a%5Cb'],
  ])('GET %s redirects 301 to %s', async (path, location) => {
    const res = await rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expect(res.statusLine).toBe('HTTP/1.1 301 Moved Permanently');
    expect(res.headers.location).toBe(location);
    expect(new URL(res.headers.location, 'http://localhost').host).toBe('localhost');
  });

  it('redirects only pages: / itself, the API and POSTs are left alone', async () => {
    expect(
      (await rawRequest(port, 'GET /groups HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).status,
    ).toBe(200);
    expect(
      (await rawRequest(port, 'GET /v1/verify_auth/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n')).status,
    ).toBe(404);
    const post = await rawRequest(
      port,
      'POST /groups/ HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    );
    expect(post.status).not.toBe(301);
  });

  it('a page that is not found answers the status line "404 Not Found"', async () => {
    const res = await rawRequest(port, 'GET /no-such-page HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(res.statusLine).toBe('HTTP/1.1 404 Not Found');
  });

  it.each([
    ['TRACE', '/resend/emails', 405, 'method_not_allowed', 'GET, HEAD, POST'],
    ['TRACE', '/resend/nothing-here', 404, 'not_found', null],
    ['GET', '/resend/emails?after=%00', 400, 'validation_error', null],
    ['GET', '/resend/emails/%01', 400, 'validation_error', null],
  ])('%s %s under /resend answers %i %s in Resend’s shape', async (method, path, status, name, allow) => {
    const res = await rawRequest(
      port,
      `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${apiKey}\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status).toBe(status);
    expect(res.headers.allow ?? null).toBe(allow);
    expectResendError(status, name, JSON.parse(res.body));
  });

  it('JSON nested 100,000 deep over the socket answers 400', async () => {
    const body = nested(100_000);
    const res = await rawRequest(
      port,
      `POST /v1/auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nRequest-Type: ` +
        `ui\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_json');
  });
});
