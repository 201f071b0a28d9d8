// The integrator's loop with the official `resend` SDK, unchanged, pointed at /resend over a real
// socket: send with tags and scheduledAt, read back, list in cursor pages, move and cancel a
// scheduled message, and the refusals the SDK reads (`{ statusCode, name, message }` alone). The
// delivery worker runs against a local SMTP sink, so "not before its time" is seen where mail arrives.
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendAsClient, type TestAccount, type TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';

let started: ResendApp;
let app: TestApp;
let sink: SmtpSink;
let account: TestAccount;
let apiKey: string;
let resend: Resend;
let baseUrl: string;

beforeAll(async () => {
  started = await startResendApp();
  ({ app, account, resend, apiKey, baseUrl } = started);
  sink = started.sink!;
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
}, 240_000);

afterAll(async () => {
  await started?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const message = (to: string, subject = 'Your receipt') => ({
  from: 'Shop <orders@shop.example>',
  to: [to],
  subject,
  html: '<p>Thanks</p>',
  text: 'Thanks',
});

/** Reads the message back until `ready` holds (delivery runs on its own), for at most `ms`. */
async function getUntil(id: string, ready: (last: string) => boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const { data, error } = await resend.emails.get(id);
    expect(error).toBeNull();
    if (ready(data!.last_event) || Date.now() > deadline) return data!;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const arrived = (to: string) => sink.messages.filter((m) => m.to.includes(to));

describe('the resend SDK at /resend', () => {
  it('sends with tags, then reads the message back in Resend’s shape until it is delivered', async () => {
    const sent = await resend.emails.send({
      ...message('read@customer.example'),
      cc: ['copy@customer.example'],
      bcc: ['hidden@customer.example'],
      replyTo: 'Support <support@shop.example>',
      tags: [
        { name: 'category', value: 'receipt' },
        { name: 'group', value: 'Receipts' },
      ],
    });
    expect(sent.error).toBeNull();
    expect(sent.data!.id).toMatch(UUID);
    const email = await getUntil(sent.data!.id, (last) => last === 'delivered');
    expect(email).toEqual({
      object: 'email',
      id: sent.data!.id,
      from: 'Shop <orders@shop.example>',
      to: ['read@customer.example'],
      cc: ['copy@customer.example'],
      bcc: ['hidden@customer.example'],
      reply_to: ['Support <support@shop.example>'],
      subject: 'Your receipt',
      html: '<p>Thanks</p>',
      text: 'Thanks',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      scheduled_at: null,
      last_event: 'delivered',
      message_id: expect.stringMatching(/^<.+@shop\.example>$/),
      tags: [
        { name: 'category', value: 'receipt' },
        { name: 'group', value: 'Receipts' },
      ],
    });
  });

  it('reads back a /v1/mail message by any recipient’s trans_uuid, and answers 404 for another account’s', async () => {
    const res = await sendAsClient(app, '/v1/mail', apiKey, {
      from: 'orders@shop.example',
      to: ['one@customer.example', 'two@customer.example'],
      subject: 'Two',
      text: 'Two',
      tags: ['plain'],
    });
    expect(res.status).toBe(202);
    const [first, second] = ((await res.json()) as { data: { trans_uuid: string }[] }).data;
    const viaSecond = await resend.emails.get(second.trans_uuid);
    expect(viaSecond.data).toMatchObject({
      id: first.trans_uuid,
      to: ['one@customer.example', 'two@customer.example'],
      bcc: null,
      html: null,
      text: 'Two',
      tags: [{ name: 'plain', value: '' }],
    });

    const other = await app.createAccount();
    await addDomain(app.ctx, other.customerId, 'other.example', { verified: true });
    const otherKey = (await credentialsForConsole(app.ctx, other.customerId)).apiCredentials.apiKey;
    const stranger = new Resend(otherKey, { baseUrl });
    const refused = await stranger.emails.get(first.trans_uuid);
    expect(refused).toMatchObject({ data: null, error: { statusCode: 404, name: 'not_found' } });
  });

  it('lists the account’s messages newest first in cursor pages, after and before', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const { data } = await resend.emails.send(message(`list${n}@customer.example`, `List ${n}`));
      ids.push(data!.id);
    }
    const newest = await resend.emails.list({ limit: 2 });
    expect(newest.error).toBeNull();
    expect(newest.data).toMatchObject({ object: 'list', has_more: true });
    expect(newest.data!.data.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect(newest.data!.data[0]).not.toHaveProperty('html');

    const next = await resend.emails.list({ limit: 2, after: ids[1] });
    expect(next.data!.data[0].id).toBe(ids[0]);
    const previous = await resend.emails.list({ limit: 1, before: ids[0] });
    expect(previous.data).toMatchObject({ has_more: true, data: [{ id: ids[1] }] });
    const newer = await resend.emails.list({ limit: 5, before: ids[1] });
    expect(newer.data).toMatchObject({ has_more: false, data: [{ id: ids[2] }] });

    const bad = await resend.emails.list({ limit: 101 });
    expect(bad).toMatchObject({ data: null, error: { statusCode: 400, name: 'validation_error' } });
  });

  it('holds a scheduled message until its time, then sends it within seconds', async () => {
    // far enough ahead that the request is read before the moment, however loaded the machine
    const at = new Date(Date.now() + 8_000);
    const { data, error } = await resend.emails.send({
      ...message('later@customer.example'),
      scheduledAt: at.toISOString(),
    });
    expect(error).toBeNull();
    const waiting = await resend.emails.get(data!.id);
    expect(waiting.data).toMatchObject({ last_event: 'scheduled', scheduled_at: at.toISOString() });
    const email = await getUntil(data!.id, (last) => last === 'delivered');
    expect(email.last_event).toBe('delivered');
    const [mail] = arrived('later@customer.example');
    expect(mail.at.getTime()).toBeGreaterThanOrEqual(at.getTime());
  });

  it('moves a scheduled message, cancels it for good, and refuses a later change', async () => {
    const quotaUsed = async () =>
      Number(
        (
          await app.ctx.db
            .selectFrom('quota_usage')
            .select((eb) => eb.fn.sum('used').as('n'))
            .where('customer_id', '=', account.customerId)
            .executeTakeFirst()
        )?.n ?? 0,
      );
    const before = await quotaUsed();
    const { data } = await resend.emails.send({ ...message('moved@customer.example'), scheduledAt: 'in 1 hour' });
    expect(await quotaUsed()).toBe(before); // counted when it goes, not now

    const moved = await resend.emails.update({ id: data!.id, scheduledAt: 'tomorrow at 9am' });
    expect(moved).toMatchObject({ data: { object: 'email', id: data!.id }, error: null });
    const moment = (await resend.emails.get(data!.id)).data!;
    expect(moment.last_event).toBe('scheduled');
    expect(moment.scheduled_at).toMatch(/T09:00:00\.000Z$/);
    const ahead = new Date(moment.scheduled_at!).getTime() - Date.now();
    expect(ahead).toBeGreaterThan(0);
    expect(ahead).toBeLessThanOrEqual(2 * 86_400_000);

    expect((await resend.emails.cancel(data!.id)).error).toBeNull();
    expect((await resend.emails.get(data!.id)).data?.last_event).toBe('canceled');
    const late = await resend.emails.update({ id: data!.id, scheduledAt: 'in 2 hours' });
    expect(late).toMatchObject({
      data: null,
      error: { statusCode: 422, name: 'validation_error', message: expect.stringMatching(/it was canceled/) },
    });
    const again = await resend.emails.cancel(data!.id);
    expect(again.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(arrived('moved@customer.example')).toEqual([]);
    expect(await quotaUsed()).toBe(before);
  });

  it('refuses a scheduled_at it cannot read or too far ahead, and stores nothing', async () => {
    for (const [scheduledAt, problem] of [
      ['whenever suits you', /could not read "whenever suits you"/],
      ['2026-11-28T09:00:00', /needs its offset/],
      ['in 45 days', /at most 30 days ahead/],
    ] as const) {
      const { data, error } = await resend.emails.send({ ...message('never@customer.example'), scheduledAt });
      expect(data).toBeNull();
      expect(error).toMatchObject({
        statusCode: 400,
        name: 'validation_error',
        message: expect.stringMatching(problem),
      });
    }
    const stored = await app.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('to_email', '=', 'never@customer.example')
      .execute();
    expect(stored).toEqual([]);
  });

  it('refuses ids and cursors of the wrong type as 404 or 400, never 500', async () => {
    const notFound = { data: null, error: { statusCode: 404, name: 'not_found' } };
    expect(await resend.emails.get('not-a-uuid')).toMatchObject(notFound);
    expect(await resend.emails.get(encodeURIComponent("1' or '1'='1"))).toMatchObject(notFound);
    expect(await resend.emails.cancel('42')).toMatchObject(notFound);
    expect(await resend.emails.update({ id: 'x'.repeat(3000), scheduledAt: 'in 1 hour' })).toMatchObject(notFound);
    expect(await resend.domains.get('not-a-number')).toMatchObject(notFound);
    expect(await resend.domains.get('99999999999999999999')).toMatchObject(notFound);
    const invalid = { data: null, error: { statusCode: 400, name: 'validation_error' } };
    expect(await resend.emails.list({ after: 'zzz' })).toMatchObject(invalid);
    expect(await resend.emails.list({ before: '1' })).toMatchObject(invalid);
    // the SDK's metrics call: a path this service does not serve, which /emails/{id} matches
    const metrics = await fetch(`${baseUrl}/emails/metrics`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(metrics.status).toBe(404);
    expect(await metrics.json()).toEqual({ statusCode: 404, name: 'not_found', message: expect.any(String) });
    expect((await resend.emails.receiving.list()).error).toBeNull();
    expect(await resend.emails.receiving.get('not-a-uuid')).toMatchObject(notFound);
    expect(await resend.emails.receiving.list({ after: 'zzz' })).toMatchObject(invalid);
  });

  it('answers every refusal as { statusCode, name, message } alone, as Resend does', async () => {
    const missing = await fetch(`${baseUrl}/emails/3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toEqual({
      statusCode: 401,
      name: 'missing_api_key',
      message: expect.stringMatching(/API key is required/),
    });
    const wrongKey = new Resend('tsk_not-a-real-key-not-a-real-key', { baseUrl });
    expect((await wrongKey.emails.list()).error).toMatchObject({ statusCode: 401, name: 'invalid_api_key' });
    const unknown = await resend.emails.get('3f1c0d8e-6b1a-4c55-9a55-2f1f6ad1b7e4');
    expect(unknown).toMatchObject({ data: null, error: { statusCode: 404, name: 'not_found' } });
    const noRoute = await fetch(`${baseUrl}/no-such-thing`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(noRoute.status).toBe(404);
    expect(Object.keys(await noRoute.json()).sort()).toEqual(['message', 'name', 'statusCode']);
    const wrongMethod = await fetch(`${baseUrl}/emails`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toEqual({
      statusCode: 405,
      name: 'method_not_allowed',
      message: expect.any(String),
    });
    const control = await fetch(`${baseUrl}/emails?limit=%00`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(control.status).toBe(400);
    expect(await control.json()).toEqual({ statusCode: 400, name: 'validation_error', message: expect.any(String) });
    const tag = await resend.emails.send({ ...message('x@customer.example'), tags: [{ name: 'my tag', value: 'x' }] });
    expect(tag.error).toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/tags\.0\.name: may hold only ASCII letters, digits, underscores and dashes/),
    });
    const invalid = await resend.emails.send({ ...message('x@customer.example'), from: 'not an address' });
    expect(invalid.error).toMatchObject({ statusCode: 400, name: 'validation_error' });
    expect(Object.keys(invalid.error!).sort()).toEqual(['message', 'name', 'statusCode']);
  });
});
