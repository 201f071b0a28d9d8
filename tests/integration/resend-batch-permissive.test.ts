// resend.batch.send with the official SDK, unchanged, over a real socket, at /resend and at /v1:
// `batchValidation: 'permissive'` (the x-batch-validation header) accepts the valid messages and
// answers the others in `errors` by index, all-invalid included; `strict`, the default, stays all
// or nothing; an Idempotency-Key replays a permissive answer, errors and all, even once the refused
// message would pass.
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { createApiKey } from '../../src/server/credentials/api-keys.service.ts';

let started: ResendApp;
let app: TestApp;
let sink: SmtpSink;
let server: ResendApp['server'];
let apiKey: string;
let customerId: number;
let resend: Resend;
let atV1: Resend;
let shopDomainId: number;

beforeAll(async () => {
  started = await startResendApp();
  ({ app, server, resend, apiKey } = started);
  sink = started.sink!;
  customerId = started.account.customerId;
  shopDomainId = (await addDomain(app.ctx, customerId, 'shop.example', { verified: true })).id;
  await addDomain(app.ctx, customerId, 'pending.example');
  await addDomain(app.ctx, customerId, 'later.example');
  atV1 = new Resend(apiKey, { baseUrl: `${started.server.origin}/v1` });
}, 240_000);

afterAll(async () => {
  await started?.close();
});

const countTransactions = async () =>
  Number(
    (
      await app.ctx.db
        .selectFrom('transactions')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('customer_id', '=', customerId)
        .executeTakeFirstOrThrow()
    ).n,
  );
const recipientOf = async (uuid: string) =>
  (await app.ctx.db.selectFrom('transactions').select('to_email').where('uuid', '=', uuid).executeTakeFirst())
    ?.to_email;

const valid = (to: string) => ({ from: 'Shop <orders@shop.example>', to, subject: 'Hi', text: 'Hi' });
/** A message with no subject, and one From a domain of the account that is not verified. */
const invalid = () => [
  // JSON leaves an undefined field out: the SDK's type wants a subject, the server gets none
  { ...valid('nosubject@customer.example'), subject: undefined as unknown as string },
  { ...valid('unverified@customer.example'), from: 'orders@pending.example' },
];

describe('resend.batch.send with batchValidation', () => {
  it.each([
    ['/resend', () => resend],
    ['/v1', () => atV1],
  ])('permissive at %s: sends the valid messages, answers the others by index', async (base, client) => {
    const before = await countTransactions();
    const delivered = sink.messages.length;
    const tag = base.slice(1);
    const [noSubject, unverified] = invalid();
    const { data, error } = await client().batch.send(
      [valid(`first-${tag}@customer.example`), noSubject, unverified, valid(`last-${tag}@customer.example`)],
      { batchValidation: 'permissive' },
    );
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);
    expect(await recipientOf(data!.data[0].id)).toBe(`first-${tag}@customer.example`);
    expect(await recipientOf(data!.data[1].id)).toBe(`last-${tag}@customer.example`);
    expect(data!.errors).toEqual([
      { index: 1, message: expect.stringMatching(/subject/) },
      { index: 2, message: 'The domain pending.example is not a verified sending domain of this account' },
    ]);
    expect(await countTransactions()).toBe(before + 2);
    const arrived = (await sink.waitFor(delivered + 2)).slice(delivered);
    expect(arrived.flatMap((m) => m.to).sort()).toEqual([
      `first-${tag}@customer.example`,
      `last-${tag}@customer.example`,
    ]);
  });

  it('permissive with no valid message answers 200 with every error and sends nothing', async () => {
    const before = await countTransactions();
    const { data, error } = await resend.batch.send(invalid(), { batchValidation: 'permissive' });
    expect(error).toBeNull();
    expect(data).toEqual({
      data: [],
      errors: [
        { index: 0, message: expect.stringMatching(/subject/) },
        { index: 1, message: expect.stringMatching(/pending\.example is not a verified sending domain/) },
      ],
    });
    expect(await countTransactions()).toBe(before);
  });

  it('strict, the default and when named, sends nothing when one message is refused', async () => {
    const before = await countTransactions();
    const items = [valid('strict@customer.example'), invalid()[1]];
    for (const options of [undefined, { batchValidation: 'strict' as const }]) {
      const { data, error } = await resend.batch.send(items, options);
      expect(data).toBeNull();
      expect(error).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
        message: expect.stringMatching(/^Message 1: .*pending\.example/),
      });
    }
    const noSubject = await resend.batch.send([valid('strict@customer.example'), invalid()[0]]);
    expect(noSubject.error).toMatchObject({ statusCode: 400, message: expect.stringMatching(/1\.subject/) });
    const ok = await resend.batch.send([valid('strict@customer.example')], { batchValidation: 'strict' });
    expect(ok.error).toBeNull();
    expect(ok.data).toEqual({ data: [{ id: expect.any(String) }] });
    expect(await countTransactions()).toBe(before + 1);
  });

  it('permissive with a key kept to one domain answers a message From another by index', async () => {
    const { token } = await createApiKey(app.ctx, customerId, {
      name: 'Shop only',
      permission: 'sending_access',
      domainId: shopDomainId,
    });
    const kept = new Resend(token, { baseUrl: `${server.origin}/resend` });
    const before = await countTransactions();
    const { data, error } = await kept.batch.send(
      [valid('kept@customer.example'), { ...valid('other@customer.example'), from: 'orders@later.example' }],
      { batchValidation: 'permissive' },
    );
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(1);
    expect(data!.errors).toEqual([{ index: 1, message: 'This API key may only send from shop.example' }]);
    expect(await countTransactions()).toBe(before + 1);
  });

  it('refuses an x-batch-validation it does not know', async () => {
    const res = await fetch(`${server.origin}/resend/emails/batch`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${apiKey}`,
        'Content-Type': 'application/json',
        'x-batch-validation': 'lenient',
      },
      body: JSON.stringify([valid('lenient@customer.example')]),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ name: 'validation_error', message: /x-batch-validation/ });
  });

  it('an Idempotency-Key replays a permissive answer, errors included; a strict retry with it is refused', async () => {
    const items = [valid('once@customer.example'), invalid()[1]];
    const options = { batchValidation: 'permissive' as const, idempotencyKey: 'permissive-1' };
    const first = await resend.batch.send(items, options);
    expect(first.error).toBeNull();
    expect(first.data!.errors).toHaveLength(1);
    const before = await countTransactions();
    const again = await resend.batch.send(items, options);
    expect(again).toMatchObject({ data: first.data, error: null });
    expect(await countTransactions()).toBe(before);

    const strict = await resend.batch.send(items, { idempotencyKey: 'permissive-1' });
    expect(strict.error).toMatchObject({ statusCode: 409, name: 'invalid_idempotent_request' });
    expect(await countTransactions()).toBe(before);
  });

  it('an Idempotency-Key replays an all-invalid answer even once the message would pass', async () => {
    const items = [{ ...valid('later@customer.example'), from: 'orders@later.example' }];
    const options = { batchValidation: 'permissive' as const, idempotencyKey: 'permissive-none' };
    const first = await resend.batch.send(items, options);
    expect(first.data).toEqual({ data: [], errors: [{ index: 0, message: expect.stringMatching(/later\.example/) }] });

    await app.ctx.db
      .updateTable('domains')
      .set({ sending_verified: true })
      .where('customer_id', '=', customerId)
      .where('domain', '=', 'later.example')
      .execute();
    const before = await countTransactions();
    const replay = await resend.batch.send(items, options);
    expect(replay).toMatchObject({ data: first.data, error: null });
    expect(await countTransactions()).toBe(before);

    const fresh = await resend.batch.send(items, { batchValidation: 'permissive' });
    expect(fresh.data).toEqual({ data: [{ id: expect.any(String) }], errors: [] });
    expect(await countTransactions()).toBe(before + 1);
  });
});
