// Every operation that takes a request body reads it only in a media type its contract lists
// (src/server/http/contract-route.ts): anything else is 415 unsupported_media_type in the error
// envelope, documented for that operation, and writes nothing. The send calls are in
// send-bad-input.test.ts, the Resend-compatible ones there too, in their own error shape.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/contract/index.ts';
import { openApiDocument } from '../../src/contract/document.ts';
import { ORIGIN, createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
let cookie = '';
let apiKey = '';

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  cookie = await app.signIn(account.email, account.password);
  const settings = await (await app.call('GET', '/v1/ui-settings', { cookie })).json();
  apiKey = settings.credentials.apiCredentials.apiKey;
}, 180_000);
afterAll(() => app.close());

const withBody = operations.filter((op) => op.mediaTypes.length > 0);
const pathOf = (path: string) => path.replace(/\{[^}]+\}/g, '1');

/** How many rows each table holds, and the stored blobs: what a refused request must leave as it was. */
async function everything(): Promise<Record<string, number>> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(app.ctx.db);
  const counts: Record<string, number> = {};
  for (const { name } of rows) {
    const { rows: n } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(name)}`.execute(app.ctx.db);
    counts[name] = Number(n[0].n);
  }
  let blobs = 0;
  for await (const _ of app.ctx.storage.list('')) blobs += 1;
  return { ...counts, blobs };
}

/** A body of the wrong kind for the call: a form for a JSON call, JSON for a multipart one. */
function wrongBody(listed: readonly string[]): { type: string; body: string }[] {
  const json = JSON.stringify({ name: 'x' });
  const wrong = [
    { type: 'text/plain;charset=UTF-8', body: json },
    { type: 'application/x-www-form-urlencoded', body: 'name=x' },
    { type: 'application/merge-patch+json', body: json },
  ];
  if (!listed.includes('application/json')) wrong.push({ type: 'application/json', body: json });
  return wrong;
}

describe('every operation with a request body', () => {
  it('lists its media types and documents 415 unsupported_media_type', () => {
    const doc = openApiDocument(ORIGIN) as unknown as {
      paths: Record<string, Record<string, { requestBody?: { content: object }; responses: object }>>;
    };
    expect(withBody.length).toBeGreaterThan(20);
    for (const op of operations) {
      const documented = doc.paths[op.path][op.method];
      const listed = Object.keys(documented.requestBody?.content ?? {});
      expect(op.mediaTypes, op.id).toEqual(listed);
      expect(Object.keys(documented.responses).includes('415'), op.id).toBe(listed.length > 0);
    }
  });

  it('answers 415 for a body in a type it does not list (Resend’s shape under /resend), writes nothing', async () => {
    const before = await everything();
    for (const op of withBody) {
      for (const { type, body } of wrongBody(op.mediaTypes)) {
        const where = `${op.method.toUpperCase()} ${op.path} as ${type}`;
        const res = await app.call(op.method.toUpperCase(), pathOf(op.path), {
          cookie,
          raw: body,
          headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': type },
        });
        expect(res.status, where).toBe(415);
        const answer = await res.json();
        const refusal = op.resendShape
          ? {
              code: answer.name === 'validation_error' ? 'unsupported_media_type' : answer.name,
              message: answer.message,
            }
          : answer.error;
        expect(refusal, where).toMatchObject({ code: 'unsupported_media_type' });
        expect(refusal.message, where).toContain(op.mediaTypes[0]);
      }
    }
    expect(await everything()).toEqual(before);
  });

  it('refuses a body sent without a Content-Type', async () => {
    const op = withBody.find((o) => o.path === '/v1/templates/search')!;
    const res = await app.api.request(`${ORIGIN}${op.path}`, {
      method: 'POST',
      headers: { Cookie: cookie, 'Request-Type': 'ui', Origin: ORIGIN, 'Content-Length': '2' },
      body: new TextEncoder().encode('{}'),
    });
    expect(res.status).toBe(415);
    expect((await res.json()).error.code).toBe('unsupported_media_type');
  });

  it('still takes a listed type with its parameters, in any case', async () => {
    const res = await app.call('POST', '/v1/templates/search', {
      cookie,
      raw: JSON.stringify({ page: 1 }),
      headers: { 'Content-Type': 'Application/JSON; charset=utf-8' },
    });
    expect(res.status).toBe(200);
  });
});
