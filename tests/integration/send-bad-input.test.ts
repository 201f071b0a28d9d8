// Every way a send request can be wrong: a 4xx in the one error shape { error: { code, message } },
// a message that says what to fix, never a stack trace, and nothing queued (no message row, no
// transaction row).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole, rotateCredentials } from '../../src/server/credentials/credentials.service.ts';
import { MAX_MESSAGE_BYTES } from '../../src/server/sending/mail.schema.ts';

let app: TestApp;
let account: TestAccount;
let apiKey: string;
let apiUser: string;

beforeAll(async () => {
  app = await createTestApp();
  account = await app.createAccount();
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  await addDomain(app.ctx, account.customerId, 'pending.example');
  const other = await app.createAccount();
  await addDomain(app.ctx, other.customerId, 'other.example', { verified: true });
  const creds = await credentialsForConsole(app.ctx, account.customerId);
  apiKey = creds.apiCredentials.apiKey;
  apiUser = creds.apiCredentials.username;
});
afterAll(async () => app?.close());

const good = { from: 'Shop <orders@shop.example>', to: 'ann@customer.example', subject: 'Your order', text: 'Thanks' };

function post(
  path: string,
  body: unknown,
  opts: { raw?: string; headers?: Record<string, string>; target?: TestApp } = {},
) {
  return (opts.target ?? app).api.request(`http://localhost:4321${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...opts.headers },
    body: opts.raw ?? JSON.stringify(body),
  });
}
const send = (body: unknown, opts: Parameters<typeof post>[2] = {}) => post('/v1/mail', body, opts);

/** Rows a send writes: one message per request, one transaction per recipient. */
async function queued(target: TestApp = app) {
  const count = async (table: 'messages' | 'transactions') =>
    Number(
      (
        await target.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { messages: await count('messages'), transactions: await count('transactions') };
}

/** Fails when a response body looks like it carries a stack trace or a source path. */
function expectNoStack(text: string) {
  expect(text).not.toMatch(/\bat\s+[\w$.<>]+\s*\(/);
  expect(text).not.toMatch(/\bat\s+(file:|node:|\/)/);
  expect(text).not.toMatch(/\.(ts|js|mjs):\d+/);
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/stack/i);
}

interface ErrorBody {
  code: string;
  message: string;
  details?: { path: string; message: string }[];
}

/** Runs the request and checks it was refused with `status`/`code` and wrote nothing. */
async function refused(
  request: () => Response | Promise<Response>,
  status: number,
  code: string,
  target: TestApp = app,
): Promise<ErrorBody> {
  const before = await queued(target);
  const res = await request();
  const text = await res.text();
  expectNoStack(text);
  expect({ status: res.status, body: text }).toMatchObject({ status });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(10);
  expect(await queued(target)).toEqual(before);
  return body.error;
}

describe('POST /v1/mail bad input', () => {
  it('queues a good request (the control for every refusal below)', async () => {
    const before = await queued();
    const res = await send(good);
    expect(res.status).toBe(202);
    expect(await queued()).toEqual({ messages: before.messages + 1, transactions: before.transactions + 1 });
  });

  it.each(['{"from":', "{from: 'a@shop.example'}", 'from=a@shop.example', '', '{"subject":"x",}'])(
    'answers 400 invalid_json for the body %j',
    async (raw) => {
      const error = await refused(() => send(undefined, { raw }), 400, 'invalid_json');
      expect(error.message).toMatch(/not valid JSON/);
    },
  );

  it('answers 400 validation_failed with one detail per wrong or missing field', async () => {
    const error = await refused(
      () => send({ from: 5, to: ['ann@customer.example'], text: ['x'] }),
      400,
      'validation_failed',
    );
    expect(error.details!.map((d) => d.path).sort()).toEqual(['from', 'subject', 'text']);
    expect(error.message).toContain('subject');
  });

  it('names an unknown field', async () => {
    const error = await refused(() => send({ ...good, priority: 'high' }), 400, 'validation_failed');
    expect(error.message).toContain('priority');
  });

  it.each([
    ['another customer’s verified domain', 'orders@other.example', 'other.example'],
    ['its own unverified domain', 'orders@pending.example', 'pending.example'],
    ['a domain nobody has', 'orders@nobody.example', 'nobody.example'],
  ])('answers 422 domain_not_verified for a From on %s', async (_, from, domain) => {
    const error = await refused(() => send({ ...good, from }), 422, 'domain_not_verified');
    expect(error.message).toContain(domain);
  });

  it.each(['Hello\r\nBcc: victim@example.com', 'Hello\nBcc: victim@example.com', 'Hello\rthere'])(
    'refuses a line break in the subject (%j)',
    async (subject) => {
      const error = await refused(() => send({ ...good, subject }), 400, 'validation_failed');
      expect(error.details).toEqual([{ path: 'subject', message: expect.stringMatching(/line break/) }]);
    },
  );

  it('refuses a NUL character in the subject', async () => {
    const error = await refused(() => send({ ...good, subject: 'Hello\u0000there' }), 400, 'validation_failed');
    expect(error.message).toMatch(/subject.*NUL/);
  });

  it.each([
    ['a line break in a value', { 'X-Order': '1\r\nBcc: victim@example.com' }, /line break/],
    ['a bare LF in a value', { 'X-Order': '1\nBcc: victim@example.com' }, /line break/],
    ['a colon in a name', { 'X-Order:Bcc': '1' }, /not a valid header name/],
    ['a space in a name', { 'X Order': '1' }, /not a valid header name/],
    ['a line break in a name', { 'X-Order\r\nBcc': 'victim@example.com' }, /not a valid header name/],
    ['the reserved header Bcc', { Bcc: 'victim@example.com' }, /set by the service/],
    ['the reserved header From', { from: 'ceo@bank.example' }, /set by the service/],
    ['the reserved header DKIM-Signature', { 'DKIM-Signature': 'v=1; d=bank.example' }, /set by the service/],
  ])('refuses headers with %s', async (_, headers, message) => {
    const error = await refused(() => send({ ...good, headers }), 400, 'validation_failed');
    expect(error.details![0].path).toMatch(/^headers\./);
    expect(error.message).toMatch(message);
  });

  const recipients = (n: number, prefix = 'r') => Array.from({ length: n }, (_, i) => `${prefix}${i}@customer.example`);

  it('refuses 51 recipients in to, and 51 over to, cc and bcc together', async () => {
    let error = await refused(() => send({ ...good, to: recipients(51) }), 400, 'validation_failed');
    expect(error.message).toMatch(/at most 50 recipients/);
    error = await refused(
      () => send({ ...good, to: recipients(20, 't'), cc: recipients(20, 'c'), bcc: recipients(11, 'b') }),
      400,
      'validation_failed',
    );
    expect(error.message).toMatch(/at most 50 recipients.*has 51/);
  });

  it('refuses far too many recipients with the same limit in the message', async () => {
    const error = await refused(() => send({ ...good, to: recipients(200) }), 400, 'validation_failed');
    expect(error.message).toMatch(/at most 50 recipients/);
  });

  it('accepts exactly 50 recipients over to, cc and bcc', async () => {
    const before = await queued();
    const res = await send({ ...good, to: recipients(30, 't'), cc: recipients(10, 'c'), bcc: recipients(10, 'b') });
    expect(res.status).toBe(202);
    expect((await res.json()).data).toHaveLength(50);
    expect(await queued()).toEqual({ messages: before.messages + 1, transactions: before.transactions + 50 });
  });

  it.each([
    ['a path', { filename: 'passwd', path: '/etc/passwd' }, /path/],
    ['a URL', { filename: 'logo.png', href: 'http://169.254.169.254/latest/meta-data/' }, /href/],
    ['content that is not base64', { filename: 'a.txt', content: 'this is not base64!' }, /base64/],
    ['base64 of the wrong length', { filename: 'a.txt', content: 'YWJjZA=' }, /base64/],
    ['a file name with a directory', { filename: '../../etc/passwd', content: 'YWJj' }, /plain file name/],
  ])('refuses an attachment given as %s', async (_, attachment, message) => {
    const error = await refused(() => send({ ...good, attachments: [attachment] }), 400, 'validation_failed');
    expect(error.message).toMatch(/attachments\.0/);
    expect(error.message).toMatch(message);
  });

  it.each([
    ['to', { to: '"a@x y"@victim.example' }],
    ['to, with a name', { to: 'Ann <"a@x y"@victim.example>' }],
    ['from', { from: '"orders@shop.example x"@victim.example' }],
    ['from, as an object', { from: { email: '"a@x y"@shop.example', name: 'Shop' } }],
  ])('refuses a quoted local part in %s (the "a@x y"@victim trick)', async (_, fields) => {
    const error = await refused(() => send({ ...good, ...fields }), 400, 'validation_failed');
    expect(error.message).toMatch(/not a valid (email )?address/);
  });

  it('refuses a template_id the account does not have (templates: tests/integration/templates.test.ts)', async () => {
    const error = await refused(
      () => send({ from: good.from, to: good.to, subject: 'Hi', template_id: 'welcome' }),
      404,
      'not_found',
    );
    expect(error.message).toMatch(/No template 'welcome'/);
  });

  it('refuses an Idempotency-Key longer than 256 characters, and takes one of 256', async () => {
    const error = await refused(
      () => send(good, { headers: { 'Idempotency-Key': 'k'.repeat(257) } }),
      400,
      'validation_failed',
    );
    expect(error.message).toMatch(/Idempotency-Key/);
    expect((await send(good, { headers: { 'Idempotency-Key': 'k'.repeat(256) } })).status).toBe(202);
  });

  it('refuses text that PostgreSQL cannot store (a lone UTF-16 surrogate) with a 400, not a 500', async () => {
    const error = await refused(
      () =>
        send(undefined, {
          raw: JSON.stringify({ ...good, to: { email: 'ann@customer.example', name: 'Ann' } }).replace(
            '"Ann"',
            '"Ann \\ud800"',
          ),
        }),
      400,
      'validation_failed',
    );
    expect(error.message).toMatch(/to\.name/);
    const metadata = await refused(
      () => send(undefined, { raw: JSON.stringify({ ...good, metadata: { order: 'x' } }).replace('"x"', '"\\udc00"') }),
      400,
      'validation_failed',
    );
    expect(metadata.message).toMatch(/metadata\.order/);
  });

  it.each([
    ['[]'],
    ['null'],
    ['"mail"'],
    ['42'],
    ['{"from":{"email":{}},"to":[[]],"subject":{},"text":1}'],
    ['{"to":{"email":"a@b.example","name":{"x":1}}}'],
    ['{"headers":[1,2]}'],
    ['{"attachments":{"0":{}}}'],
  ])('answers a 4xx, never a 500, for the odd body %s', async (raw) => {
    const error = await refused(() => send(undefined, { raw }), 400, 'validation_failed');
    expect(error.details!.length).toBeGreaterThan(0);
  });
});

describe('POST /v1/mail body size', () => {
  it('answers 413 payload_too_large for a body over SEND_BODY_LIMIT_BYTES', async () => {
    const small = await createTestApp({ SEND_BODY_LIMIT_BYTES: '100000' });
    try {
      const owner = await small.createAccount();
      await addDomain(small.ctx, owner.customerId, 'shop.example', { verified: true });
      const key = (await credentialsForConsole(small.ctx, owner.customerId)).apiCredentials.apiKey;
      const headers = { Authorization: `Bearer ${key}` };
      const error = await refused(
        () => send({ ...good, text: 'x'.repeat(100_001) }, { target: small, headers }),
        413,
        'payload_too_large',
        small,
      );
      expect(error.message).toMatch(/larger than 100000 bytes/);
      // just under the limit goes through
      expect((await send({ ...good, text: 'x'.repeat(90_000) }, { target: small, headers })).status).toBe(202);
    } finally {
      await small.close();
    }
  });

  it('refuses a message whose decoded attachments exceed 25 MB', { timeout: 60_000 }, async () => {
    // 26 MB decoded, ~35 MB of base64
    const content = Buffer.alloc(MAX_MESSAGE_BYTES + 1024 * 1024, 7).toString('base64');
    const error = await refused(
      () => send({ ...good, attachments: [{ filename: 'big.bin', content }] }),
      400,
      'validation_failed',
    );
    expect(error.message).toMatch(/attachments: the message is larger than 25 MB/);
  });
});

describe('POST /v1/mail API key', () => {
  const withAuth = (authorization?: string) =>
    send(good, { headers: authorization === undefined ? { Authorization: '' } : { Authorization: authorization } });

  it('answers 401 without an API key, naming the header to send', async () => {
    const before = await queued();
    const res = await app.api.request('http://localhost:4321/v1/mail', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(good),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const { error } = await res.json();
    expect(error).toEqual({ code: 'unauthorized', message: expect.stringMatching(/Authorization: Bearer/) });
    expect(await queued()).toEqual(before);
  });

  it.each([
    ['an empty header', ''],
    ['a malformed header', `Token ${'x'}`],
    ['Bearer with no key', 'Bearer'],
    ['Bearer with two words', 'Bearer tsk_a tsk_b'],
    ['Basic that is not base64', 'Basic !!!'],
    ['Basic with no username', () => `Basic ${Buffer.from(`:${apiKey}`).toString('base64')}`],
    ['an unknown key', `Bearer tsk_${'A'.repeat(40)}`],
    ['a key without our prefix', 'Bearer re_123456789'],
    [
      'the right key under a wrong Basic username',
      () => `Basic ${Buffer.from(`${apiUser}x:${apiKey}`).toString('base64')}`,
    ],
    ['the right key in the username of Basic', () => `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`],
  ])('answers 401 unauthorized for %s', async (_, header) => {
    const authorization = typeof header === 'function' ? header() : header;
    const error = await refused(() => withAuth(authorization), 401, 'unauthorized');
    expect(error.message).toMatch(/API key/);
  });

  it('answers 401 for a key revoked by rotating credentials, and takes the new one', async () => {
    const owner = await app.createAccount();
    await addDomain(app.ctx, owner.customerId, 'rotated.example', { verified: true });
    const old = (await credentialsForConsole(app.ctx, owner.customerId)).apiCredentials;
    const body = { ...good, from: 'orders@rotated.example' };
    expect((await send(body, { headers: { Authorization: `Bearer ${old.apiKey}` } })).status).toBe(202);
    await rotateCredentials(app.ctx, owner.customerId);
    await refused(() => send(body, { headers: { Authorization: `Bearer ${old.apiKey}` } }), 401, 'unauthorized');
    await refused(
      () =>
        send(body, {
          headers: { Authorization: `Basic ${Buffer.from(`${old.username}:${old.apiKey}`).toString('base64')}` },
        }),
      401,
      'unauthorized',
    );
    const fresh = (await credentialsForConsole(app.ctx, owner.customerId)).apiCredentials;
    expect(fresh.apiKey).not.toBe(old.apiKey);
    expect((await send(body, { headers: { Authorization: `Bearer ${fresh.apiKey}` } })).status).toBe(202);
  });
});

describe('POST /v1/mail/batch bad input', () => {
  const batch = (body: unknown) => post('/v1/mail/batch', body);

  it('refuses 501 messages, naming the limit', async () => {
    const error = await refused(() => batch(Array.from({ length: 501 }, () => good)), 400, 'validation_failed');
    expect(error.message).toMatch(/1 to 500 messages; this one has 501/);
  });

  it('refuses an empty batch', async () => {
    const error = await refused(() => batch({ messages: [] }), 400, 'validation_failed');
    expect(error.message).toMatch(/1 to 500 messages/);
  });

  it('refuses the whole batch when one message is bad, naming its index', async () => {
    const messages = [good, good, { ...good, subject: 'Bad\r\nBcc: victim@example.com' }, good];
    const error = await refused(() => batch(messages), 400, 'validation_failed');
    expect(error.details).toEqual([{ path: '2.subject', message: expect.stringMatching(/line break/) }]);
    expect(error.message).toContain('2.subject');
  });

  it('refuses the whole batch when one message has a bad address, naming its index', async () => {
    const error = await refused(
      () => batch({ messages: [good, { ...good, to: 'not an address' }] }),
      400,
      'validation_failed',
    );
    expect(error.details).toEqual([{ path: '1.to.0', message: expect.stringMatching(/not a valid email address/) }]);
  });

  it('refuses the whole batch when one message is from an unverified domain, naming its index', async () => {
    const error = await refused(
      () => batch([good, good, good, { ...good, from: 'orders@pending.example' }]),
      422,
      'domain_not_verified',
    );
    expect(error.message).toContain('pending.example');
    expect(error.details).toEqual([{ path: '3.from', message: expect.stringContaining('pending.example') }]);
  });

  it('queues a batch of good messages (the control)', async () => {
    const before = await queued();
    const res = await batch([good, { ...good, to: ['a@customer.example', 'b@customer.example'] }]);
    expect(res.status).toBe(202);
    expect(await queued()).toEqual({ messages: before.messages + 2, transactions: before.transactions + 3 });
  });
});

describe('the send calls and a body in another media type', () => {
  const sends = [
    ['/v1/mail', good],
    ['/v1/mail/batch', [good]],
    ['/v1/emails', good],
    ['/v1/emails/batch', [good]],
  ] as const;
  const asType = (path: string, body: unknown, type: string) =>
    post(path, undefined, { raw: JSON.stringify(body), headers: { 'Content-Type': type } });

  it.each(sends)('%s answers 415 for JSON sent as text/plain or as a form, and queues nothing', async (path, body) => {
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded']) {
      const before = await queued();
      const res = await asType(path, body, type);
      expect(res.status, `${path} as ${type}`).toBe(415);
      const answer = await res.json();
      expect(answer.error).toEqual({
        code: 'unsupported_media_type',
        message: `This call takes a request body in application/json, not ${type.split(';')[0]}`,
      });
      // /v1/emails answers in Resend's shape too: its fields beside our error (resend-sdk.test.ts)
      if (path.startsWith('/v1/emails'))
        expect(answer).toEqual({
          error: answer.error,
          statusCode: 415,
          name: 'validation_error',
          message: answer.error.message,
        });
      else expect(Object.keys(answer)).toEqual(['error']);
      expect(await queued()).toEqual(before);
    }
  });

  it.each(sends)('%s queues JSON labelled application/json with a charset (the control)', async (path, body) => {
    const res = await asType(path, body, 'application/json; charset=utf-8');
    expect(res.status).toBeLessThan(300);
  });
});
