// Property tests over every operation of the contract that takes a JSON body (fast-check): any JSON
// value, objects with the documented fields given wrong types and over-long strings, control and
// NUL characters, deep nesting and huge arrays, and the wrong content type, never answer a 5xx; a
// 4xx answers the error envelope (the helper's hook checks every answer against the document).
// The operation's documented example is accepted with a documented 2xx or a documented refusal.
// Every path and query parameter of every operation, read from the contract, is sent hostile values
// (not its type, very long, SQL, controls, signs, huge numbers, empty, unicode, broken escapes): no
// 5xx, and a refusal in its surface's shape (Resend's `{ statusCode, name, message }` under /resend).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '../../src/contract/index.ts';
import { type TestApp, createTestApp } from '../helpers/app.ts';

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

const withBody = operations.filter((op) => op.body !== undefined && op.method !== 'get');
const pathOf = (path: string) => path.replace(/\{[^}]+\}/g, '1');
const authOf = (access: string): Record<string, string> =>
  access === 'apiKey' ? { Authorization: `Bearer ${apiKey}` } : {};

/** Strings that have broken services before: controls, NUL, lone surrogates, long runs. */
const nasty = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\r\n',
    '\u001b[2J',
    'x'.repeat(70_000),
    '<script>',
    "'; drop table x;--",
  ),
);
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    nasty,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A refusal's reason: our envelope's code, or under /resend Resend's name. */
function reasonOf(body: { error?: { code?: string }; name?: string }): string | undefined {
  return body.error?.code ?? body.name;
}

/**
 * Path and query values that broke services before or could: not the id's type, 3,000 characters,
 * SQL, NUL and other controls (raw and encoded), signs and magnitudes, empty, unicode, broken
 * percent-encoding. Each is sent as written in the address (already encoded where it must be).
 */
const HOSTILE_SEGMENTS = [
  'not-a-uuid',
  'receiving',
  'x'.repeat(3000),
  "1'%20or%20'1'='1",
  "'%3B%20drop%20table%20transactions%3B--",
  '%00',
  'a%00b',
  '%01',
  '%1b%5B2J',
  '%7f',
  '%C2%85',
  '-1',
  '0',
  '1.5',
  '1e309',
  '99999999999999999999999999',
  '9007199254740993',
  '999999999999999',
  '2147483648',
  '%20',
  encodeURIComponent('ü🙂名前'),
  '%ED%A0%80',
  '%E0%A4%A',
  '%',
  '..',
  '00000000-0000-0000-0000-000000000000',
  '3F1C0D8E-6B1A-4C55-9A55-2F1F6AD1B7E4',
  '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4x',
  '{3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4}',
];
/** In a query string an empty value is a value too; `a%26b=1` puts `&` and `=` in it. */
const HOSTILE_QUERY_VALUES = [...HOSTILE_SEGMENTS, '', 'a%26b%3D1', 'true', '[]', 'null'];

/** Every byte of the UTF-8 of `text` percent-encoded: any string, lone surrogates too, fits a URL. */
const encodeBytes = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

async function expectNo5xx(res: Response, what: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status >= 400) expect(reasonOf(JSON.parse(text)), what).toEqual(expect.any(String));
}

describe('every JSON operation of the contract', () => {
  for (const op of withBody) {
    const where = `${op.method.toUpperCase()} ${op.path}`;
    it(
      `${where}: arbitrary JSON, wrong-typed fields, deep nesting, huge arrays and a wrong content type never give ` +
        `a 5xx`,
      async () => {
        const fields = Object.keys((op.body as { shape?: object }).shape ?? {});
        const wrongTyped = fields.length
          ? fc.dictionary(fc.constantFrom(...fields), json, { maxKeys: fields.length })
          : json;
        await fc.assert(
          fc.asyncProperty(fc.oneof(json, wrongTyped), async (body) => {
            const res = await app.call(op.method.toUpperCase(), pathOf(op.path), {
              cookie,
              body,
              headers: authOf(op.access),
            });
            await expectNo5xx(res, where);
          }),
          { numRuns: 12 },
        );
        const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
        await expectNo5xx(
          await app.call(op.method.toUpperCase(), pathOf(op.path), { cookie, raw: deep, headers: authOf(op.access) }),
          `${where} deep`,
        );
        const huge = JSON.stringify(Array.from({ length: 20_000 }, () => ({})));
        await expectNo5xx(
          await app.call(op.method.toUpperCase(), pathOf(op.path), { cookie, raw: huge, headers: authOf(op.access) }),
          `${where} huge`,
        );
        const text = await app.call(op.method.toUpperCase(), pathOf(op.path), {
          cookie,
          raw: 'a=1',
          headers: { ...authOf(op.access), 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        // the contract lists only application/json for these calls
        expect(text.status, `${where} form body`).toBe(415);
        await expectNo5xx(text, `${where} form body`);
      },
    );

    if (op.bodyExample !== undefined) {
      it(`${where}: its documented example is never refused as malformed`, async () => {
        const res = await app.call(op.method.toUpperCase(), pathOf(op.path), {
          cookie,
          body: op.bodyExample,
          headers: authOf(op.access),
        });
        const answer = res.status >= 400 ? reasonOf(await res.json()) : null;
        // the example may name things this account lacks (a domain, a group): those refusals are stated
        // (Resend's shape calls both validation_error; a malformed body is its 400, an unmet need 404/422)
        const malformed = op.resendShape
          ? res.status === 400
          : ['invalid_json', 'validation_failed', 'bad_request'].includes(answer ?? '');
        expect(malformed, `${where}: ${answer}`).toBe(false);
      });
    }
  }
});

/** The names of an object schema's fields (a refined object keeps its shape). */
const fieldsOf = (schema: unknown): string[] => Object.keys((schema as { shape?: object } | undefined)?.shape ?? {});

/** No 5xx, and a refusal in the documented shape of the surface the path is on. */
async function expectRefusalInShape(res: Response, path: string, what: string): Promise<void> {
  const text = await res.text();
  expect(res.status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
  if (res.status < 400) return;
  const body = JSON.parse(text);
  if (path.startsWith('/resend/')) {
    expect(body, what).toEqual({ statusCode: res.status, name: expect.any(String), message: expect.any(String) });
  } else {
    expect(body.error, what).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  }
}

describe('every path and query parameter of the contract', () => {
  const withParams = operations.filter((op) => fieldsOf(op.params).length > 0 || fieldsOf(op.query).length > 0);
  /** A value the parameter's own schema takes, so a hostile value in another one is what the call meets. */
  const fillerOf = (schema: unknown) =>
    ['1', '3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4', 'a@example.com'].find(
      (v) => (schema as { safeParse?: (x: unknown) => { success: boolean } }).safeParse?.(v).success,
    ) ?? '1';

  for (const op of withParams) {
    const where = `${op.method.toUpperCase()} ${op.path}`;
    const shape = ((op.params as { shape?: Record<string, unknown> } | undefined)?.shape ?? {}) as Record<
      string,
      unknown
    >;
    const concrete = (path: string, values: Record<string, string> = {}) =>
      path.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? fillerOf(shape[name]));
    const send = (path: string, query = '') =>
      app.call(op.method.toUpperCase(), `${path}${query}`, {
        cookie,
        headers: authOf(op.access),
        ...(op.bodyExample === undefined ? {} : { body: op.bodyExample }),
      });

    it(`${where}: hostile values in each parameter never give a 5xx; refusals keep the surface's shape`, async () => {
      for (const name of fieldsOf(op.params)) {
        for (const value of HOSTILE_SEGMENTS) {
          const path = concrete(op.path, { [name]: value });
          await expectRefusalInShape(await send(path), op.path, `${where} ${name}=${value.slice(0, 40)}`);
        }
      }
      for (const name of fieldsOf(op.query)) {
        for (const value of HOSTILE_QUERY_VALUES) {
          await expectRefusalInShape(
            await send(concrete(op.path), `?${name}=${value}`),
            op.path,
            `${where} ?${name}=${value.slice(0, 40)}`,
          );
        }
        // a parameter given twice
        await expectRefusalInShape(await send(concrete(op.path), `?${name}=1&${name}=2`), op.path, `${where} twice`);
      }
      const all = fieldsOf(op.query);
      if (all.length > 0)
        await expectRefusalInShape(
          await send(concrete(op.path), `?${all.map((name) => `${name}=not-a-uuid`).join('&')}`),
          op.path,
          `${where} every query field`,
        );
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 40 }), async (text) => {
          const value = encodeBytes(text);
          const names = fieldsOf(op.params);
          const path = concrete(op.path, Object.fromEntries(names.map((name) => [name, value || 'x'])));
          const query = fieldsOf(op.query)
            .map((name) => `${name}=${value}`)
            .join('&');
          await expectRefusalInShape(await send(path, query ? `?${query}` : ''), op.path, `${where} ${value}`);
        }),
        { numRuns: 8 },
      );
    });
  }
});
