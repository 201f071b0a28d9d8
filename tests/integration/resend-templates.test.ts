// Templates with the official `resend` SDK, unchanged, pointed at /resend over a real socket: create,
// get by id and alias, list in cursor pages, update as a draft, publish, duplicate, remove; sending by
// alias rendered with variables and fallbacks (arriving at a local SMTP sink), draft against published
// sends, the 422s a send gets for a missing or mistyped variable, and one store with the console's library.
import { simpleParser } from 'mailparser';
import type { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { type ResendApp, startResendApp } from '../helpers/resend-app.ts';
import type { SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';

let started: ResendApp;
let app: TestApp;
let sink: SmtpSink;
let resend: Resend;
let other: Resend;
let cookie: string;
let apiKey: string;
let baseUrl: string;

beforeAll(async () => {
  started = await startResendApp({ second: true });
  ({ app, resend, apiKey, baseUrl } = started);
  sink = started.sink!;
  other = started.other!;
  const account = started.account;
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  await addDomain(app.ctx, account.customerId, 'pending.example');
  await addDomain(app.ctx, started.second!.customerId, 'other.example', { verified: true });
  cookie = await app.signIn(account.email, account.password);
}, 240_000);

afterAll(async () => {
  await started?.close();
});

/** The message delivered to `address` (sends are delivered in any order). */
async function deliveredTo(address: string) {
  for (;;) {
    const found = sink.messages.find((m) => m.to.includes(address));
    if (found) return simpleParser(found.raw);
    await sink.waitFor(sink.messages.length + 1);
  }
}

const raw = (method: string, path: string, body?: unknown) =>
  fetch(`${baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const order = {
  name: 'Order confirmation',
  alias: 'order-confirmation',
  from: 'Shop <orders@shop.example>',
  replyTo: 'help@shop.example',
  subject: 'Your {{{PRODUCT}}}',
  html: '<p>{{{PRODUCT}}} costs {{{PRICE}}}</p><p>{{{NOTE}}}</p>',
  variables: [
    { key: 'PRODUCT', type: 'string' as const },
    { key: 'PRICE', type: 'number' as const, fallbackValue: 25 },
    { key: 'NOTE', type: 'string' as const, fallbackValue: 'Thanks!' },
  ],
};
let orderId: string;

describe('templates.create, get, and the console library', () => {
  it('creates a draft answered { id, object } and reads it back by id and by alias in Resend’s shape', async () => {
    const { data, error } = await resend.templates.create(order);
    expect(error).toBeNull();
    expect(data).toEqual({ object: 'template', id: expect.stringMatching(UUID) });
    orderId = data!.id;
    const byId = await resend.templates.get(orderId);
    expect(byId.error).toBeNull();
    expect(byId.data).toEqual({
      object: 'template',
      id: orderId,
      current_version_id: expect.stringMatching(UUID),
      name: 'Order confirmation',
      alias: 'order-confirmation',
      status: 'draft',
      published_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      subject: 'Your {{{PRODUCT}}}',
      html: order.html,
      text: null,
      from: '"Shop" <orders@shop.example>',
      reply_to: ['help@shop.example'],
      variables: [
        {
          key: 'PRODUCT',
          type: 'string',
          fallback_value: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        {
          key: 'PRICE',
          type: 'number',
          fallback_value: 25,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        {
          key: 'NOTE',
          type: 'string',
          fallback_value: 'Thanks!',
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      has_unpublished_versions: true,
    });
    const byAlias = await resend.templates.get('order-confirmation');
    expect(byAlias.data).toEqual(byId.data);
  });

  it('a template made by API is in the console’s library and edited there; the API reads the edit', async () => {
    const list = await app.call('POST', '/v1/templates/search', { cookie, body: { template_name: 'order conf' } });
    const { data } = (await list.json()) as { data: { id: string; from_email: string; status: string }[] };
    expect(data.map((t) => t.id)).toContain(orderId);
    const saved = await app.call('PUT', `/v1/templates/${orderId}`, {
      cookie,
      body: { subject: 'Your {{{PRODUCT}}} is confirmed' },
    });
    expect(saved.status).toBe(200);
    const after = await resend.templates.get(orderId);
    expect(after.data).toMatchObject({ subject: 'Your {{{PRODUCT}}} is confirmed', alias: 'order-confirmation' });
    expect(after.data!.variables).toHaveLength(3);
  });

  it('a template made in the console is read and listed by API', async () => {
    const res = await app.call('POST', '/v1/templates', {
      cookie,
      body: {
        name: 'Console made',
        alias: 'console-made',
        from_name: 'Shop',
        from_email: 'hello@shop.example',
        subject: 'Hi {{name}}',
        content_html: '<p>Hi {{name}}</p>',
        status: 'published',
      },
    });
    expect(res.status).toBe(201);
    const { template } = (await res.json()) as { template: { id: string } };
    const { data } = await resend.templates.get('console-made');
    expect(data).toMatchObject({
      id: template.id,
      status: 'published',
      from: '"Shop" <hello@shop.example>',
      variables: null,
      has_unpublished_versions: false,
    });
    const listed = await resend.templates.list({ limit: 100 });
    expect(listed.data!.data.map((t) => t.id)).toEqual(expect.arrayContaining([template.id, orderId]));
  });
});

describe('sending with a template', () => {
  it('refuses a draft with a 422 and queues nothing', async () => {
    const { error } = await resend.emails.send({
      to: 'draft@customer.example',
      template: { id: 'order-confirmation', variables: { PRODUCT: 'Lamp' } },
    });
    expect(error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(error!.message).toMatch(/draft/);
  });

  it('publishes; a send by alias arrives rendered with the variables, the fallbacks, from and reply-to', async () => {
    const published = await resend.templates.publish('order-confirmation');
    expect(published).toMatchObject({ data: { object: 'template', id: orderId }, error: null });
    expect((await resend.templates.get(orderId)).data).toMatchObject({
      status: 'published',
      published_at: expect.any(String),
      has_unpublished_versions: false,
    });
    const { data, error } = await resend.emails.send({
      to: 'ann@customer.example',
      template: { id: 'order-confirmation', variables: { PRODUCT: 'Lamp' } },
    });
    expect(error).toBeNull();
    expect(data!.id).toMatch(UUID);
    const mail = await deliveredTo('ann@customer.example');
    expect(mail.subject).toBe('Your Lamp is confirmed');
    expect(mail.from?.value).toEqual([{ address: 'orders@shop.example', name: 'Shop' }]);
    expect(mail.replyTo?.value[0].address).toBe('help@shop.example');
    expect(mail.html).toContain('<p>Lamp costs 25</p><p>Thanks!</p>');
    expect(mail.text).toContain('Lamp costs 25');
  });

  it('a missing variable without a fallback, or one of the wrong type, is a 422 naming it', async () => {
    const missing = await resend.emails.send({ to: 'x@customer.example', template: { id: orderId, variables: {} } });
    expect(missing.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(missing.error!.message).toMatch(/PRODUCT/);
    const mistyped = await resend.emails.send({
      to: 'x@customer.example',
      template: { id: orderId, variables: { PRODUCT: 'Lamp', PRICE: 'cheap' } },
    });
    expect(mistyped.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(mistyped.error!.message).toMatch(/PRICE must be a number/);
    const unknown = await resend.emails.send({ to: 'x@customer.example', template: { id: 'no-such', variables: {} } });
    expect(unknown.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('batch.send renders each message with its own variables; a bad one names its index', async () => {
    const { data, error } = await resend.batch.send([
      { to: 'b1@customer.example', template: { id: 'order-confirmation', variables: { PRODUCT: 'Desk' } } },
      { to: 'b2@customer.example', template: { id: orderId, variables: { PRODUCT: 'Chair', PRICE: 40 } } },
    ]);
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);
    expect((await deliveredTo('b1@customer.example')).html).toContain('Desk costs 25');
    expect((await deliveredTo('b2@customer.example')).html).toContain('Chair costs 40');
    const bad = await resend.batch.send([
      { to: 'b3@customer.example', template: { id: orderId, variables: { PRODUCT: 'Desk' } } },
      { to: 'b4@customer.example', template: { id: orderId, variables: {} } },
    ]);
    expect(bad.error).toMatchObject({ statusCode: 422 });
    expect(bad.error!.message).toMatch(/1.*PRODUCT/);
  });

  it('update saves a draft: sends keep the published version until publish', async () => {
    const updated = await resend.templates.update('order-confirmation', {
      html: '<p>NEW {{{PRODUCT}}} at {{{PRICE}}}</p>',
      variables: [
        { key: 'PRODUCT', type: 'string', fallbackValue: 'thing' },
        { key: 'PRICE', type: 'number', fallbackValue: 99 },
      ],
    });
    expect(updated).toMatchObject({ data: { object: 'template', id: orderId }, error: null });
    const draft = await resend.templates.get(orderId);
    expect(draft.data).toMatchObject({ status: 'published', has_unpublished_versions: true });
    expect(draft.data!.html).toContain('NEW');
    await resend.emails.send({ to: 'old@customer.example', template: { id: orderId, variables: { PRODUCT: 'Pen' } } });
    const old = await deliveredTo('old@customer.example');
    expect(old.html).toContain('Pen costs 25');
    expect(old.html).not.toContain('NEW');

    await resend.templates.publish(orderId);
    expect((await resend.templates.get(orderId)).data).toMatchObject({ has_unpublished_versions: false });
    expect((await resend.templates.update(orderId, {})).error).toBeNull(); // saves nothing
    expect((await resend.templates.get(orderId)).data).toMatchObject({ has_unpublished_versions: false });
    const { error } = await resend.emails.send({ to: 'new@customer.example', template: { id: orderId } });
    expect(error).toBeNull();
    expect((await deliveredTo('new@customer.example')).html).toContain('NEW thing at 99');
  });
});

describe('one library for both surfaces', () => {
  it('the console’s Publish keeps the declared variables; a /v1/mail send gets their fallbacks', async () => {
    const { data } = await resend.templates.create({
      name: 'Console published',
      alias: 'console-published',
      from: 'orders@shop.example',
      subject: 'Hello {{{WHO}}}',
      html: '<p>Hello {{{WHO}}}</p>',
      variables: [{ key: 'WHO', type: 'string', fallbackValue: 'friend' }],
    });
    const published = await app.call('PUT', `/v1/templates/${data!.id}`, { cookie, body: { status: 'published' } });
    expect(published.status).toBe(200);
    const sent = await app.api.request('http://localhost:4321/v1/mail', {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ to: 'friend@customer.example', template_id: 'console-published' }),
    });
    expect(sent.status).toBe(202);
    const mail = await deliveredTo('friend@customer.example');
    expect(mail.subject).toBe('Hello friend');
    expect(mail.html).toContain('<p>Hello friend</p>');
    const mistyped = await app.api.request('http://localhost:4321/v1/mail', {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ to: 'friend@customer.example', template_id: 'console-published', variables: { WHO: 7 } }),
    });
    expect(mistyped.status).toBe(422);
    expect(await mistyped.json()).toMatchObject({
      error: { code: 'unprocessable', details: [{ path: 'variables.WHO', message: expect.any(String) }] },
    });
  });
});

describe('templates.list, duplicate, remove', () => {
  it('pages newest first with limit, after and before, and has_more', async () => {
    const made: string[] = [];
    for (const n of [1, 2, 3]) {
      const { data } = await resend.templates.create({ name: `Page ${n}`, html: `<p>${n}</p>` });
      made.push(data!.id);
    }
    const first = await resend.templates.list({ limit: 2 });
    expect(first.error).toBeNull();
    expect(first.data).toMatchObject({ object: 'list', has_more: true });
    expect(first.data!.data.map((t) => t.id)).toEqual([made[2], made[1]]);
    expect(Object.keys(first.data!.data[0]).sort()).toEqual(
      ['alias', 'created_at', 'id', 'name', 'published_at', 'status', 'updated_at'].sort(),
    );
    const next = await resend.templates.list({ limit: 2, after: made[1] });
    expect(next.data!.data.map((t) => t.id)).toEqual([made[0], expect.any(String)]);
    const back = await resend.templates.list({ limit: 2, before: made[0] });
    expect(back.data).toMatchObject({ has_more: false });
    expect(back.data!.data.map((t) => t.id)).toEqual([made[2], made[1]]);
    const all = await resend.templates.list({ limit: 100 });
    expect(all.data!.has_more).toBe(false);
    // these three, the order confirmation, the console's and the console-published one
    expect(all.data!.data).toHaveLength(6);
  });

  it('duplicate makes a draft copy without the alias; create(...).publish() chains', async () => {
    const { data, error } = await resend.templates.duplicate('order-confirmation');
    expect(error).toBeNull();
    const copy = await resend.templates.get(data!.id);
    expect(copy.data).toMatchObject({
      name: 'Order confirmation (copy)',
      alias: null,
      status: 'draft',
      html: '<p>NEW {{{PRODUCT}}} at {{{PRICE}}}</p>',
    });
    expect(copy.data!.variables!.map((v) => v.key)).toEqual(['PRODUCT', 'PRICE']);
    const chained = await resend.templates
      .create({ name: 'Chained', from: 'orders@shop.example', subject: 'Hi', html: '<p>Hi</p>' })
      .publish();
    expect(chained.error).toBeNull();
    expect((await resend.templates.get(chained.data!.id)).data!.status).toBe('published');
  });

  it('remove answers deleted; the template is gone for the API and the console', async () => {
    const { data } = await resend.templates.create({ name: 'Short lived', alias: 'short-lived', html: '<p>x</p>' });
    const removed = await resend.templates.remove('short-lived');
    expect(removed).toMatchObject({ data: { object: 'template', id: data!.id, deleted: true }, error: null });
    expect((await resend.templates.get(data!.id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await app.call('GET', `/v1/templates/${data!.id}`, { cookie })).status).toBe(404);
  });
});

describe('refusals', () => {
  it('a malformed id, an unknown alias and another account’s template are 404 on every call', async () => {
    for (const id of ['not%20an%20alias!', 'no-such-alias', '00000000-0000-4000-8000-000000000000', 'x'.repeat(120)]) {
      for (const [method, path, body] of [
        ['GET', `/templates/${id}`],
        ['PATCH', `/templates/${id}`, { name: 'x' }],
        ['POST', `/templates/${id}/publish`],
        ['POST', `/templates/${id}/duplicate`],
        ['DELETE', `/templates/${id}`],
      ] as const) {
        const res = await raw(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(await res.json()).toMatchObject({ statusCode: 404, name: 'not_found' });
      }
    }
    expect((await other.templates.get(orderId)).error).toMatchObject({ statusCode: 404 });
    expect((await other.templates.get('order-confirmation')).error).toMatchObject({ statusCode: 404 });
    expect((await other.templates.update(orderId, { name: 'Mine' })).error).toMatchObject({ statusCode: 404 });
    expect((await other.templates.publish(orderId)).error).toMatchObject({ statusCode: 404 });
    expect((await other.templates.duplicate(orderId)).error).toMatchObject({ statusCode: 404 });
    expect((await other.templates.remove(orderId)).error).toMatchObject({ statusCode: 404 });
    expect((await other.templates.list()).data!.data).toEqual([]);
    expect((await other.templates.list({ after: orderId })).error).toMatchObject({ statusCode: 404 });
    const sent = await other.emails.send({
      from: 'a@other.example',
      to: 'x@customer.example',
      template: { id: orderId, variables: { PRODUCT: 'x' } },
    });
    expect(sent.error).toMatchObject({ statusCode: 404 });
    expect((await resend.templates.get(orderId)).data!.name).toBe('Order confirmation');
  });

  it('an alias the account already uses is a 422 validation_error, on create and on update', async () => {
    const made = await resend.templates.create({ name: 'Twin', alias: 'order-confirmation', html: '<p/>' });
    expect(made.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    const { data } = await resend.templates.create({ name: 'Twin', alias: 'twin', html: '<p/>' });
    const changed = await resend.templates.update(data!.id, { alias: 'order-confirmation' });
    expect(changed.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    // another account may use the same alias
    expect(
      (await other.templates.create({ name: 'Theirs', alias: 'order-confirmation', html: '<p/>' })).error,
    ).toBeNull();
  });

  it('publish refuses HTML that does not compile and a from address at an unverified domain', async () => {
    const broken = await resend.templates.create({ name: 'Broken', html: '<p>{{#if x}}</p>' });
    const a = await resend.templates.publish(broken.data!.id);
    expect(a.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(a.error!.message).toMatch(/does not compile/);
    const pending = await resend.templates.create({ name: 'Pending', from: 'a@pending.example', html: '<p/>' });
    const b = await resend.templates.publish(pending.data!.id);
    expect(b.error).toMatchObject({ statusCode: 422 });
    expect(b.error!.message).toMatch(/pending\.example/);
  });

  it('refuses bad variables and addresses in Resend’s shape, storing nothing', async () => {
    const before = (await resend.templates.list({ limit: 100 })).data!.data.length;
    for (const body of [
      { name: 'V', html: '<p/>', variables: [{ key: 'EMAIL', type: 'string' }] },
      {
        name: 'V',
        html: '<p/>',
        variables: [
          { key: 'A', type: 'string' },
          { key: 'A', type: 'number' },
        ],
      },
      { name: 'V', html: '<p/>', variables: [{ key: 'A', type: 'number', fallback_value: 'ten' }] },
      { name: 'V', html: '<p/>', variables: [{ key: 'A', type: 'date' }] },
      { name: 'V', html: '<p/>', reply_to: ['a@shop.example', 'b@shop.example'] },
      { name: '', html: '<p/>' },
      { name: 'V' },
    ]) {
      const res = await raw('POST', '/templates', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toMatchObject({ name: 'validation_error' });
    }
    const badFrom = await resend.templates.create({ name: 'V', from: 'not an address', html: '<p/>' });
    expect(badFrom.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect((await resend.templates.list({ limit: 100 })).data!.data).toHaveLength(before);
  });
});
