// The suppression list with the official `resend` SDK, unchanged, pointed at /resend over a real
// socket: add, get, list (cursor pages, origins), remove and the batch calls; the list is the one
// the console shows and sending honours (a send to a suppressed address ends `suppressed`, and
// after a removal the next one goes out), a hard bounce and an unsubscribe name their email as
// `source_id`, and what is not the caller's answers 404.
import { randomUUID } from 'node:crypto';
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAccount, TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { createApiKey } from '../../src/server/credentials/api-keys.service.ts';

let started: ResendApp;
let app: TestApp;
let sink: SmtpSink;
let account: TestAccount;
let cookie: string;
let baseUrl: string;
let apiKey: string;
let resend: Resend;
let other: Resend;

beforeAll(async () => {
  started = await startResendApp({ second: true });
  ({ app, account, resend, apiKey, baseUrl } = started);
  sink = started.sink!;
  other = started.other!;
  cookie = await app.signIn(account.email, account.password);
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
}, 240_000);

afterAll(async () => {
  await started?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const unique = (name: string) => `${name}-${randomUUID().slice(0, 8)}@customer.example`;

/** The transaction's status and its events, oldest first. */
async function transactionOf(uuid: string) {
  const tx = await app.ctx.db
    .selectFrom('transactions')
    .select(['id', 'status', 'delivered_status'])
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();
  const events = await app.ctx.db
    .selectFrom('events')
    .select(['type', 'data'])
    .where('transaction_id', '=', tx.id)
    .orderBy('id')
    .execute();
  return { status: tx.status, delivered: tx.delivered_status, events };
}

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const send = async (to: string) => {
  const { data, error } = await resend.emails.send({ from: 'orders@shop.example', to, subject: 'Hi', text: 'Hi' });
  expect(error).toBeNull();
  return data!.id;
};

const consoleSearch = async (email: string) => {
  const res = await app.call('POST', '/v1/suppression/search', { cookie, body: { page: 1, email } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { email: string; origin: string }[] }).data;
};

describe('resend.suppressions.* at /resend', () => {
  it('adds an address as manual, reads it by id and by address in any case; adding it again answers it', async () => {
    const email = unique('Ann');
    const added = await resend.suppressions.add({ email });
    expect(added.error).toBeNull();
    expect(added.data).toEqual({ object: 'suppression', id: expect.stringMatching(UUID) });
    const id = added.data!.id;

    const byId = await resend.suppressions.get(id);
    expect(byId).toMatchObject({
      error: null,
      data: { object: 'suppression', id, email, origin: 'manual', source_id: null },
    });
    expect(new Date(byId.data!.created_at).toISOString()).toBe(byId.data!.created_at);
    expect((await resend.suppressions.get(email.toUpperCase())).data).toEqual(byId.data);

    const again = await resend.suppressions.add({ email: email.toLowerCase() });
    expect(again.data).toEqual({ object: 'suppression', id });
    // the console's list is the same list: one entry, its origin user
    expect(await consoleSearch(email.toLowerCase())).toEqual([expect.objectContaining({ email, origin: 'user' })]);

    const bad = await resend.suppressions.add({ email: 'not-an-address' });
    expect(bad.data).toBeNull();
    expect(bad.error).toMatchObject({ statusCode: 422, name: 'validation_error', message: /not a valid email/ });
  });

  it('a send to an address the SDK suppressed ends suppressed; removed by the SDK, the next one goes out', async () => {
    const email = unique('signup');
    const { data: entry } = await resend.suppressions.add({ email });

    const blocked = await send(email);
    const first = await transactionOf(blocked);
    expect(first).toMatchObject({ status: 'failed', delivered: 'failed' });
    // the event the console's list causes too (sending.service.ts), which the webhooks read
    expect(first.events.map((e) => e.type)).toEqual(['queued', 'failed']);
    expect(first.events[1].data).toEqual({ reason: expect.stringMatching(/^suppressed: /) });
    expect((await resend.emails.get(blocked)).data).toMatchObject({ last_event: 'suppressed' });

    // the address signs up again: the application clears it
    const removed = await resend.suppressions.remove(email);
    expect(removed).toMatchObject({ error: null, data: { object: 'suppression', id: entry!.id, deleted: true } });
    expect(await consoleSearch(email)).toEqual([]);
    expect((await resend.suppressions.get(email)).error).toMatchObject({ statusCode: 404, name: 'not_found' });

    const before = sink.messages.length;
    const sent = await send(email);
    await sink.waitFor(before + 1);
    expect(sink.messages.slice(before).flatMap((m) => m.to)).toContain(email);
    expect(sink.messages.some((m) => m.to.includes(email) && m.from.includes(blocked))).toBe(false);
    const second = await until(
      () => transactionOf(sent),
      (t) => t.status === 'sent',
      'the delivery',
    );
    expect(second.events.map((e) => e.type)).toEqual(['queued', 'sent', 'delivered']);
  });

  it('an address the console listed is read and removed by the SDK, by id', async () => {
    const email = unique('console');
    const res = await app.call('POST', '/v1/suppression', { cookie, body: { emails: [email] } });
    expect(res.status).toBe(200);
    const { data } = await resend.suppressions.get(email);
    expect(data).toMatchObject({ email, origin: 'manual', source_id: null });
    expect((await resend.suppressions.remove(data!.id)).data).toEqual({
      object: 'suppression',
      id: data!.id,
      deleted: true,
    });
    expect(await consoleSearch(email)).toEqual([]);
    expect((await resend.suppressions.remove(data!.id)).error).toMatchObject({ statusCode: 404 });
  });

  it('a hard bounce lists the recipient as bounce with the email as source_id; origin filters the list', async () => {
    const email = unique('gone');
    sink.replies.set(email.toLowerCase(), [550, '5.1.1 User unknown']);
    const id = await send(email);
    const { data } = await until(
      () => resend.suppressions.get(email),
      (r) => r.data !== null,
      'the bounce to list the address',
    );
    expect(data).toMatchObject({ email, origin: 'bounce', source_id: id });
    expect((await resend.emails.get(data!.source_id!)).data).toMatchObject({ id, last_event: 'bounced' });

    const bounces = await resend.suppressions.list({ origin: 'bounce', limit: 100 });
    expect(bounces.data!.data.map((s) => s.email)).toContain(email);
    expect(bounces.data!.data.every((s) => s.origin === 'bounce')).toBe(true);
    const manual = await resend.suppressions.list({ origin: 'manual', limit: 100 });
    expect(manual.data!.data.map((s) => s.email)).not.toContain(email);
    expect(manual.data!.data.every((s) => s.origin === 'manual' && s.source_id === null)).toBe(true);
  });

  it('an unsubscribe, the recipient’s own word, lists the address as complaint with its email', async () => {
    const email = unique('leaver');
    const id = await send(email);
    const res = await app.call('POST', '/v1/unsubscribe', { body: { transaction_id: id } });
    expect(res.status).toBe(200);
    expect((await resend.suppressions.get(email)).data).toMatchObject({ origin: 'complaint', source_id: id });
    const complaints = await resend.suppressions.list({ origin: 'complaint' });
    expect(complaints.data!.data.map((s) => s.email)).toContain(email);
  });

  it('lists in cursor pages, newest first, with has_more in the direction asked', async () => {
    const emails = [1, 2, 3, 4, 5].map((n) => unique(`page${n}`));
    for (const email of emails) await resend.suppressions.add({ email });
    const all = (await resend.suppressions.list({ limit: 100 })).data!;
    expect(all).toMatchObject({ object: 'list', has_more: false });
    expect(all.data.slice(0, 5).map((s) => s.email)).toEqual([...emails].reverse());
    for (let i = 1; i < all.data.length; i++) expect(all.data[i - 1].created_at >= all.data[i].created_at).toBe(true);

    const first = (await resend.suppressions.list({ limit: 2 })).data!;
    expect(first.has_more).toBe(true);
    expect(first.data.map((s) => s.email)).toEqual([emails[4], emails[3]]);
    const next = (await resend.suppressions.list({ limit: 2, after: first.data[1].id })).data!;
    expect(next.data.map((s) => s.email)).toEqual([emails[2], emails[1]]);
    expect(next.has_more).toBe(true);
    const back = (await resend.suppressions.list({ limit: 2, before: next.data[0].id })).data!;
    expect(back).toEqual({ ...first, has_more: false });
    const last = (await resend.suppressions.list({ limit: 100, after: all.data.at(-2)!.id })).data!;
    expect(last).toEqual({ object: 'list', has_more: false, data: [all.data.at(-1)] });
  });

  it('batch.add lists each address all or none; batch.remove takes off those named by email or by id', async () => {
    const [a, b, c] = ['ba', 'bb', 'bc'].map(unique);
    const refused = await resend.suppressions.batch.add({ emails: [a, 'nope', b] });
    expect(refused.error).toMatchObject({ statusCode: 422, message: /emails\.1: 'nope' is not a valid email/ });
    expect((await resend.suppressions.get(a)).error).toMatchObject({ statusCode: 404 });

    const { data: existing } = await resend.suppressions.add({ email: c });
    const added = await resend.suppressions.batch.add({ emails: [a, b, c.toUpperCase(), a] });
    expect(added.error).toBeNull();
    const ids = added.data!.data.map((s) => s.id);
    expect(ids).toHaveLength(4);
    expect(ids[2]).toBe(existing!.id);
    expect(ids[3]).toBe(ids[0]);
    expect(new Set(ids).size).toBe(3);

    const byEmail = await resend.suppressions.batch.remove({ emails: [a, unique('never')] });
    expect(byEmail.data).toEqual({ data: [{ object: 'suppression', id: ids[0], deleted: true }] });
    const byId = await resend.suppressions.batch.remove({ ids: [ids[1], 'not-a-uuid', randomUUID(), ids[2]] });
    expect(byId.data).toEqual({
      data: [
        { object: 'suppression', id: ids[1], deleted: true },
        { object: 'suppression', id: ids[2], deleted: true },
      ],
    });
    for (const email of [a, b, c])
      expect((await resend.suppressions.get(email)).error).toMatchObject({ statusCode: 404 });

    const post = (body: unknown) =>
      fetch(`${baseUrl}/suppressions/batch/remove`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const body of [{ emails: [a], ids: [ids[0]] }, {}, { ids: [] }]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ statusCode: 400, name: 'validation_error' });
    }
  });

  it('answers 404, never 500, for a malformed id, an unknown address or another account’s entry', async () => {
    const email = unique('mine');
    const { data } = await resend.suppressions.add({ email });
    for (const key of ['not-an-id', '12345', randomUUID(), 'nobody@customer.example', '%', "x'; drop table x"]) {
      expect((await resend.suppressions.get(key)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
      expect((await resend.suppressions.remove(key)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    }
    for (const key of [data!.id, email]) {
      expect((await other.suppressions.get(key)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
      expect((await other.suppressions.remove(key)).error).toMatchObject({ statusCode: 404 });
    }
    expect((await other.suppressions.batch.remove({ ids: [data!.id] })).data).toEqual({ data: [] });
    expect((await other.suppressions.list()).data).toEqual({ object: 'list', has_more: false, data: [] });
    expect((await other.suppressions.list({ after: data!.id })).error).toMatchObject({ statusCode: 404 });
    expect((await resend.suppressions.list({ after: 'not-an-id' })).error).toMatchObject({ statusCode: 404 });
    expect((await resend.suppressions.get(email)).data).toMatchObject({ id: data!.id });

    // a sending_access key only sends
    const { token } = await createApiKey(app.ctx, account.customerId, { name: 'send', permission: 'sending_access' });
    const sender = new Resend(token, { baseUrl });
    expect((await sender.suppressions.get(email)).error).toMatchObject({ statusCode: 403, name: 'restricted_api_key' });
    expect((await sender.suppressions.add({ email: unique('x') })).error).toMatchObject({ statusCode: 403 });

    const res = await fetch(`${baseUrl}/suppressions?origin=unsubscribe`, {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ name: 'validation_error' });
  });
});
