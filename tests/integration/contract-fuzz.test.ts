// Property tests over every operation of the contract that takes a JSON body (fast-check): any JSON
// value, objects with the documented fields given wrong types and over-long strings, control and
// NUL characters, deep nesting and huge arrays, and the wrong content type, never answer a 5xx; a
// 4xx answers the error envelope (the helper's hook checks every answer against the document).
// The operation's documented example is accepted with a documented 2xx or a documented refusal.
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
