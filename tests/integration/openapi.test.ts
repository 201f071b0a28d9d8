// GET /v1/openapi.json: a valid OpenAPI 3.1 document, and the router and the document agree on
// every /v1 call (each route served is documented, each documented operation is served).
import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, createTestApp } from '../helpers/app.ts';
import { responseChecker } from '../helpers/openapi-check.ts';

let app: TestApp;
let doc: {
  openapi: string;
  servers: { url: string }[];
  paths: Record<
    string,
    Record<string, { summary?: string; description?: string; responses: Record<string, unknown>; tags?: string[] }>
  >;
  webhooks?: Record<string, unknown>;
  components: { securitySchemes: Record<string, unknown> };
  tags: { name: string }[];
};

beforeAll(async () => {
  app = await createTestApp({ PUBLIC_URL: 'https://mail.example.test' });
  const res = await app.call('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = await res.json();
}, 180_000);
afterAll(() => app.close());

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('names this installation as its server and the three ways to authenticate', () => {
    expect(doc.servers).toEqual([{ url: 'https://mail.example.test', description: expect.any(String) }]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'basicApiKey',
      'bearerApiKey',
      'sessionCookie',
    ]);
  });

  it('describes every operation in words, with a tag, a success and the error envelope', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.summary, where).toBeTruthy();
        expect((op.description ?? '').length, where).toBeGreaterThan(20);
        expect(op.tags?.length, where).toBe(1);
        // the reference page shows the operations of the document's tags only
        expect(
          doc.tags.map((t) => t.name),
          where,
        ).toContain(op.tags?.[0]);
        const statuses = Object.keys(op.responses);
        expect(
          statuses.some((s) => s.startsWith('2') || s === '302'),
          where,
        ).toBe(true);
        expect(
          statuses.some((s) => s.startsWith('4')),
          where,
        ).toBe(true);
      }
    }
  });

  it('carries the webhook payloads of every event type', () => {
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([
      'email.bounce',
      'email.click',
      'email.complaint',
      'email.delayed',
      'email.failed',
      'email.open',
      'email.resubscribe',
      'email.sent',
      'email.test',
      'email.unsubscribe',
    ]);
    // the two of ours carry an example payload in either field set (docs/webhooks.md)
    type Hook = {
      post: { requestBody: { content: Record<string, { examples?: Record<string, { value: object }> }> } };
    };
    for (const name of ['email.delayed', 'email.complaint']) {
      const examples = (doc.webhooks![name] as Hook).post.requestBody.content['application/json'].examples;
      expect(Object.keys(examples ?? {}), name).toEqual(['standard', 'legacy']);
      expect(examples!.standard.value, name).toMatchObject({ type: name });
      expect(examples!.legacy.value, name).toMatchObject({ event: name.slice('email.'.length) });
    }
  });

  it('backs the helper that checks every answer: an undocumented status or shape is refused', async () => {
    const checker = responseChecker('https://mail.example.test');
    const url = 'https://mail.example.test/v1/dashboard/get-quota';
    await expect(checker.check('GET', url, Response.json({ quota: { sent: 1, maximum: 2 } }))).resolves.toBeUndefined();
    await expect(checker.check('GET', url, Response.json({ quota: { sent: 'one' } }))).rejects.toThrow(
      /not as documented/,
    );
    await expect(checker.check('GET', url, Response.json({}, { status: 418 }))).rejects.toThrow(
      /418 is not documented/,
    );
    // a refusal at a documented status, but with a code the operation does not list for it
    const refusal = (code: string, status: number) => Response.json({ error: { code, message: 'No' } }, { status });
    await expect(checker.check('GET', url, refusal('not_found', 404))).resolves.toBeUndefined();
    await expect(checker.check('GET', url, refusal('conflict', 404))).rejects.toThrow(
      /error code conflict is not documented for 404/,
    );
    const verification = 'https://mail.example.test/v1/domains/7/verification';
    await expect(checker.check('POST', verification, refusal('conflict', 409))).resolves.toBeUndefined();
  });

  it('agrees with the router: every /v1 and /resend route is documented, every operation is served', () => {
    const served = new Set<string>();
    for (const route of app.api.routes) {
      if (route.method === 'ALL' || !(route.path.startsWith('/v1/') || route.path.startsWith('/resend/'))) continue;
      // Hono's `:name` and `:name{pattern}` are OpenAPI's `{name}`
      served.add(`${route.method} ${route.path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}')}`);
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths))
      for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
    expect([...served].filter((r) => !documented.has(r)).sort(), 'served but not documented').toEqual([]);
    expect([...documented].filter((r) => !served.has(r)).sort(), 'documented but not served').toEqual([]);
  });
});
