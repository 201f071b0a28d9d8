// Templates (docs/console-reports.md §2, §3, §4, §7 "Templates"): the library's calls in both
// search shapes, publish and its checks, rendering with escaping, sending by template through our
// API and Resend's (the official SDK), the lookup cache on publish, tenant isolation and every bad
// input it refuses. Real database, real HTTP app, real SMTP sink.
import { simpleParser } from 'mailparser';
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestAccount, type TestApp } from '../helpers/app.ts';
import { listenOnSocket, type SocketServer } from '../helpers/socket-server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { GALLERY } from '../../src/server/templates/gallery/templates.ts';
import { syncGallery } from '../../src/server/templates/gallery/seed.ts';
import { GALLERY_010 } from '../../src/server/db/migrations/010-templates.gallery.ts';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let server: SocketServer;
let me: { account: TestAccount; cookie: string; apiKey: string };
let other: { account: TestAccount; cookie: string; apiKey: string };

async function signedIn(domain: string) {
  const account = await app.createAccount();
  await addDomain(app.ctx, account.customerId, domain, { verified: true });
  const cookie = await app.signIn(account.email, account.password);
  const { apiKey } = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials;
  return { account, cookie, apiKey };
}

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, RETURN_PATH_DOMAIN: 'rp.transact.test' });
  me = await signedIn('shop.example');
  await addDomain(app.ctx, me.account.customerId, 'pending.example');
  other = await signedIn('other.example');
  worker = new DeliveryWorker(app.ctx);
  worker.start();
  server = await listenOnSocket(app);
});

afterAll(async () => {
  await worker?.stop();
  await server?.close();
  await sink?.close();
  await app?.close();
});

const create = (cookie: string, body: unknown) => app.call('POST', '/v1/templates', { cookie, body });
const put = (cookie: string, id: string, body: unknown) => app.call('PUT', `/v1/templates/${id}`, { cookie, body });
const get = (cookie: string, id: string) => app.call('GET', `/v1/templates/${id}`, { cookie });
const del = (cookie: string, id: string) => app.call('DELETE', `/v1/templates/${id}`, { cookie });
const search = (cookie: string, body: unknown) => app.call('POST', '/v1/templates/search', { cookie, body });
const sendMail = (apiKey: string, body: unknown, path = '/v1/mail') =>
  app.api.request(`http://localhost:4321${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The message delivered to `address` (sends are delivered in any order). */
async function deliveredTo(address: string) {
  for (;;) {
    const found = sink.messages.find((m) => m.to.includes(address));
    if (found) return simpleParser(found.raw);
    await sink.waitFor(sink.messages.length + 1);
  }
}

interface Wire {
  id: string;
  name: string;
  status: string;
  type: string;
  subject: string | null;
  content_html: string;
  from_email: string | null;
  reply_email: string | null;
  published_timestamp: string | null;
}

async function made(cookie: string, body: Record<string, unknown>): Promise<Wire> {
  const res = await create(cookie, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { template: Wire }).template;
}

const welcome = {
  name: 'Welcome mail',
  from_name: 'Shop',
  from_email: 'hello@shop.example',
  reply_email: 'help@shop.example',
  subject: 'Welcome, {{first_name}}',
  description: 'b',
  content_html:
    '<style>p { color: #123456; }</style><p>Hello {{first_name}}</p>{{#if coupon}}<p>Code ' +
    '{{coupon}}</p>{{/if}}<ul>{{#each items}}<li>{{name}}</li>{{/each}}</ul>',
};

describe('POST v1/templates, GET, PUT, DELETE', () => {
  it('creates a draft unless published is asked for, reads it back, updates and deletes it', async () => {
    const t = await made(me.cookie, welcome);
    expect(t).toMatchObject({
      name: 'Welcome mail',
      status: 'draft',
      type: 'user',
      from_email: 'hello@shop.example',
      published_timestamp: null,
    });
    const read = (await (await get(me.cookie, t.id)).json()) as { template: Wire };
    expect(read.template.content_html).toBe(welcome.content_html);

    const res = await put(me.cookie, t.id, { ...read.template, name: 'Renamed' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { template: Wire; message: string };
    expect(body).toMatchObject({ message: 'Save complete', template: { name: 'Renamed', status: 'draft' } });

    const gone = await del(me.cookie, t.id);
    expect(await gone.json()).toEqual({ message: 'Template deleted successfully' });
    expect((await get(me.cookie, t.id)).status).toBe(404);
  });

  it("names a template 'Untitled Template' when the name is empty (docs/console-reports.md §9)", async () => {
    expect((await made(me.cookie, { name: '  ', content_html: '' })).name).toBe('Untitled Template');
  });

  it('publishes: status published, CSS inlined, published time set; Save afterwards keeps published', async () => {
    const t = await made(me.cookie, welcome);
    const res = await put(me.cookie, t.id, { status: 'published' });
    const published = ((await res.json()) as { template: Wire }).template;
    expect(published.status).toBe('published');
    expect(published.published_timestamp).not.toBeNull();
    const row = await app.ctx.db
      .selectFrom('templates')
      .select('published_html')
      .where('uuid', '=', t.id)
      .executeTakeFirstOrThrow();
    expect(row.published_html).toMatch(/<p style="color: #123456;">Hello \{\{first_name\}\}<\/p>/);
    const saved = ((await (await put(me.cookie, t.id, { description: 'edited' })).json()) as { template: Wire })
      .template;
    expect(saved.status).toBe('published');
  });

  it('creates published when the request says so', async () => {
    expect((await made(me.cookie, { ...welcome, status: 'published' })).status).toBe('published');
  });
});

describe('POST /v1/templates/search', () => {
  it('the list shape: name filter, sort (default description DESC), paging of 10', async () => {
    const { cookie } = await signedIn('list.example');
    for (const [name, description] of [
      ['Alpha', 'a'],
      ['beta', 'c'],
      ['Gamma', 'b'],
    ])
      await made(cookie, { name, description, content_html: '<p/>' });
    const names = async (body: unknown) =>
      ((await (await search(cookie, body)).json()) as { data: Wire[] }).data.map((t) => t.name);
    expect(await names({ page: 1 })).toEqual(['beta', 'Gamma', 'Alpha']);
    expect(await names({ sort: 'name', page: 1 })).toEqual(['Alpha', 'beta', 'Gamma']);
    expect(await names({ sort: '-name', page: 1 })).toEqual(['Gamma', 'beta', 'Alpha']);
    expect(await names({ template_name: 'AM', page: 1 })).toEqual(['Gamma']);
    for (let i = 0; i < 9; i++) await made(cookie, { name: `T${i}`, content_html: '' });
    const page2 = (await (await search(cookie, { sort: 'name', page: 2 })).json()) as {
      data: Wire[];
      meta: { total: number; last_page: number };
    };
    expect(page2.meta).toMatchObject({ total: 12, last_page: 2 });
    expect(page2.data).toHaveLength(2);
  });

  it('the gallery shape: templateType system, published, by name; user type lists only your own', async () => {
    const res = await search(me.cookie, { templateName: '', templateType: 'system', templateStatus: 'published' });
    const gallery = ((await res.json()) as { data: Wire[] }).data;
    expect(gallery.map((t) => t.name).sort()).toEqual(GALLERY.map((g) => g.name).sort());
    expect(gallery.every((t) => t.type === 'system' && t.status === 'published')).toBe(true);
    const found = (
      (await (
        await search(me.cookie, { templateName: 'reset', templateType: 'system', templateStatus: 'published' })
      ).json()) as { data: Wire[] }
    ).data;
    expect(found.map((t) => t.name)).toEqual(['Password reset']);
    const mine = (
      (await (await search(other.cookie, { templateName: '', templateType: 'user' })).json()) as { data: Wire[] }
    ).data;
    expect(mine.every((t) => t.type === 'user')).toBe(true);
  });

  it('refuses an unknown shape or sort with 400', async () => {
    expect((await search(me.cookie, { templateType: 'everyone' })).status).toBe(400);
    expect((await search(me.cookie, { sort: 'drop table', page: 1 })).status).toBe(400);
  });

  it('syncing the gallery again changes nothing: same rows, same versions (idempotent)', async () => {
    const rows = () =>
      app.ctx.db
        .selectFrom('templates')
        .where('customer_id', 'is', null)
        .select(['system_key', 'version', 'updated_at'])
        .orderBy('system_key')
        .execute();
    const before = await rows();
    expect(await syncGallery(app.ctx.db)).toBe(0);
    expect(await rows()).toEqual(before);
    expect(before.map((r) => r.system_key)).toEqual(GALLERY.map((g) => g.key).sort());
  });

  it(
    'migration 010 keeps its own copy: a gallery edit after ' + 'it reaches the database through the sync at start',
    async () => {
      // a database migrated before an edit: its row holds what 010 stored, the source holds something newer
      const key = GALLERY[0].key;
      const frozen = GALLERY_010.find((r) => r.system_key === key)!;
      expect(frozen.name).toBe(GALLERY[0].name);
      const read = () =>
        app.ctx.db.selectFrom('templates').where('system_key', '=', key).selectAll().executeTakeFirstOrThrow();
      const current = await read();
      await app.ctx.db
        .updateTable('templates')
        .where('system_key', '=', key)
        .set({
          subject: 'An older subject',
          published_subject: 'An older subject',
          content_html: '<p>older</p>',
          published_html: '<p>older</p>',
        })
        .execute();
      expect(await syncGallery(app.ctx.db)).toBe(1);
      const synced = await read();
      expect(synced).toMatchObject({
        subject: GALLERY[0].subject,
        published_subject: GALLERY[0].subject,
        content_html: GALLERY[0].html,
        published_text: GALLERY[0].text,
        status: 'published',
      });
      expect(synced.published_html).toBe(current.published_html);
      expect(synced.version).toBe(current.version + 1);
      expect(synced.uuid).toBe(current.uuid);
      expect(await syncGallery(app.ctx.db)).toBe(0);
      // a gallery row lost (or a template added to the source later) is inserted
      await app.ctx.db.deleteFrom('templates').where('system_key', '=', key).execute();
      expect(await syncGallery(app.ctx.db)).toBe(1);
      expect((await read()).content_html).toBe(GALLERY[0].html);
    },
  );
});

describe('gallery templates are read-only', () => {
  it('can be read but not changed or deleted (403)', async () => {
    const gallery = ((await (await search(me.cookie, { templateType: 'system' })).json()) as { data: Wire[] }).data;
    const id = gallery[0].id;
    expect((await get(me.cookie, id)).status).toBe(200);
    expect((await put(me.cookie, id, { name: 'Mine now' })).status).toBe(403);
    expect((await del(me.cookie, id)).status).toBe(403);
    const row = await app.ctx.db
      .selectFrom('templates')
      .select('name')
      .where('uuid', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.name).toBe(gallery[0].name);
  });
});

describe('bad input', () => {
  it('another customer’s template is 404 on get, put, delete and send', async () => {
    const t = await made(me.cookie, { ...welcome, status: 'published' });
    expect((await get(other.cookie, t.id)).status).toBe(404);
    expect((await put(other.cookie, t.id, { name: 'x' })).status).toBe(404);
    expect((await del(other.cookie, t.id)).status).toBe(404);
    const sent = await sendMail(other.apiKey, {
      from: 'a@other.example',
      to: 'ann@example.com',
      template_id: t.id,
      variables: { first_name: 'A' },
    });
    expect(sent.status).toBe(404);
    expect((await get(me.cookie, t.id)).status).toBe(200);
  });

  it('a syntax error: saved as a draft, refused at publish with 422, line and column', async () => {
    const t = await made(me.cookie, { name: 'Broken', content_html: '<p>ok</p>\n<p>{{#if a}}\n  {{name}\n' });
    expect(t.status).toBe('draft');
    const res = await put(me.cookie, t.id, { status: 'published' });
    expect(res.status).toBe(422);
    const { error } = (await res.json()) as {
      error: { code: string; message: string; details: { line: number; column: number; path: string }[] };
    };
    expect(error.code).toBe('unprocessable');
    // the unclosed mustache's lone '}' on line 3 is where the parser stops
    expect(error.details[0]).toMatchObject({ path: 'content_html', line: 3, column: 9 });
    expect(error.message).toMatch(/line 3, column 9/);
    expect(((await (await get(me.cookie, t.id)).json()) as { template: Wire }).template.status).toBe('draft');
    const mismatched = await create(me.cookie, { content_html: '{{#each x}}\n{{/if}}', status: 'published' });
    expect(mismatched.status).toBe(422);
  });

  it(
    'from_email and reply_email must be addresses at save (400); an unverified or foreign from domain is refused at ' +
      'publish (422)',
    async () => {
      for (const body of [{ from_email: 'not an address' }, { reply_email: 'nope@' }]) {
        const res = await create(me.cookie, { content_html: '', ...body });
        expect(res.status).toBe(400);
      }
      for (const from_email of ['a@pending.example', 'a@other.example']) {
        const draft = await made(me.cookie, { name: 'Receipt', subject: 'Receipt', from_email, content_html: '<p/>' });
        expect(draft.status).toBe('draft');
        const res = await put(me.cookie, draft.id, { status: 'published' });
        expect(res.status).toBe(422);
        const { error } = (await res.json()) as {
          error: { code: string; details: { path: string; message: string }[] };
        };
        expect(error.code).toBe('unprocessable');
        expect(error.details).toEqual([
          {
            path: 'from_email',
            message: `The domain ${from_email.split('@')[1]} is not a verified sending domain of this account`,
          },
        ]);
      }
    },
  );

  it('a template over 1 MB is 413 and stores nothing', async () => {
    const before = await app.ctx.db
      .selectFrom('templates')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const res = await create(me.cookie, { content_html: 'x'.repeat(1024 * 1024 + 10) });
    expect(res.status).toBe(413);
    const after = await app.ctx.db
      .selectFrom('templates')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
  });

  it('keeps <script> and javascript: links as authored', async () => {
    const html = '<p>Hi</p><script>window.x=1</script><a href="javascript:alert(1)">x</a>';
    const t = await made(me.cookie, { content_html: html });
    expect(((await (await get(me.cookie, t.id)).json()) as { template: Wire }).template.content_html).toBe(html);
  });
});

describe('POST v1/templates/render (the editor preview)', () => {
  it('renders with escaping, lists the variables, and answers 422 for a syntax error', async () => {
    const res = await app.call('POST', '/v1/templates/render', {
      cookie: me.cookie,
      body: {
        subject: 'Hi {{first_name}}',
        content_html: welcome.content_html,
        variables: { first_name: '<b>Ann</b>', items: [{ name: 'Pen & ink' }] },
      },
    });
    const body = (await res.json()) as { html: string; text: string; subject: string; variables: string[] };
    expect(body.subject).toBe('Hi <b>Ann</b>');
    expect(body.html).toContain('Hello &lt;b&gt;Ann&lt;/b&gt;');
    expect(body.html).toContain('<li>Pen &amp; ink</li>');
    expect(body.html).not.toContain('Code');
    expect(body.text).toContain('Hello <b>Ann</b>');
    expect(body.variables).toEqual(['coupon', 'first_name', 'items']);
    const bad = await app.call('POST', '/v1/templates/render', {
      cookie: me.cookie,
      body: { content_html: '{{#if}}' },
    });
    expect(bad.status).toBe(422);
  });
});

describe('sending by template', () => {
  let published: Wire;
  beforeAll(async () => {
    published = await made(me.cookie, { ...welcome, alias: 'welcome', status: 'published' });
  });

  it(
    'POST /v1/mail with template_id renders subject, HTML (escaped) and text, takes from and reply-to from the ' +
      'template, and stores the result',
    async () => {
      const res = await sendMail(me.apiKey, {
        to: 'ann@customer.example',
        template_id: published.id,
        variables: { first_name: 'Ann <3', coupon: 'SAVE10', items: [{ name: 'Mug' }] },
      });
      expect(res.status, await res.clone().text()).toBe(202);
      const mail = await deliveredTo('ann@customer.example');
      expect(mail.subject).toBe('Welcome, Ann <3');
      expect(mail.from?.value[0]).toMatchObject({ address: 'hello@shop.example', name: 'Shop' });
      expect(mail.replyTo?.value[0].address).toBe('help@shop.example');
      expect(mail.html).toContain('<p style="color: #123456;">Hello Ann &lt;3</p>');
      expect(mail.html).toContain('Code SAVE10');
      expect(mail.text).toContain('Hello Ann <3');
      // the stored message is the rendered one: a later edit changes nothing already accepted
      const { trans_uuid } = ((await res.json()) as { data: { trans_uuid: string }[] }).data[0];
      await put(me.cookie, published.id, { content_html: '<p>Changed {{first_name}}</p>' });
      const stored = await app.ctx.db
        .selectFrom('transactions')
        .innerJoin('messages', 'messages.id', 'transactions.message_id')
        .select(['messages.html', 'messages.subject'])
        .where('transactions.uuid', '=', trans_uuid)
        .executeTakeFirstOrThrow();
      expect(stored.html).toContain('Hello Ann &lt;3');
      await put(me.cookie, published.id, { content_html: welcome.content_html });
    },
  );

  it('refuses a draft with the documented 422 unprocessable, naming it, and queues nothing', async () => {
    const draft = await made(me.cookie, { ...welcome, name: 'Not yet' });
    expect(draft.status).toBe('draft');
    const message = { from: 'hello@shop.example', to: 'nobody@customer.example' };
    for (const [path, body] of [
      ['/v1/mail', { ...message, template_id: draft.id }],
      ['/v1/emails', { ...message, template: { id: draft.id } }],
    ] as const) {
      const res = await sendMail(me.apiKey, body, path);
      expect(res.status, path).toBe(422);
      const answer = await res.json();
      expect(answer.error, path).toMatchObject({ code: 'unprocessable', message: expect.stringContaining('draft') });
    }
    const queued = await app.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('to_email', '=', 'nobody@customer.example')
      .execute();
    expect(queued).toEqual([]);
  });

  it('by alias, with the request’s from, subject (rendered with the same variables) and reply-to', async () => {
    const res = await sendMail(me.apiKey, {
      from: 'Orders <orders@shop.example>',
      reply_to: 'desk@shop.example',
      subject: 'For {{first_name}}',
      to: 'bob@customer.example',
      template_id: 'welcome',
      variables: { first_name: 'Bob', items: [] },
    });
    expect(res.status).toBe(202);
    const mail = await deliveredTo('bob@customer.example');
    expect(mail.subject).toBe('For Bob');
    expect(mail.from?.value[0].address).toBe('orders@shop.example');
    expect(mail.replyTo?.value[0].address).toBe('desk@shop.example');
  });

  it('a publish is seen by the next send (the cached compiled template is replaced)', async () => {
    expect(
      (
        await sendMail(me.apiKey, {
          to: 'c@customer.example',
          template_id: published.id,
          variables: { first_name: 'C', items: [] },
        })
      ).status,
    ).toBe(202);
    await put(me.cookie, published.id, { content_html: '<p>Version two for {{first_name}}</p>', status: 'published' });
    expect(
      (
        await sendMail(me.apiKey, {
          to: 'd@customer.example',
          template_id: published.id,
          variables: { first_name: 'D' },
        })
      ).status,
    ).toBe(202);
    const mail = await deliveredTo('d@customer.example');
    expect(mail.html).toContain('Version two for D');
    expect(
      (await put(me.cookie, published.id, { content_html: welcome.content_html, status: 'published' })).status,
    ).toBe(200);
  });

  it('batch: each message rendered with its own variables; a bad one names its index', async () => {
    const ok = await sendMail(
      me.apiKey,
      [
        { to: 'e@customer.example', template_id: published.id, variables: { first_name: 'E', items: [] } },
        { to: 'f@customer.example', template_id: 'welcome', variables: { first_name: 'F', items: [] } },
      ],
      '/v1/mail/batch',
    );
    expect(ok.status).toBe(202);
    const bad = await sendMail(
      me.apiKey,
      [
        { to: 'e@customer.example', template_id: published.id, variables: { first_name: 'E', items: [] } },
        { to: 'f@customer.example', template_id: published.id, variables: {} },
      ],
      '/v1/mail/batch',
    );
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^Message 1:/);
  });

  it(
    'refuses: a draft (422), missing variables (422 missing_variables with the names), variables not an object ' +
      '(400), template with html (400)',
    async () => {
      const draft = await made(me.cookie, { ...welcome, status: 'draft' });
      const count = async () =>
        Number(
          (
            await app.ctx.db
              .selectFrom('transactions')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const d = await sendMail(me.apiKey, {
        to: 'a@customer.example',
        template_id: draft.id,
        variables: { first_name: 'A', items: [] },
      });
      expect(d.status).toBe(422);
      const m = await sendMail(me.apiKey, {
        to: 'a@customer.example',
        template_id: published.id,
        variables: { coupon: 'X' },
      });
      expect(m.status).toBe(422);
      expect(((await m.json()) as { error: { code: string; details: string[] } }).error).toMatchObject({
        code: 'missing_variables',
        details: ['first_name', 'items'],
      });
      for (const variables of ['first_name', [1], 3]) {
        const v = await sendMail(me.apiKey, { to: 'a@customer.example', template_id: published.id, variables });
        expect(v.status).toBe(400);
      }
      expect(
        (
          await sendMail(me.apiKey, {
            to: 'a@customer.example',
            template_id: published.id,
            html: '<p/>',
            variables: { first_name: 'A', items: [] },
          })
        ).status,
      ).toBe(400);
      expect(await count()).toBe(before);
    },
  );

  it('the official resend SDK sends with emails.send({ template }) and gets Resend-shaped errors', async () => {
    const resend = new Resend(me.apiKey, { baseUrl: `${server.origin}/v1` });
    const { data, error } = await resend.emails.send({
      to: 'sdk@customer.example',
      template: { id: published.id, variables: { first_name: 'Sdk', items: '' } },
    });
    expect(error).toBeNull();
    expect(data?.id).toMatch(/^[0-9a-f-]{36}$/);
    const mail = await deliveredTo('sdk@customer.example');
    expect(mail.subject).toBe('Welcome, Sdk');
    expect(mail.from?.value[0]).toMatchObject({ address: 'hello@shop.example', name: 'Shop' });
    const missing = await resend.emails.send({
      to: 'sdk@customer.example',
      template: { id: 'welcome', variables: {} },
    });
    expect(missing.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(missing.error?.message).toMatch(/first_name, items/);
  });
});

describe('Publish needs a name, a subject and a from address at a verified domain; Save keeps anything', () => {
  type Problem = { path: string; message: string; line?: number; column?: number };
  const refusal = async (res: Response) => {
    expect(res.status).toBe(422);
    return ((await res.json()) as { error: { code: string; message: string; details: Problem[] } }).error;
  };

  it(
    'an empty template is refused at Publish (PUT and POST) ' + 'with each missing field named; nothing is published',
    async () => {
      const draft = await made(me.cookie, { name: '', from_email: '', subject: '', content_html: '' });
      const error = await refusal(await put(me.cookie, draft.id, { status: 'published' }));
      expect(error.code).toBe('unprocessable');
      expect(error.details.map((d) => d.path)).toEqual(['name', 'from_email', 'subject']);
      expect(error.message).toMatch(/name: .*from_email: .*subject: /);
      expect(((await (await get(me.cookie, draft.id)).json()) as { template: Wire }).template.status).toBe('draft');

      const count = async () =>
        Number(
          (
            await app.ctx.db
              .selectFrom('templates')
              .where('customer_id', '=', me.account.customerId)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();
      const created = await refusal(await create(me.cookie, { content_html: '<p>Hi</p>', status: 'published' }));
      expect(created.details.map((d) => d.path)).toEqual(['name', 'from_email', 'subject']);
      expect(await count()).toBe(before);
    },
  );

  it(
    "the placeholder name 'Untitled Template', a blank " + 'subject and an unverified domain are refused too',
    async () => {
      const draft = await made(me.cookie, {
        name: 'Untitled Template',
        from_email: 'a@pending.example',
        subject: '   ',
        content_html: '<p/>',
      });
      const error = await refusal(await put(me.cookie, draft.id, { status: 'published' }));
      expect(error.details).toEqual([
        { path: 'name', message: 'Give the template a name to publish it' },
        {
          path: 'from_email',
          message: 'The domain pending.example is not a verified sending domain of this account',
        },
        { path: 'subject', message: 'Give the template a subject to publish it' },
      ]);
      // the same request with the fields given publishes
      const res = await put(me.cookie, draft.id, {
        name: 'Order shipped',
        from_email: 'ship@shop.example',
        subject: 'Shipped',
        status: 'published',
      });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(((await res.json()) as { template: Wire }).template.status).toBe('published');
    },
  );

  it(
    'Save keeps a draft whose HTML does not compile; Publish refuses it with the whole parser message, line and ' +
      'column',
    async () => {
      const html = '<p>Hello</p>\n<p>{{first_name}</p>\n';
      const t = await made(me.cookie, { ...welcome, content_html: html });
      const saved = await put(me.cookie, t.id, { content_html: `${html}<p>more</p>`, status: 'draft' });
      expect(saved.status).toBe(200);
      expect(((await saved.json()) as { template: Wire }).template.content_html).toBe(`${html}<p>more</p>`);
      const error = await refusal(await put(me.cookie, t.id, { status: 'published' }));
      expect(error.details).toHaveLength(1);
      expect(error.details[0]).toMatchObject({ path: 'content_html', line: 2, column: 16 });
      // what was expected and what was found, not only "Parse error on line 2:"
      expect(error.details[0].message).toMatch(
        /^content_html line 2, column 16: parse error: expecting .*'CLOSE'.*, got 'INVALID'$/,
      );
      expect(error.message).toContain(error.details[0].message);
    },
  );

  it(
    'Save of a published template keeps what is sent until the next Publish, even when the edit does not ' + 'compile',
    async () => {
      const t = await made(me.cookie, {
        ...welcome,
        name: 'Live',
        content_html: '<p>Live for {{first_name}}</p>',
        status: 'published',
      });
      expect(t).toMatchObject({ status: 'published' });
      const saved = await put(me.cookie, t.id, {
        content_html: '<p>Half done {{first_name</p>',
        subject: 'New subject {{',
      });
      expect(saved.status).toBe(200);
      const wire = ((await saved.json()) as { template: Wire & { unpublished_changes: boolean } }).template;
      expect(wire).toMatchObject({
        status: 'published',
        unpublished_changes: true,
        content_html: '<p>Half done {{first_name</p>',
      });

      expect(
        (
          await sendMail(me.apiKey, {
            to: 'live@customer.example',
            template_id: t.id,
            variables: { first_name: 'Liv' },
          })
        ).status,
      ).toBe(202);
      const mail = await deliveredTo('live@customer.example');
      expect(mail.html).toContain('Live for Liv');
      expect(mail.subject).toBe('Welcome, Liv');

      const error = await refusal(await put(me.cookie, t.id, { status: 'published' }));
      expect(error.details[0]).toMatchObject({ path: 'subject', line: 1 });
      const fixed = await put(me.cookie, t.id, {
        content_html: '<p>Done for {{first_name}}</p>',
        subject: 'New subject',
        status: 'published',
      });
      expect(((await fixed.json()) as { template: Wire & { unpublished_changes: boolean } }).template).toMatchObject({
        status: 'published',
        unpublished_changes: false,
      });
      expect(
        (
          await sendMail(me.apiKey, {
            to: 'live2@customer.example',
            template_id: t.id,
            variables: { first_name: 'Liv' },
          })
        ).status,
      ).toBe(202);
      const next = await deliveredTo('live2@customer.example');
      expect(next.html).toContain('Done for Liv');
      expect(next.subject).toBe('New subject');
    },
  );
});

describe('POST /v1/templates/search takes a direction on the default key', () => {
  it(
    "sort 'ASC' / 'DESC' in any case orders by description; " + "'DESC' is the default; '-description' still works",
    async () => {
      const { cookie } = await signedIn('sort-direction.example');
      for (const [name, description] of [
        ['One', 'b'],
        ['Two', 'c'],
        ['Three', 'a'],
      ])
        await made(cookie, { name, description, content_html: '<p/>' });
      const names = async (body: unknown) => {
        const res = await search(cookie, body);
        expect(res.status, await res.clone().text()).toBe(200);
        return ((await res.json()) as { data: Wire[] }).data.map((t) => t.name);
      };
      const descending = ['Two', 'One', 'Three'];
      expect(await names({ page: 1 })).toEqual(descending);
      for (const sort of ['DESC', 'desc', 'Desc', '-description'])
        expect(await names({ sort, page: 1 })).toEqual(descending);
      for (const sort of ['ASC', 'asc', 'aSc', 'description'])
        expect(await names({ sort, page: 1 })).toEqual([...descending].reverse());
      expect(await names({ templateType: 'user', sort: 'ASC' })).toEqual([...descending].reverse());
      for (const sort of ['ascending', 'DESC ', 'up'])
        expect((await search(cookie, { sort, page: 1 })).status).toBe(400);
    },
  );
});
