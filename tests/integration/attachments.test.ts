// Online attachments (docs/console-reports.md §3, §5, §7) over real HTTP on both storage backends
// (local directory and s3rver): the console calls, every bad input (each changes
// nothing), tenant isolation, blobs removed with their link and by the sweep, and the public page:
// downloads by POST with RFC 6266 names, nosniff and ranges, expiry, the access limit (racing for
// the last slot), resumes (uncounted only for the client that downloaded that file) and forged ids.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/server/server.ts';
import { sweepOrphanBlobs } from '../../src/server/attachments/attachments.service.ts';
import { RESUME_WINDOW_MS, purgeDownloads } from '../../src/server/attachments/attachments.repository.ts';
import { ORIGIN, createTestApp, type TestApp } from '../helpers/app.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';

const MAX_FILE = 2 * 1024 * 1024;
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 1)]);

interface Part {
  name: string;
  /** The whole Content-Disposition value, when the test needs an RFC 5987 filename*. */
  disposition?: string;
  value?: string;
  filename?: string;
  type?: string;
  body?: Buffer;
}

/** A multipart/form-data body built byte for byte (file names exactly as given, NUL included). */
function multipart(parts: Part[]): { body: Buffer; type: string } {
  const boundary = `----transact${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition =
      p.disposition ??
      (p.filename !== undefined
        ? `form-data; name="${p.name}"; filename="${p.filename}"`
        : `form-data; name="${p.name}"`);
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${
          p.filename !== undefined ? `Content-Type: ${p.type ?? 'application/octet-stream'}\r\n` : ''
        }\r\n`,
        'utf8',
      ),
    );
    chunks.push(p.body ?? Buffer.from(p.value ?? '', 'utf8'), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

/** A multipart body whose one file part is `size` bytes, streamed (never whole in memory). */
function streamedFile(name: string, size: number): { body: ReadableStream; type: string } {
  const boundary = '----transactstream';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="asset"; filename="${name}"\r\nContent-Type: ` +
      `application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  async function* gen() {
    yield head;
    for (let left = size; left > 0; left -= 65536) yield Buffer.alloc(Math.min(left, 65536), 120);
    yield tail;
  }
  return {
    body: Readable.toWeb(Readable.from(gen())) as ReadableStream,
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

describe.each(['local', 's3'] as const)('online attachments on %s storage', (backend) => {
  let app: TestApp;
  let s3: TestS3 | undefined;
  let http: Server;
  let base: string;
  let cookie: string;
  let other: string;
  let customerId: number;

  beforeAll(async () => {
    if (backend === 's3') s3 = await startS3();
    // TRUST_PROXY: the tests speak as several client addresses through X-Forwarded-For
    app = await createTestApp({ ATTACHMENT_MAX_FILE_BYTES: String(MAX_FILE), TRUST_PROXY: 'true', ...(s3?.env ?? {}) });
    http = createHttpServer({ ctx: app.ctx, api: app.api });
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const a = await app.createAccount();
    customerId = a.customerId;
    cookie = await app.signIn(a.email, a.password);
    const b = await app.createAccount();
    other = await app.signIn(b.email, b.password);
  });
  afterAll(async () => {
    http?.close();
    await app?.close();
    await s3?.close();
  });

  const headers = (who = cookie, extra: Record<string, string> = {}) => ({
    Cookie: who,
    'Request-Type': 'ui',
    Origin: ORIGIN,
    ...extra,
  });
  const send = (method: string, path: string, body?: { body: Buffer | ReadableStream; type: string }, who = cookie) =>
    fetch(`${base}${path}`, {
      method,
      headers: headers(who, body ? { 'Content-Type': body.type } : {}),
      body: body?.body,
      duplex: 'half',
    } as RequestInit);
  const json = (method: string, path: string, value: unknown, who = cookie) =>
    fetch(`${base}${path}`, {
      method,
      headers: headers(who, { 'Content-Type': 'application/json' }),
      body: JSON.stringify(value),
    });
  const createGroup = async (group: unknown, file?: { name: string; body: Buffer }) => {
    const parts: Part[] = [{ name: 'group', value: JSON.stringify(group) }];
    if (file) parts.push({ name: 'asset', filename: file.name, body: file.body, type: 'text/plain' });
    return send('POST', '/v1/tracked-attachments/groups', multipart(parts));
  };
  const blobs = async () => {
    const keys: string[] = [];
    for await (const o of app.ctx.storage.list('attachments/')) keys.push(o.key);
    return keys.sort();
  };
  const rowCounts = async () => ({
    groups: Number(
      (
        await app.ctx.db
          .selectFrom('attachment_groups')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
    assets: Number(
      (
        await app.ctx.db
          .selectFrom('attachment_assets')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  });
  const expectUnchanged = async (before: { blobs: string[]; rows: unknown }) => {
    expect(await blobs()).toEqual(before.blobs);
    expect(await rowCounts()).toEqual(before.rows);
  };
  const snapshot = async () => ({ blobs: await blobs(), rows: await rowCounts() });
  const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

  it('creates a link with a file, adds files, lists, reads and patches it partially', async () => {
    const expiry = Math.floor(Date.now() / 1000) + 86_400;
    const res = await createGroup(
      { name: 'Invoices', options: { expiry_timestamp: expiry, access_limit: 3 } },
      { name: 'first.txt', body: Buffer.from('first file') },
    );
    expect(res.status).toBe(201);
    const group = await res.json();
    expect(group).toMatchObject({
      name: 'Invoices',
      options: { expiry_timestamp: expiry, access_limit: 3 },
      assets: [{ name: 'first.txt', size: 10 }],
    });
    expect(group.preview_link).toMatch(new RegExp(`^${ORIGIN}/a/[A-Za-z0-9_-]{22}$`));
    expect(group.integration_id).toMatch(/^oa_/);

    const added = await send(
      'POST',
      `/v1/tracked-attachments/groups/${group.id}/assets`,
      multipart([
        { name: 'asset', filename: 'second.pdf', body: Buffer.from('%PDF-1.4 second'), type: 'application/pdf' },
      ]),
    );
    expect(added.status).toBe(201);
    const { assets } = await added.json();
    expect(assets[0]).toMatchObject({ name: 'second.pdf', size: 15, content_type: 'application/pdf' });

    const untitled = await (await createGroup({})).json();
    expect(untitled.name).toBe('Untitled');
    expect(untitled.options).toEqual({ expiry_timestamp: null, access_limit: 0 });

    const list = await (
      await fetch(`${base}/v1/tracked-attachments/groups?page=1&limit=8`, { headers: headers() })
    ).json();
    expect(list.pagination).toMatchObject({ page: 1, limit: 8, total: 2 });
    expect(list.data.map((g: { name: string }) => g.name)).toEqual(['Untitled', 'Invoices']);
    expect(list.data[1].asset_count).toBe(2);
    const filtered = await (
      await fetch(`${base}/v1/tracked-attachments/groups?name=invoi`, { headers: headers() })
    ).json();
    expect(filtered.data.map((g: { name: string }) => g.name)).toEqual(['Invoices']);

    // PATCH: only what is given changes
    const renamed = await (
      await json('PATCH', `/v1/tracked-attachments/groups/${group.id}`, { name: 'Renamed' })
    ).json();
    expect(renamed).toMatchObject({ name: 'Renamed', options: { expiry_timestamp: expiry, access_limit: 3 } });
    const limited = await (
      await json('PATCH', `/v1/tracked-attachments/groups/${group.id}`, { options: { access_limit: 0 } })
    ).json();
    expect(limited).toMatchObject({ name: 'Renamed', options: { expiry_timestamp: expiry, access_limit: 0 } });
    const cleared = await (
      await json('PATCH', `/v1/tracked-attachments/groups/${group.id}`, { options: { expiry_timestamp: null } })
    ).json();
    expect(cleared.options).toEqual({ expiry_timestamp: null, access_limit: 0 });
    const read = await (
      await fetch(`${base}/v1/tracked-attachments/groups/${group.id}`, { headers: headers() })
    ).json();
    expect(read.assets.map((a: { name: string }) => a.name)).toEqual(['first.txt', 'second.pdf']);
  });

  it('refuses bad link settings and changes nothing', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { id } = await (await createGroup({ name: 'Settings' })).json();
    const before = await snapshot();
    const bad = [
      { options: { expiry_timestamp: now + 367 * 86_400 } },
      { options: { access_limit: -1 } },
      { options: { access_limit: 'abc' } },
      { options: { access_limit: '5' } },
      { options: { access_limit: 1.5 } },
      { options: { expiry_timestamp: 'tomorrow' } },
      { colour: 'red' },
    ];
    for (const group of bad) {
      const created = await createGroup(group, { name: 'x.txt', body: Buffer.from('x') });
      expect(created.status, JSON.stringify(group)).toBe(400);
      const patched = await json('PATCH', `/v1/tracked-attachments/groups/${id}`, group);
      expect(patched.status, JSON.stringify(group)).toBe(400);
    }
    const notJson = await send(
      'POST',
      '/v1/tracked-attachments/groups',
      multipart([{ name: 'group', value: '{nope' }]),
    );
    expect(notJson.status).toBe(400);
    // the contract lists only multipart/form-data for this call
    const notMultipart = await json('POST', '/v1/tracked-attachments/groups', { name: 'x' });
    expect(notMultipart.status).toBe(415);
    expect((await errorOf(notMultipart)).code).toBe('unsupported_media_type');
    await expectUnchanged(before);
    const unchanged = await (await fetch(`${base}/v1/tracked-attachments/groups/${id}`, { headers: headers() })).json();
    expect(unchanged.options).toEqual({ expiry_timestamp: null, access_limit: 0 });
  });

  it(
    'refuses an expiry that is not in the future (now, 30 s ago, a day ago) on create and on change with 422 ' +
      'naming expiry_timestamp, takes one an hour ahead, and keeps an expired link renameable',
    async () => {
      const now = Math.floor(Date.now() / 1000);
      const { id } = await (await createGroup({ name: 'Soon' }, { name: 's.txt', body: Buffer.from('s') })).json();
      const before = await snapshot();
      for (const expiry of [Math.floor(Date.now() / 1000), now - 30, now - 86_400]) {
        for (const res of [
          await createGroup(
            { name: 'Dead', options: { expiry_timestamp: expiry } },
            { name: 'd.txt', body: Buffer.from('d') },
          ),
          await json('PATCH', `/v1/tracked-attachments/groups/${id}`, { options: { expiry_timestamp: expiry } }),
        ]) {
          expect(res.status, String(expiry)).toBe(422);
          expect(await res.json()).toEqual({
            error: {
              code: 'unprocessable',
              message: 'The expiry date must be in the future (options.expiry_timestamp)',
              details: [{ path: 'options.expiry_timestamp', message: 'must be in the future' }],
            },
          });
        }
      }
      await expectUnchanged(before);

      // an hour ahead is taken, on create and on change
      const hourAhead = Math.floor(Date.now() / 1000) + 3600;
      const made = await createGroup(
        { name: 'Within the hour', options: { expiry_timestamp: hourAhead } },
        { name: 'h.txt', body: Buffer.from('h') },
      );
      expect(made.status).toBe(201);
      expect(await made.json()).toMatchObject({ state: 'live', options: { expiry_timestamp: hourAhead } });
      const changed = await json('PATCH', `/v1/tracked-attachments/groups/${id}`, {
        options: { expiry_timestamp: hourAhead },
      });
      expect(changed.status).toBe(200);
      expect(await changed.json()).toMatchObject({ state: 'live', options: { expiry_timestamp: hourAhead } });

      // a link a week ahead is live, with its downloads counted from 0
      const weekAhead = now + 7 * 86_400;
      const live = await (
        await json('PATCH', `/v1/tracked-attachments/groups/${id}`, {
          options: { expiry_timestamp: weekAhead, access_limit: 2 },
        })
      ).json();
      expect(live).toMatchObject({
        state: 'live',
        downloads: 0,
        options: { expiry_timestamp: weekAhead, access_limit: 2 },
      });

      // a link whose time has come says so, and saving it with the expiry it has (a rename) still works
      await app.ctx.db
        .updateTable('attachment_groups')
        .set({ expires_at: new Date((now - 3600) * 1000) })
        .where('id', '=', id)
        .execute();
      const expired = await (await fetch(`${base}/v1/tracked-attachments/groups/${id}`, { headers: headers() })).json();
      expect(expired.state).toBe('expired');
      const renamed = await json('PATCH', `/v1/tracked-attachments/groups/${id}`, {
        name: 'Was soon',
        options: { expiry_timestamp: now - 3600, access_limit: 2 },
      });
      expect(renamed.status).toBe(200);
      expect(await renamed.json()).toMatchObject({
        name: 'Was soon',
        state: 'expired',
        options: { expiry_timestamp: now - 3600 },
      });
      const listed = await (
        await fetch(`${base}/v1/tracked-attachments/groups?name=was%20soon`, { headers: headers() })
      ).json();
      expect(listed.data.map((g: { state: string }) => g.state)).toEqual(['expired']);
    },
  );

  it(
    'answers 413 while a file over ATTACHMENT_MAX_FILE_BYTES ' + 'streams, and keeps nothing; refuses empty files',
    async () => {
      const { id } = await (await createGroup({ name: 'Limits' })).json();
      const before = await snapshot();
      const big = await send(
        'POST',
        `/v1/tracked-attachments/groups/${id}/assets`,
        streamedFile('big.bin', MAX_FILE + 65536 * 4),
      );
      expect(big.status).toBe(413);
      expect((await errorOf(big)).code).toBe('payload_too_large');
      const bigNew = await send('POST', '/v1/tracked-attachments/groups', streamedFile('big.bin', MAX_FILE + 1));
      expect(bigNew.status).toBe(413);
      const empty = await send(
        'POST',
        `/v1/tracked-attachments/groups/${id}/assets`,
        multipart([{ name: 'asset', filename: 'empty.txt', body: Buffer.alloc(0) }]),
      );
      expect(empty.status).toBe(400);
      expect((await errorOf(empty)).message).toBe('The file is empty');
      const none = await send(
        'POST',
        `/v1/tracked-attachments/groups/${id}/assets`,
        multipart([{ name: 'other', value: 'x' }]),
      );
      expect(none.status).toBe(400);
      await expectUnchanged(before);
      // exactly the limit is accepted
      const exact = await send(
        'POST',
        `/v1/tracked-attachments/groups/${id}/assets`,
        streamedFile('exact.bin', MAX_FILE),
      );
      expect(exact.status).toBe(201);
    },
  );

  it('stores file names sanitised, not refused', async () => {
    const { id } = await (await createGroup({ name: 'Names' })).json();
    // a NUL cannot stand in a part header; it arrives percent-encoded in an RFC 5987 filename*
    const upload = (filename: string) =>
      send(
        'POST',
        `/v1/tracked-attachments/groups/${id}/assets`,
        multipart([
          {
            name: 'asset',
            filename,
            disposition: `form-data; name="asset"; filename*=utf-8''${encodeURIComponent(filename)}`,
            body: Buffer.from('data'),
          },
        ]),
      );
    const names: string[] = [];
    for (const filename of ['../../etc/passwd', 'a\u0000b.txt', 'é'.repeat(300), '..\\..\\win.ini']) {
      const res = await upload(filename);
      expect(res.status, `${filename} ${res.status === 201 ? '' : await res.clone().text()}`).toBe(201);
      names.push((await res.json()).assets[0].name);
    }
    expect(names[0]).toBe('passwd');
    expect(names[1]).toBe('ab.txt');
    expect(Buffer.byteLength(names[2])).toBeLessThanOrEqual(255);
    expect(names[2]).toBe('é'.repeat(127));
    expect(names[3]).toBe('win.ini');
  });

  it("answers 404 for another customer's link and file, and changes nothing", async () => {
    const group = await (await createGroup({ name: 'Mine' }, { name: 'mine.txt', body: Buffer.from('mine') })).json();
    const assetId = group.assets[0].id;
    const before = await snapshot();
    const p = `/v1/tracked-attachments/groups/${group.id}`;
    expect((await fetch(`${base}${p}`, { headers: headers(other) })).status).toBe(404);
    expect((await json('PATCH', p, { name: 'Theirs' }, other)).status).toBe(404);
    expect((await send('DELETE', p, undefined, other)).status).toBe(404);
    expect(
      (
        await send(
          'POST',
          `${p}/assets`,
          multipart([{ name: 'asset', filename: 'x.txt', body: Buffer.from('x') }]),
          other,
        )
      ).status,
    ).toBe(404);
    expect((await send('DELETE', `${p}/assets/${assetId}`, undefined, other)).status).toBe(404);
    expect((await send('DELETE', `/v1/tracked-attachments/groups/999999/assets/${assetId}`)).status).toBe(404);
    expect((await fetch(`${base}/v1/tracked-attachments/groups/abc`, { headers: headers() })).status).toBe(404);
    const theirList = await (
      await fetch(`${base}/v1/tracked-attachments/groups?name=Mine`, { headers: headers(other) })
    ).json();
    expect(theirList.data).toEqual([]);
    await expectUnchanged(before);
    expect((await (await fetch(`${base}${p}`, { headers: headers() })).json()).name).toBe('Mine');
  });

  it("removes a deleted file's blob and a deleted link's blobs", async () => {
    const group = await (await createGroup({ name: 'Doomed' }, { name: 'a.txt', body: Buffer.from('aaa') })).json();
    await send(
      'POST',
      `/v1/tracked-attachments/groups/${group.id}/assets`,
      multipart([{ name: 'asset', filename: 'b.txt', body: Buffer.from('bbb') }]),
    );
    const keys = await app.ctx.db
      .selectFrom('attachment_assets')
      .select('storage_key')
      .where('group_id', '=', group.id)
      .orderBy('id')
      .execute();
    expect(keys).toHaveLength(2);
    const [first, second] = await app.ctx.db
      .selectFrom('attachment_assets')
      .select('id')
      .where('group_id', '=', group.id)
      .orderBy('id')
      .execute();
    expect((await send('DELETE', `/v1/tracked-attachments/groups/${group.id}/assets/${first.id}`)).status).toBe(200);
    expect(await app.ctx.storage.stat(keys[0].storage_key)).toBeUndefined();
    expect(await app.ctx.storage.stat(keys[1].storage_key)).toBeDefined();
    expect((await send('DELETE', `/v1/tracked-attachments/groups/${group.id}`)).status).toBe(200);
    expect(await app.ctx.storage.stat(keys[1].storage_key)).toBeUndefined();
    expect(second.id).toBeGreaterThan(first.id);
    expect((await fetch(`${base}/v1/tracked-attachments/groups/${group.id}`, { headers: headers() })).status).toBe(404);
  });

  it('sweeps blobs whose rows never committed, after a grace period', async () => {
    const group = await (await createGroup({ name: 'Kept' }, { name: 'kept.txt', body: Buffer.from('kept') })).json();
    await app.ctx.storage.put('attachments/orphan-from-a-crash', Readable.from([Buffer.from('lost')]));
    expect(await sweepOrphanBlobs(app.ctx, 60_000)).toBe(0); // too young: may be an upload in progress
    const later = new Date(Date.now() + 2 * 3600_000);
    expect(await sweepOrphanBlobs(app.ctx, 3600_000, later)).toBe(1);
    expect(await app.ctx.storage.stat('attachments/orphan-from-a-crash')).toBeUndefined();
    const row = await app.ctx.db
      .selectFrom('attachment_assets')
      .select('storage_key')
      .where('group_id', '=', group.id)
      .executeTakeFirstOrThrow();
    expect(await app.ctx.storage.stat(row.storage_key)).toBeDefined();
  });

  describe('branding', () => {
    const settings = {
      page: { colour: '#102030', text_colour: '#ffffff' },
      button: { colour: '#ff6600', text_colour: '#000000' },
      link: { colour: '#ffffff', text_colour: '#333333' },
    };
    const saveBranding = (logo?: { filename: string; body: Buffer }, value: unknown = settings) =>
      send(
        'POST',
        '/v1/tracked-attachments/branding',
        multipart([
          { name: 'settings', value: JSON.stringify(value) },
          ...(logo ? [{ name: 'asset', filename: logo.filename, body: logo.body, type: 'image/png' }] : []),
        ]),
      );

    it('refuses logos by their bytes, size and name, and bad colours, changing nothing', async () => {
      const before = await snapshot();
      const cases: [string, Buffer, number, string][] = [
        [
          'logo.png',
          Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
          400,
          "File type 'svg' not allowed",
        ],
        ['logo.png', Buffer.from('<!doctype html><html><body>hi</body></html>'), 400, "File type 'html' not allowed"],
        ['logo.svg', Buffer.from('<svg/>'), 400, "File type 'svg' not allowed"],
        [
          'logo.png',
          Buffer.concat([PNG, Buffer.alloc(524_288 - PNG.length)]),
          413,
          'File size exceeds the maximum file size',
        ],
        ['logo.png', Buffer.alloc(0), 400, 'The file is empty'],
        ['logo.gif', Buffer.from('GIF'), 400, "File type 'unknown' not allowed"],
      ];
      for (const [filename, body, status, message] of cases) {
        const res = await saveBranding({ filename, body });
        const text = await res.text();
        expect(res.status, `${filename} ${message} ${text}`).toBe(status);
        expect(JSON.parse(text).error.message, filename).toBe(message);
      }
      expect(
        (await saveBranding(undefined, { ...settings, page: { colour: 'red', text_colour: '#fff' } })).status,
      ).toBe(400);
      await expectUnchanged(before);
      const branding = await (await fetch(`${base}/v1/tracked-attachments/branding`, { headers: headers() })).json();
      expect(branding.logo).toBeNull();
      expect(branding.link).toEqual({ colour: '#ffffff', text_colour: '#333333' });
    });

    it('saves colours and a logo just under 512 KB, serves it, replaces and deletes it', async () => {
      const logo = Buffer.concat([PNG, Buffer.alloc(524_287 - PNG.length)]);
      const res = await saveBranding({ filename: 'brand.png', body: logo });
      expect(res.status).toBe(200);
      const saved = await res.json();
      expect(saved).toMatchObject({
        ...settings,
        logo: { fileName: 'brand.png', url: '/v1/tracked-attachments/branding/logo' },
        message: 'Branding settings saved successful',
      });
      const image = await fetch(`${base}/v1/tracked-attachments/branding/logo`, { headers: headers() });
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await image.arrayBuffer()).equals(logo)).toBe(true);
      const firstKey = (
        await app.ctx.db
          .selectFrom('attachment_branding')
          .select('logo_key')
          .where('customer_id', '=', customerId)
          .executeTakeFirstOrThrow()
      ).logo_key!;
      const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100)]);
      expect((await saveBranding({ filename: 'brand.JPG', body: jpeg })).status).toBe(200);
      expect(await app.ctx.storage.stat(firstKey)).toBeUndefined(); // the replaced logo's blob is gone
      // saving colours alone keeps the logo
      expect((await (await saveBranding()).json()).logo.fileName).toBe('brand.JPG');
      const other404 = await fetch(`${base}/v1/tracked-attachments/branding/logo`, { headers: headers(other) });
      expect(other404.status).toBe(404);
      const deleted = await send('DELETE', '/v1/tracked-attachments/branding/logo');
      expect(await deleted.json()).toEqual({ message: 'Logo successfully deleted' });
      expect((await send('DELETE', '/v1/tracked-attachments/branding/logo')).status).toBe(404);
      expect(await blobs()).not.toContain(firstKey);
    });
  });

  describe('the public page', () => {
    const pageOf = (link: string) => new URL(link).pathname;
    const download = (path: string, init: { range?: string; r?: string; from?: string } = {}) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          ...(init.range ? { Range: init.range } : {}),
          ...(init.from ? { 'X-Forwarded-For': init.from } : {}),
        },
        body: init.r ? `r=${encodeURIComponent(init.r)}` : '',
        redirect: 'manual',
      });

    it('shows the files, and a POST downloads with RFC 6266 names, nosniff and ranges', async () => {
      const body = Buffer.from('0123456789abcdef');
      const group = await (await createGroup({ name: 'Report <Q1>' }, { name: 'Résumé final.txt', body })).json();
      const path = pageOf(group.preview_link);
      const page = await fetch(`${base}${path}`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('Report &#60;Q1&#62;');
      expect(html).toContain('16 Bytes');
      expect(html).not.toContain('<script');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');

      // a GET of the download address does nothing: the route takes POST only (405, Allow: POST)
      expect((await fetch(`${base}${path}/files/${group.assets[0].id}`)).status).toBe(405);
      const res = await download(`${path}/files/${group.assets[0].id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="R?sum? final.txt"; filename*=UTF-8''R%C3%A9sum%C3%A9%20final.txt`,
      );
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('accept-ranges')).toBe('bytes');
      expect(Buffer.from(await res.arrayBuffer()).equals(body)).toBe(true);

      const ranged = await download(`${path}/files/${group.assets[0].id}`, { range: 'bytes=10-' });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe('bytes 10-15/16');
      expect(await ranged.text()).toBe('abcdef');
      const bad = await download(`${path}/files/${group.assets[0].id}`, { range: 'bytes=99-' });
      expect(bad.status).toBe(416);
      const row = await app.ctx.db
        .selectFrom('attachment_groups')
        .select('downloads')
        .where('id', '=', group.id)
        .executeTakeFirstOrThrow();
      expect(row.downloads).toBe(1); // the continuation did not count again
    });

    it('counts downloads against the limit, continuations excepted, and refuses the next with a page', async () => {
      const group = await (
        await createGroup(
          { name: 'Limited', options: { access_limit: 2 } },
          { name: 'f.txt', body: Buffer.from('limited file') },
        )
      ).json();
      const file = `${pageOf(group.preview_link)}/files/${group.assets[0].id}`;
      expect((await download(file)).status).toBe(200);
      expect((await download(file, { range: 'bytes=0-3' })).status).toBe(206); // starts at 0: a new download
      expect((await download(file, { range: 'bytes=4-' })).status).toBe(206); // continues: not counted
      const refused = await download(file);
      expect(refused.status).toBe(410);
      expect(await refused.text()).toContain('Download limit reached');
      const page = await fetch(`${base}${pageOf(group.preview_link)}`);
      expect(page.status).toBe(410);
      expect(await page.text()).not.toContain('f.txt');
      // the console's calls say the link is used up
      const read = await (
        await fetch(`${base}/v1/tracked-attachments/groups/${group.id}`, { headers: headers() })
      ).json();
      expect(read).toMatchObject({ state: 'exhausted', downloads: 2, options: { access_limit: 2 } });
    });

    const countOf = async (groupId: number) =>
      (
        await app.ctx.db
          .selectFrom('attachment_groups')
          .select('downloads')
          .where('id', '=', groupId)
          .executeTakeFirstOrThrow()
      ).downloads;

    it(
      'counts a range not at byte 0 from a client with ' + 'no counted download, and refuses it once exhausted',
      async () => {
        const group = await (
          await createGroup(
            { name: 'Ranged', options: { access_limit: 1 } },
            { name: 'g.txt', body: Buffer.from('0123456789') },
          )
        ).json();
        const file = `${pageOf(group.preview_link)}/files/${group.assets[0].id}`;
        const first = await download(file, { range: 'bytes=1-', from: '192.0.2.1' });
        expect(first.status).toBe(206);
        expect(await first.text()).toBe('123456789');
        expect(await countOf(group.id)).toBe(1);
        // another client's bytes=1- is no resume of its own: a new download, and the limit is reached
        const refused = await download(file, { range: 'bytes=1-', from: '192.0.2.2' });
        expect(refused.status).toBe(410);
        expect(await refused.text()).toContain('Download limit reached');
        // so is one from the socket's own address with no X-Forwarded-For
        expect((await download(file, { range: 'bytes=5-' })).status).toBe(410);
        expect(await countOf(group.id)).toBe(1);
      },
    );

    it(
      'serves a real resume uncounted, even after the ' + 'download that took the last slot, per client and file',
      async () => {
        const group = await createGroup(
          { name: 'Resume', options: { access_limit: 1 } },
          { name: 'a.txt', body: Buffer.from('abcdefghij') },
        );
        const id = (await group.json()).id as number;
        const second = await send(
          'POST',
          `/v1/tracked-attachments/groups/${id}/assets`,
          multipart([{ name: 'asset', filename: 'b.txt', body: Buffer.from('0123456789'), type: 'text/plain' }]),
        );
        expect(second.status).toBeLessThan(300);
        const full = await (await send('GET', `/v1/tracked-attachments/groups/${id}`)).json();
        const [a, b] = full.assets as { id: number }[];
        const files = `${pageOf(full.preview_link)}/files`;
        expect((await download(`${files}/${a.id}`, { from: '192.0.2.10' })).status).toBe(200);
        expect(await countOf(id)).toBe(1); // the last slot is taken
        const resumed = await download(`${files}/${a.id}`, { range: 'bytes=4-', from: '192.0.2.10' });
        expect(resumed.status).toBe(206);
        expect(resumed.headers.get('content-range')).toBe('bytes 4-9/10');
        expect(await resumed.text()).toBe('efghij');
        expect((await download(`${files}/${a.id}`, { range: 'bytes=8-9', from: '192.0.2.10' })).status).toBe(206);
        expect(await countOf(id)).toBe(1);
        // the same client's range of another file of the link is a new download: refused
        expect((await download(`${files}/${b.id}`, { range: 'bytes=4-', from: '192.0.2.10' })).status).toBe(410);
        // so is the same file from another address
        expect((await download(`${files}/${a.id}`, { range: 'bytes=4-', from: '192.0.2.11' })).status).toBe(410);
        // a start at byte 0 is always a new download
        expect((await download(`${files}/${a.id}`, { range: 'bytes=0-', from: '192.0.2.10' })).status).toBe(410);
        expect(await countOf(id)).toBe(1);
      },
    );

    it(
      'counts a resume from another client address or past ' + 'the resume window; the sweep purges old records',
      async () => {
        const group = await (
          await createGroup(
            { name: 'Window', options: { access_limit: 3 } },
            { name: 'w.txt', body: Buffer.from('window file') },
          )
        ).json();
        const file = `${pageOf(group.preview_link)}/files/${group.assets[0].id}`;
        expect((await download(file, { from: '192.0.2.20' })).status).toBe(200);
        expect((await download(file, { range: 'bytes=5-', from: '192.0.2.21' })).status).toBe(206);
        expect(await countOf(group.id)).toBe(2);
        const records = () =>
          app.ctx.db
            .selectFrom('attachment_downloads')
            .select(['client', 'at'])
            .where('group_id', '=', group.id)
            .execute();
        const rows = await records();
        expect(rows).toHaveLength(2);
        expect(rows.map((r) => r.client).join(' ')).not.toContain('192.0.2'); // digests, not addresses
        // a day later the first client's range is no longer a resume: it counts
        await app.ctx.db
          .updateTable('attachment_downloads')
          .set({ at: new Date(Date.now() - RESUME_WINDOW_MS - 1000) })
          .where('group_id', '=', group.id)
          .execute();
        expect((await download(file, { range: 'bytes=5-', from: '192.0.2.20' })).status).toBe(206);
        expect(await countOf(group.id)).toBe(3);
        expect(await purgeDownloads(app.ctx.db)).toBeGreaterThanOrEqual(2);
        expect(await records()).toHaveLength(1); // the fresh one stays
        // that fresh record still lets its client resume with the limit reached
        expect((await download(file, { range: 'bytes=7-', from: '192.0.2.20' })).status).toBe(206);
        expect((await download(file, { range: 'bytes=7-', from: '192.0.2.21' })).status).toBe(410);
      },
    );

    it('lets exactly one of two racing downloads take the last slot', async () => {
      for (let round = 0; round < 3; round++) {
        const group = await (
          await createGroup(
            { name: 'Race', options: { access_limit: 1 } },
            { name: 'r.txt', body: Buffer.from('race') },
          )
        ).json();
        const file = `${pageOf(group.preview_link)}/files/${group.assets[0].id}`;
        const statuses = (await Promise.all([download(file), download(file), download(file)]))
          .map((r) => r.status)
          .sort();
        expect(statuses).toEqual([200, 410, 410]);
      }
    });

    it('refuses an expired link and a forged id', async () => {
      const group = await (
        await createGroup(
          { name: 'Old', options: { expiry_timestamp: Math.floor(Date.now() / 1000) + 3600 } },
          { name: 'o.txt', body: Buffer.from('old') },
        )
      ).json();
      const path = pageOf(group.preview_link);
      expect(await (await fetch(`${base}${path}`)).text()).toContain('Expiry date: ');
      expect((await download(`${path}/files/${group.assets[0].id}`, { from: '198.51.100.7' })).status).toBe(200);
      await app.ctx.db
        .updateTable('attachment_groups')
        .set({ expires_at: new Date(Date.now() - 1000) })
        .where('id', '=', group.id)
        .execute();
      const page = await fetch(`${base}${path}`);
      expect(page.status).toBe(410);
      expect(await page.text()).toContain('This link has expired');
      expect((await download(`${path}/files/${group.assets[0].id}`)).status).toBe(410);
      expect((await download(`${path}/files/${group.assets[0].id}`, { range: 'bytes=1-' })).status).toBe(410);
      // the client that downloaded before expiry cannot resume after it
      const resume = await download(`${path}/files/${group.assets[0].id}`, { range: 'bytes=1-', from: '198.51.100.7' });
      expect(resume.status).toBe(410);
      expect(await resume.text()).toContain('This link has expired');
      expect((await fetch(`${base}/a/AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
      expect((await fetch(`${base}/a/not-an-id`)).status).toBe(404);
      expect((await download(`/a/AAAAAAAAAAAAAAAAAAAAAA/files/${group.assets[0].id}`)).status).toBe(404);
      // another link's file id under this link's address
      const other = await (await createGroup({ name: 'Other' }, { name: 'x.txt', body: Buffer.from('x') })).json();
      expect((await download(`${pageOf(other.preview_link)}/files/${group.assets[0].id}`)).status).toBe(404);
      const row = await app.ctx.db
        .selectFrom('attachment_groups')
        .select('downloads')
        .where('id', '=', group.id)
        .executeTakeFirstOrThrow();
      expect(row.downloads).toBe(1); // the one before expiry
    });
  });
});
