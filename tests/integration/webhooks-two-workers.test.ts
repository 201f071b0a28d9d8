// Webhook deliveries scale out like mail (docs/architecture.md §6): 2,000 outbox rows drained by two
// separate `--roles worker` processes of the built service reach a real local receiver exactly once
// each (one arrival per webhook-id, one attempt per request).
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
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { insertEvents } from '../../src/server/events/events.repository.ts';
import { saveWebhook } from '../../src/server/webhooks/webhooks.service.ts';
import { builtStamp, sourceStamp } from '../../scripts/build-stamp.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const EVENTS = 2000;
const BATCH = 500;

let app: TestApp;
let receiver: WebhookReceiver;
let dataDir: string;
const children: { child: ChildProcess; output: () => string }[] = [];

function ensureBuilt(): void {
  if (builtStamp(root) === sourceStamp(root)) return;
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed with ${build.status}`);
}

function startWorker(name: string, databaseUrl: string) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PGAPPNAME: name,
    DATABASE_URL: databaseUrl,
    TRANSACT_SECRET: TEST_SECRET,
    PUBLIC_URL: ORIGIN,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  };
  const child = spawn(process.execPath, [path.join(root, 'dist/main.mjs'), '--roles', 'worker'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  return { child, output: () => log };
}

const exited = (c: { child: ChildProcess }) => c.child.exitCode !== null || c.child.signalCode !== null;
const rows = async <T>(query: RawBuilder<T>) => (await query.execute(app.ctx.db)).rows;

// PGlite lives in one process's memory; two worker processes need PostgreSQL (CI runs it there).
describe.skipIf(!process.env.DATABASE_URL)('two worker processes delivering webhooks', () => {
  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(path.join(tmpdir(), 'transact-webhook-workers-'));
    app = await createTestApp({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' });
    receiver = await startWebhookReceiver();
  }, 240_000);

  afterAll(async () => {
    for (const c of children) if (!exited(c)) c.child.kill('SIGKILL');
    await receiver?.close();
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers 2,000 events exactly once each', { timeout: PROCESS_TEST_MS }, async () => {
    const account = await app.createAccount();
    await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
    const apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
    await saveWebhook(app.ctx, account.customerId, {
      url: `${receiver.url}/hook`,
      verb: 'post',
      status: 'enabled',
      event_types: ['open'],
      field_set: 'standard',
    });
    for (let offset = 0; offset < EVENTS; offset += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, i) => ({
        from: 'orders@shop.example',
        to: `c${offset + i}@customer.example`,
        subject: 'Hi',
        text: 'Hello',
      }));
      const res = await sendAsClient(app, '/v1/mail/batch', apiKey, batch);
      expect(res.status).toBe(202);
    }
    // the mail stays queued (not what is tested here); each transaction gets one open
    await sql`update transactions set next_attempt_at = now() + interval '1 day'`.execute(app.ctx.db);
    const txs = await app.ctx.db.selectFrom('transactions').select(['id', 'customer_id']).execute();
    await insertEvents(
      app.ctx.db,
      txs.map((t) => ({
        customer_id: Number(t.customer_id),
        transaction_id: Number(t.id),
        type: 'open' as const,
        data: { ip: '203.0.113.1', user_agent: 'Mail' },
      })),
      app.ctx,
    );
    // held until both processes poll, so they compete for the same rows
    await sql`update webhook_requests set next_attempt_at = now() + interval '1 hour'`.execute(app.ctx.db);
    const databaseUrl = app.ctx.config.databaseUrl!;
    for (let i = 0; i < 2; i++) children.push(startWorker(`webhook-workers-${i}`, databaseUrl));
    await expect
      .poll(
        async () => {
          for (const c of children) if (exited(c)) throw new Error(`a worker exited early:\n${c.output()}`);
          const [{ n }] = await rows(
            sql<{ n: string }>`select count(distinct application_name) as n from pg_stat_activity
                                where datname = current_database() and application_name like 'webhook-workers-%' and
                                  query like '%webhook_requests%'`,
          );
          return Number(n);
        },
        { timeout: PROCESS_WAIT_MS, interval: 100 },
      )
      .toBe(2);
    const released = Date.now();
    await sql`update webhook_requests set next_attempt_at = now()`.execute(app.ctx.db);

    await expect
      .poll(
        async () => {
          for (const c of children) if (exited(c)) throw new Error(`a worker exited:\n${c.output()}`);
          const [{ n }] = await rows(
            sql<{ n: string }>`select count(*) as n from webhook_requests where status <> 'success'`,
          );
          return Number(n);
        },
        { timeout: PROCESS_WAIT_MS, interval: 200 },
      )
      .toBe(0);
    const drainedMs = Date.now() - released;
    // both exit 0 on SIGTERM; once they have exited nothing of theirs is on the wire, so a duplicate
    // would have reached the receiver by now
    const exits = children.map(
      (c) => new Promise<number | null>((resolve) => c.child.once('exit', (code) => resolve(code))),
    );
    for (const c of children) c.child.kill('SIGTERM');
    expect(await Promise.all(exits)).toEqual([0, 0]);

    const arrivals = new Map<string, number>();
    for (const r of receiver.received)
      arrivals.set(String(r.headers['webhook-id']), (arrivals.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    expect(receiver.received).toHaveLength(EVENTS);
    expect([...arrivals.values()].filter((n) => n !== 1)).toEqual([]);
    const [{ attempts }] = await rows(sql<{ attempts: string }>`select count(*) as attempts from webhook_attempts`);
    expect(Number(attempts)).toBe(EVENTS);
    console.info(`two webhook workers: ${EVENTS} events drained in ${drainedMs} ms`);
  });
});
