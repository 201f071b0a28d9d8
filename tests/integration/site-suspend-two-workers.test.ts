// `admin queue suspend` and `queue resume` across two `--roles worker` processes of the built
// service on one PostgreSQL database: direct MX delivery through a DNS server started
// here to an SMTP server on 127.0.0.12; while the site is suspended neither process connects to it
// and its messages wait without spending retries; once resumed, every message arrives once.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
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
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.ts';
import { freePort } from '../../scripts/lib/service-harness.mjs';
import { startMxHost, type MxHost } from '../helpers/mx-hosts.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { builtStamp, sourceStamp } from '../../scripts/build-stamp.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const MESSAGES = 20;

let app: TestApp;
let dns: DnsTestServer;
let mx: MxHost;
let mxPort: number;
let apiKey: string;
let dataDir: string;
const children: ChildProcess[] = [];
const logs: string[] = [];

function ensureBuilt(): void {
  if (builtStamp(root) === sourceStamp(root)) return;
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed with ${build.status}`);
}

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: app.ctx.config.databaseUrl!,
  TRANSACT_SECRET: TEST_SECRET,
  PUBLIC_URL: ORIGIN,
  DATA_DIR: dataDir,
  DNS_SERVERS: dns.address,
  MX_PORT: String(mxPort),
  RETURN_PATH_DOMAIN: 'rp.transact.test',
  LOG_LEVEL: 'warn',
  ...extra,
});

/**
 * `npm run admin -- queue …` against the test database; its standard output. Not spawnSync: the DNS server it asks
 * lives in this process.
 */
async function admin(...args: string[]): Promise<string> {
  const child = spawn(process.execPath, [path.join(root, 'dist/admin.mjs'), 'queue', ...args], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code, err).toBe(0);
  return out;
}

const count = async (query: ReturnType<typeof sql<{ n: string }>>) =>
  Number((await query.execute(app.ctx.db)).rows[0].n);

describe.skipIf(!process.env.DATABASE_URL)('a suspended site, two worker processes on PostgreSQL', () => {
  beforeAll(async () => {
    ensureBuilt();
    dataDir = mkdtempSync(path.join(tmpdir(), 'transact-site-suspend-'));
    dns = await startDnsServer();
    mxPort = await freePort('127.0.0.12');
    mx = await startMxHost('127.0.0.12', mxPort);
    dns.set('held.test', 'MX', ['10 mx.held.test']);
    dns.set('mx.held.test', 'A', ['127.0.0.12']);
    app = await createTestApp();
    const account = await app.createAccount();
    await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
    apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
  }, 240_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await mx?.close();
    await dns?.close();
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers nothing to the site in either process until it is resumed, then everything once', {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    // suspended by its recipient domain, before any mail for it is queued
    expect(await admin('suspend', 'held.test')).toMatch(/^Suspended mx\.held\.test until resumed/);
    for (let i = 0; i < 2; i++) {
      const child = spawn(process.execPath, [path.join(root, 'dist/main.mjs'), '--roles', 'worker'], {
        env: env({ PGAPPNAME: `site-suspend-${i}`, DELIVERY_CONCURRENCY: '8' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      logs.push('');
      child.stdout!.on('data', (d) => (logs[i] += d));
      child.stderr!.on('data', (d) => (logs[i] += d));
      children.push(child);
    }
    const res = await sendAsClient(
      app,
      '/v1/mail/batch',
      apiKey,
      Array.from({ length: MESSAGES }, (_, i) => ({
        from: 'orders@shop.example',
        to: `r${i}@held.test`,
        subject: `Order ${i}`,
        text: 'Thanks',
      })),
    );
    expect(res.status).toBe(202);

    // every message has been taken by a worker, found its site suspended and gone back to wait
    // without spending an attempt
    await expect
      .poll(
        async () => {
          for (const [i, c] of children.entries())
            if (c.exitCode !== null) throw new Error(`worker ${i} exited:\n${logs[i]}`);
          return count(
            sql<{
              n: string;
            }>`select count(*) as n from transactions where site = 'mx.held.test' and status = 'queued' and attempts
              = 0`,
          );
        },
        { timeout: PROCESS_WAIT_MS, interval: 100 },
      )
      .toBe(MESSAGES);
    expect(mx.connections).toBe(0);
    expect(await admin()).toMatch(/mx\.held\.test\s+20\s+0\s+shaping\s+until resumed/);

    expect(await admin('resume', 'mx.held.test')).toMatch(/^Resumed mx\.held\.test: \d+ waiting message/);
    await expect
      .poll(
        () => count(sql<{ n: string }>`select count(*) as n from transactions where status = 'sent' and attempts = 1`),
        { timeout: PROCESS_WAIT_MS, interval: 100 },
      )
      .toBe(MESSAGES);
    expect(mx.messages).toHaveLength(MESSAGES);
    expect(new Set(mx.messages.map((m) => m.to[0])).size).toBe(MESSAGES);

    const exits = children.map((c) => new Promise<number | null>((resolve) => c.once('exit', (code) => resolve(code))));
    for (const c of children) c.kill('SIGTERM');
    expect(await Promise.all(exits)).toEqual([0, 0]);
  });
});
