// Report exports (docs/console-reports.md §2 Export page, §7, §8): queued by
// POST v1/transaction-groups/reports/export, written by the worker's step (runOneExport) from the
// database into ctx.storage as CSV, mailed through the real pipeline (the delivery worker into a
// local SMTP sink), viewed with POST /v1/transaction-groups/export-view and downloaded with
// GET /v1/transaction-groups/export-download/{token}/{uuid}; purged after EXPORT_RETENTION_DAYS.
// Then a 200,000-row export, streamed: its row count, and the process's memory growth printed.
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, TEST_SECRET, type TestApp, type TestAccount, sendAsClient } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { peakLiveHeapGrowth } from '../helpers/live-heap.ts';
import { createUser } from '../../src/server/accounts/accounts.service.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import {
  ExportWorker,
  downloadToken,
  purgeExpiredExports,
  runOneExport,
} from '../../src/server/exports/exports.service.ts';
import { neutralise } from '../../src/server/exports/report-csv.ts';
import { formatUnix, REPORT_MOMENT } from '../../src/lib/dates.ts';
// the benchmark's bulk load, shared so the rows match bench:reports
import { deriveRollups, insertGroups, loadRows, resetSequences } from '../../scripts/bench/reports-data.mjs';

const DOMAIN = 'shop.example';
const BOM = '\uFEFF';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;
let shop: TestAccount;
let cookie: string;
let colleagueCookie: string;
let otherCookie: string;
let apiKey: string;
let group: string;
const uuid: string[] = [];

const SUBJECTS = [
  'Plain subject',
  '=HYPERLINK("http://evil.example","x")',
  '+1 gift for you',
  '-5% today, only',
  '@channel notice',
];

async function send(subject: string, to: string): Promise<string> {
  const res = await sendAsClient(app, '/v1/mail', apiKey, {
    from: { email: `orders@${DOMAIN}`, name: 'Shop, "Best"' },
    to,
    subject,
    text: 'Hello',
    group: 'Orders',
  });
  expect(res.status).toBe(202);
  return (await res.json()).data[0].trans_uuid;
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  sink = await startSmtpSink();
  sink.replies.set('gone@people.example', [550, '5.1.1 <gone@people.example>: User unknown']);
  app = await createTestApp({
    SMTP_RELAY_URL: sink.url,
    HOST: '127.0.0.1',
    SYSTEM_FROM: 'Transact <no-reply@transact.test>',
  });
  shop = await app.createAccount({ name: 'Ann Shop' });
  await addDomain(app.ctx, shop.customerId, DOMAIN, { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, shop.customerId)).apiCredentials.apiKey;
  cookie = await app.signIn(shop.email, shop.password);
  const colleague = await createUser(app.ctx, {
    customerId: shop.customerId,
    email: 'colleague@example.com',
    name: 'Colleague',
    password: 'a-long-enough-password',
    permissions: 'all',
  });
  expect(colleague.id).toBeGreaterThan(0);
  colleagueCookie = await app.signIn('colleague@example.com', 'a-long-enough-password');
  const other = await app.createAccount();
  otherCookie = await app.signIn(other.email, other.password);
  worker = new DeliveryWorker(app.ctx);
  worker.start();
  for (const [i, subject] of SUBJECTS.entries()) uuid.push(await send(subject, `buyer${i + 1}@people.example`));
  uuid.push(await send('Your order', 'gone@people.example'));
  await until('the deliveries', async () => {
    const rows = await app.ctx.db
      .selectFrom('transactions')
      .select('status')
      .where('customer_id', '=', shop.customerId)
      .execute();
    return rows.length === 6 && rows.every((r) => r.status !== 'queued');
  });
  group = (
    await app.ctx.db
      .selectFrom('transaction_groups')
      .select('uuid')
      .where('customer_id', '=', shop.customerId)
      .executeTakeFirstOrThrow()
  ).uuid;
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await sink?.close();
  await app?.close();
});

const today = () => new Date().toISOString().slice(0, 10);
const startOfToday = () => Date.parse(`${today()}T00:00:00Z`) / 1000;
const range = () => ({ start_date: startOfToday() - 29 * 86_400, end_date: startOfToday() + 86_399 });

async function queue(body: Record<string, unknown>, as = cookie): Promise<string> {
  const res = await app.call('POST', '/v1/transaction-groups/reports/export', {
    cookie: as,
    body: { group_uuid: group, isExport: true, ...range(), ...body },
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const answer = await res.json();
  expect(answer).toEqual({ message: 'Report queued', uuid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  return answer.uuid;
}

const view = (id: string, as = cookie) =>
  app.call('POST', '/v1/transaction-groups/export-view', { cookie: as, body: { uuid: id } });

async function download(id: string): Promise<{ res: Response; text: string }> {
  const viewed = await view(id);
  expect(viewed.status).toBe(200);
  const { token } = await viewed.json();
  const res = await app.call('GET', `/v1/transaction-groups/export-download/${token}/${id}`, {
    cookie,
    headers: { 'Accept-Encoding': 'identity' },
  });
  // Response.text() would drop the byte order mark: decode keeping it
  return { res, text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer()) };
}

/** The mail at the sink whose text names the export page of `id`. */
async function mailFor(id: string) {
  const url = `${ORIGIN}/export/${id}`;
  let found: Awaited<ReturnType<typeof simpleParser>> | undefined;
  await until('the export mail', async () => {
    for (const m of sink.messages) {
      const parsed = await simpleParser(m.raw);
      if (String(parsed.text).includes(url)) {
        found = parsed;
        return true;
      }
    }
    return false;
  });
  return found!;
}

describe('an export of the Sent report', () => {
  let id: string;

  it('is stored as a job with who asked, the report, group, range and filter', async () => {
    id = await queue({ report_type: 'sent', search_query: 'buyer' });
    const job = await app.ctx.db.selectFrom('exports').selectAll().where('uuid', '=', id).executeTakeFirstOrThrow();
    expect(job).toMatchObject({
      customer_id: shop.customerId,
      user_id: shop.userId,
      report_type: 'sent',
      search_query: 'buyer',
      status: 'queued',
      file_key: null,
    });
    expect(job.range_from).toEqual(new Date(range().start_date * 1000));
    expect(job.range_before).toEqual(new Date((range().end_date + 1) * 1000));
    // not written yet: the page is told to wait
    const waiting = await view(id);
    expect(waiting.status).toBe(202);
    const first = new Date(range().start_date * 1000).toISOString().slice(0, 10);
    expect(await waiting.json()).toEqual({
      fileName: `Orders-sent-${first}-to-${today()}.csv`,
      token: null,
      state: 'queued',
    });
  });

  it('is written by the worker as UTF-8 CSV with a readable header and every formula neutralised', async () => {
    expect(await runOneExport(app.ctx)).toBe(true);
    expect(await runOneExport(app.ctx)).toBe(false);
    const { res, text } = await download(id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="Orders-sent-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"; filename\*=UTF-8''Orders-sent-/,
    );
    const rows = await app.ctx.db
      .selectFrom('transactions')
      .select(['uuid', 'sent_at'])
      .where('uuid', 'in', uuid.slice(0, 5))
      .execute();
    const sentAt = new Map(
      rows.map((r) => [r.uuid, formatUnix(Math.floor(r.sent_at!.getTime() / 1000), REPORT_MOMENT)]),
    );
    const line = (i: number, subjectCell: string) =>
      `${sentAt.get(uuid[i])},"Shop, ""Best"" ` +
      `<orders@shop.example>",${subjectCell},buyer${i + 1}@people.example,Delivered,${uuid[i]}`;
    // newest first; 'gone' (failed at delivery) is not in the Sent report, nor matched by 'buyer'
    expect(text).toBe(
      [
        `${BOM}Date Sent,From,Subject,To,Status,Transaction ID`,
        line(4, "'@channel notice"),
        line(3, `"'-5% today, only"`),
        line(2, "'+1 gift for you"),
        line(1, `"'=HYPERLINK(""http://evil.example"",""x"")"`),
        line(0, 'Plain subject'),
        '',
      ].join('\r\n'),
    );
    const job = await app.ctx.db
      .selectFrom('exports')
      .select(['status', 'row_count', 'size_bytes'])
      .where('uuid', '=', id)
      .executeTakeFirstOrThrow();
    expect(job).toEqual({ status: 'ready', row_count: 5, size_bytes: Buffer.byteLength(text) });
  });

  it('mails the requester a link to /export/{uuid} as the system sender', async () => {
    const mail = await mailFor(id);
    expect(mail.to).toMatchObject({ value: [{ address: shop.email }] });
    expect(mail.from?.value[0].address).toBe('no-reply@transact.test');
    expect(mail.subject).toBe('Your Sent report export is ready');
    expect(String(mail.text)).toContain('(5 rows)');
    const job = await app.ctx.db
      .selectFrom('exports')
      .select('mailed_at')
      .where('uuid', '=', id)
      .executeTakeFirstOrThrow();
    expect(job.mailed_at).not.toBeNull();
    // our own mail is not in the customer's reports
    const counted = await app.ctx.db
      .selectFrom('transactions')
      .select('id')
      .where('customer_id', '=', shop.customerId)
      .execute();
    expect(counted).toHaveLength(6);
  });

  it(
    'export-view: 200 with the file name and a token; 412 for a colleague; 204 for another customer, an unknown or ' +
      'malformed uuid',
    async () => {
      const res = await view(id);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        fileName: expect.stringMatching(/^Orders-sent-.*\.csv$/),
        token: expect.stringMatching(/^\d+\.[A-Za-z0-9_-]{43}$/),
        state: 'ready',
        rows: 5,
        expiresAt: expect.any(Number),
      });
      const colleague = await view(id, colleagueCookie);
      expect(colleague.status).toBe(412);
      expect((await colleague.json()).error.code).toBe('precondition_failed');
      for (const [as, which] of [
        [otherCookie, id],
        [cookie, '00000000-0000-4000-8000-000000000000'],
        [cookie, 'nope'],
      ]) {
        const none = await view(which, as);
        expect(none.status).toBe(204);
        expect(await none.text()).toBe('');
      }
    },
  );

  it('download: 403 for a tampered, expired or someone else’s token; 404 for an unknown export', async () => {
    const { token } = await (await view(id)).json();
    const get = (t: string, which = id, as = cookie) =>
      app.call('GET', `/v1/transaction-groups/export-download/${t}/${which}`, { cookie: as });
    const [expires, mac] = token.split('.');
    const tampered = `${expires}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const later = `${Number(expires) + 3600}.${mac}`;
    const expired = downloadToken(TEST_SECRET, id, shop.userId, new Date(Date.now() - 11 * 60_000));
    for (const bad of [tampered, later, expired, 'garbage']) {
      const res = await get(bad);
      expect(res.status, bad).toBe(403);
      expect((await res.json()).error.code).toBe('forbidden');
    }
    // the colleague holding the owner's token is not the owner
    expect((await get(token, id, colleagueCookie)).status).toBe(403);
    expect((await get(token, '00000000-0000-4000-8000-000000000000')).status).toBe(403);
    expect((await app.call('GET', `/v1/transaction-groups/export-download/${token}/${id}`)).status).toBe(401);
  });
});

describe('other exports', () => {
  it('the Bounced report: the type and reason of the 550; the Failed report: nothing never handed over', async () => {
    const id = await queue({ report_type: 'bounced' });
    await runOneExport(app.ctx);
    const { text } = await download(id);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(`${BOM}Date Bounced,To Email,Subject,Type,Reason,Transaction ID`);
    expect(lines.slice(1, -1)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^\\d{1,2} \\w{3} \\d{4} - \\d{2}:\\d{2},gone@people.example,Your order,hard,550 5\\.1\\.1 ` +
            `<gone@people.example>: User unknown,${uuid[5]}$`,
        ),
      ),
    ]);
    // refused by the remote server is bounced (docs/console-reports.md "Figures"): the Failed report is empty
    const failed = await queue({ report_type: 'failed' });
    await runOneExport(app.ctx);
    expect((await download(failed)).text).toBe(`${BOM}Date Failed,To Email,Subject,Reason,Transaction ID\r\n`);
  });

  it('an empty range: the header only, still mailed', async () => {
    const id = await queue({ report_type: 'opens', start_date: '2020-01-01', end_date: '2020-01-31' });
    await runOneExport(app.ctx);
    const { text } = await download(id);
    expect(text).toBe(`${BOM}First Open Date,To Email,Subject,Total Opens,Transaction ID\r\n`);
    expect(String((await mailFor(id)).text)).toContain('(0 rows)');
  });

  it('expires after EXPORT_RETENTION_DAYS: the worker deletes the file and the row', async () => {
    const id = await queue({ report_type: 'clicks' });
    await runOneExport(app.ctx);
    const job = await app.ctx.db
      .selectFrom('exports')
      .select(['file_key', 'expires_at', 'created_at'])
      .where('uuid', '=', id)
      .executeTakeFirstOrThrow();
    expect(job.expires_at.getTime() - job.created_at.getTime()).toBeGreaterThanOrEqual(7 * 86_400_000 - 1000);
    expect(await app.ctx.storage.stat(job.file_key!)).toBeDefined();
    expect(await purgeExpiredExports(app.ctx, new Date(Date.now() + 6 * 86_400_000))).toBe(0);
    expect(await purgeExpiredExports(app.ctx, new Date(Date.now() + 8 * 86_400_000))).toBeGreaterThanOrEqual(1);
    expect(await app.ctx.storage.stat(job.file_key!)).toBeUndefined();
    expect(
      await app.ctx.db.selectFrom('exports').select('id').where('uuid', '=', id).executeTakeFirst(),
    ).toBeUndefined();
    expect((await view(id)).status).toBe(204);
  });

  it('the worker role’s loop claims and writes a queued export by itself', async () => {
    const exports = new ExportWorker(app.ctx, { pollMs: 20 });
    exports.start();
    try {
      const id = await queue({ report_type: 'sent' });
      await until('the loop to write it', async () => (await view(id)).status === 200);
    } finally {
      await exports.stop();
    }
  });

  it(
    'a worker stopped in the middle of an export (a ' + 'deploy) gives the job back unspent and leaves no file',
    async () => {
      const id = await queue({ report_type: 'sent' });
      const row = () =>
        app.ctx.db
          .selectFrom('exports')
          .select(['status', 'attempts', 'locked_until', 'file_key'])
          .where('uuid', '=', id)
          .executeTakeFirstOrThrow();
      const before = await row();
      const stopping = new AbortController();
      const run = runOneExport(app.ctx, stopping.signal);
      stopping.abort(); // after the call began, before the claim resolves: claimed, then stopped mid-write
      expect(await run).toBe(true);
      expect(await row()).toEqual({ status: 'queued', attempts: before.attempts, locked_until: null, file_key: null });
      expect(await app.ctx.storage.stat(`exports/${id}.csv`)).toBeUndefined();
      expect((await view(id)).status).toBe(202); // queued: not written yet
      // the next process writes it as usual
      expect(await runOneExport(app.ctx)).toBe(true);
      expect((await view(id)).status).toBe(200);
    },
  );

  it('neutralises a leading tab and carriage return too', () => {
    expect(['\tx', '\rx', '=1', '+1', '-1', '@a', 'a=b', ''].map(neutralise)).toEqual([
      "'\tx",
      "'\rx",
      "'=1",
      "'+1",
      "'-1",
      "'@a",
      'a=b',
      '',
    ]);
  });
});

describe('a 200,000-row export', () => {
  it('streams every row to the file while memory stays bounded', async () => {
    const big = await createTestApp();
    try {
      const account = await big.createAccount();
      const domain = await addDomain(big.ctx, account.customerId, 'bench.example', { verified: true });
      const now = new Date();
      const size = 200_000;
      await insertGroups(big.ctx.db, account.customerId, now);
      await loadRows(big.ctx.db, { customerId: account.customerId, domainId: domain.id, size, from: 1, to: size, now });
      // one group holds them all (the bench spreads them over 20); then the rollups from the rows
      await big.ctx.db
        .updateTable('transactions')
        .set({ group_id: 1 })
        .where('customer_id', '=', account.customerId)
        .execute();
      await deriveRollups(big.ctx.db, account.customerId);
      await resetSequences(big.ctx.db);
      const bigCookie = await big.signIn(account.email, account.password);
      const groupUuid = (
        await big.ctx.db.selectFrom('transaction_groups').select('uuid').where('id', '=', 1).executeTakeFirstOrThrow()
      ).uuid;
      // 400 days back to today: the 180 days of the rows
      const body = {
        report_type: 'overview',
        group_uuid: groupUuid,
        start_date: new Date(now.getTime() - 399 * 86_400_000).toISOString().slice(0, 10),
        end_date: now.toISOString().slice(0, 10),
      };
      // the report's total (from the rollups) agrees with the rows
      const report = await (
        await big.call('POST', '/v1/transaction-groups/reports', { cookie: bigCookie, body })
      ).json();
      expect(report.transactions.meta.total).toBe(size);
      const queued = await big.call('POST', '/v1/transaction-groups/reports/export', {
        cookie: bigCookie,
        body: { ...body, isExport: true },
      });
      expect(queued.status).toBe(200);
      const { uuid: id } = await queued.json();

      const started = Date.now();
      const { result: ran, mb: growth } = await peakLiveHeapGrowth(() => runOneExport(big.ctx));
      expect(ran).toBe(true);
      const seconds = (Date.now() - started) / 1000;
      const job = await big.ctx.db
        .selectFrom('exports')
        .select(['status', 'row_count', 'size_bytes', 'file_key'])
        .where('uuid', '=', id)
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'ready', row_count: size });
      // count the lines of the stored file by streaming it back
      let lines = 0;
      for await (const chunk of (await big.ctx.storage.get(job.file_key!))!)
        for (const byte of chunk as Buffer) if (byte === 10) lines += 1;
      expect(lines).toBe(size + 1);
      console.log(
        `200,000-row export (${big.ctx.engine}): ${seconds.toFixed(1)} s, ${Math.round(size / seconds)} rows/s, ` +
          `${(Number(job.size_bytes) / 1024 / 1024).toFixed(1)} MB of CSV, ` +
          `peak live heap growth ${growth.toFixed(1)} MB`,
      );
      // a sanity bound, not the target (bench:reports measures the 100 MB target on 1 M rows): the
      // 200,000 rows held as objects would keep several hundred MB alive; streamed, a page of rows
      // and the streams' buffers are alive at a time
      expect(growth).toBeLessThan(50);
    } finally {
      await big.close();
    }
    // a bound for a hang: on PostgreSQL with CI's lanes sharing two loaded cores the test took 330 s
  }, 1_200_000);
});
