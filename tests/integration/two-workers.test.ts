// The scale-out promise of docs/architecture.md §2 ("a test proves two workers on one database never deliver a
// message twice"): mail accepted through the API in-process, then drained by two separate
// `--roles worker` processes of the built service, each relaying to its own sink.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  ORIGIN,
  TEST_SECRET,
  type TestApp,
  PROCESS_TEST_MS,
  PROCESS_WAIT_MS,
  sendAsClient,
} from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { builtStamp, sourceStamp } from '../../scripts/build-stamp.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MESSAGES = 2000;
const BATCH = 500; // the most POST /v1/mail/batch takes

interface WorkerProcess {
  child: ChildProcess;
  sink: SmtpSink;
  output: () => string;
}

let app: TestApp;
let apiKey: string;
let dataDir: string;
const workers: WorkerProcess[] = [];

/** `npm run build` when dist/ is missing or older than the sources (npm test has usually done it). */
function ensureBuilt(): void {
  if (builtStamp(root) === sourceStamp(root)) return;
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed with ${build.status}`);
}

function startWorker(name: string, databaseUrl: string, sink: SmtpSink): WorkerProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PGAPPNAME: name, // names its connections in pg_stat_activity
    DATABASE_URL: databaseUrl,
    TRANSACT_SECRET: TEST_SECRET,
    PUBLIC_URL: ORIGIN,
    SMTP_RELAY_URL: sink.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DELIVERY_CONCURRENCY: '16',
  };
  const child = spawn(process.execPath, [path.join(root, 'dist/main.mjs'), '--roles', 'worker'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  return { child, sink, output: () => log };
}

const exited = (w: WorkerProcess) => w.child.exitCode !== null || w.child.signalCode !== null;

/** The transaction uuid of a delivered copy, from its Message-ID `<uuid@shop.example>`. */
function transUuid(raw: Buffer): string {
  const match = /^Message-ID: <([0-9a-f-]{36})@shop\.example>/im.exec(raw.toString('latin1'));
  if (!match) throw new Error(`no Message-ID in:\n${raw.toString('latin1').slice(0, 500)}`);
  return match[1];
}

const rows = async <T>(query: RawBuilder<T>) => (await query.execute(app.ctx.db)).rows;

// PGlite is one process by design (it lives in one process's memory), so two worker processes need
// PostgreSQL; CI runs the whole suite on PostgreSQL too (.ci/run), which is where this one runs.
describe.skipIf(!process.env.DATABASE_URL)('two worker processes on one PostgreSQL database', () => {
  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(path.join(tmpdir(), 'transact-two-workers-'));
    app = await createTestApp();
    const account = await app.createAccount();
    await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
    apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
  }, 240_000);

  afterAll(async () => {
    for (const w of workers) {
      if (!exited(w)) w.child.kill('SIGKILL');
      await w.sink.close();
    }
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every accepted message exactly once, shared between both processes', {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    const started = Date.now();
    const accepted: string[] = [];
    for (let offset = 0; offset < MESSAGES; offset += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, i) => ({
        from: 'Shop <orders@shop.example>',
        to: `customer${offset + i}@customer.example`,
        subject: `Order ${offset + i}`,
        text: `Thanks for order ${offset + i}`,
      }));
      const res = await sendAsClient(app, '/v1/mail/batch', apiKey, batch);
      expect(res.status).toBe(202);
      const { data } = (await res.json()) as { data: { trans_uuid: string }[][] };
      accepted.push(...data.map(([r]) => r.trans_uuid));
    }
    expect(new Set(accepted).size).toBe(MESSAGES);
    const acceptedMs = Date.now() - started;

    // Hold the queue until both processes are polling it, so that they compete for the same rows
    // instead of the first one up draining everything before the second has started.
    await sql`update transactions set next_attempt_at = now() + interval '1 hour' where status = 'queued'`.execute(
      app.ctx.db,
    );
    const databaseUrl = app.ctx.config.databaseUrl!;
    for (let i = 0; i < 2; i++) workers.push(startWorker(`two-workers-${i}`, databaseUrl, await startSmtpSink()));
    await expect
      .poll(
        async () => {
          for (const w of workers) if (exited(w)) throw new Error(`a worker exited early:\n${w.output()}`);
          const [{ n }] = await rows(
            sql<{ n: string }>`select count(distinct application_name) as n from pg_stat_activity
                                where datname = current_database() and application_name like 'two-workers-%' and
                                  query like '%skip locked%'`,
          );
          return Number(n);
        },
        { timeout: PROCESS_WAIT_MS, interval: 100 },
      )
      .toBe(2);
    const released = Date.now();
    await sql`update transactions set next_attempt_at = now() where status = 'queued'`.execute(app.ctx.db);
    await sql`select pg_notify('transact_queue', '')`.execute(app.ctx.db);

    const delivered = () => workers.reduce((n, w) => n + w.sink.messages.length, 0);
    await expect
      .poll(
        async () => {
          for (const w of workers) if (exited(w)) throw new Error(`a worker exited:\n${w.output()}`);
          const [{ n }] = await rows(
            sql<{ n: string }>`select count(*) as n from transactions where status = 'queued'`,
          );
          return { queued: Number(n), delivered: delivered() >= MESSAGES };
        },
        { timeout: PROCESS_WAIT_MS, interval: 100 },
      )
      .toEqual({ queued: 0, delivered: true });
    const drainedMs = Date.now() - released;
    // graceful shutdown: both drain and exit 0 on SIGTERM; once both have exited, nothing of theirs
    // can still be on the wire, so a duplicate would be in the sinks by now
    const exits = workers.map(
      (w) => new Promise<number | null>((resolve) => w.child.once('exit', (code) => resolve(code))),
    );
    for (const w of workers) w.child.kill('SIGTERM');
    expect(await Promise.all(exits)).toEqual([0, 0]);

    const arrivals = new Map<string, number>();
    for (const uuid of workers.flatMap((w) => w.sink.messages.map((m) => transUuid(m.raw))))
      arrivals.set(uuid, (arrivals.get(uuid) ?? 0) + 1);
    expect(delivered()).toBe(MESSAGES);
    expect([...arrivals.values()].filter((n) => n !== 1)).toEqual([]);
    expect([...arrivals.keys()].sort()).toEqual([...accepted].sort());

    const statuses = await rows(
      sql<{
        status: string;
        delivered_status: string;
        n: string;
      }>`select status, delivered_status, count(*) as n from transactions group by 1, 2`,
    );
    expect(statuses.map((s) => ({ ...s, n: Number(s.n) }))).toEqual([
      { status: 'sent', delivered_status: 'delivered', n: MESSAGES },
    ]);
    const [{ sent }] = await rows(sql<{ sent: string }>`select count(*) as sent from events where type = 'sent'`);
    expect(Number(sent)).toBe(MESSAGES);

    const perProcess = workers.map((w) => w.sink.messages.length);
    expect(Math.min(...perProcess)).toBeGreaterThan(0);

    console.info(
      `two workers: ${MESSAGES} accepted in ${acceptedMs} ms, both processes up in ` +
        `${released - started - acceptedMs} ms, drained in ${drainedMs} ms (${perProcess.join(' + ')})`,
    );
  });
});
