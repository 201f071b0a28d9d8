// A process loads the code of its own roles only (docs/development.md, "Modules by role"): main.ts
// imports each role's module when the process has the role, and the build splits each into a chunk
// of its own. The built service runs here under a hook (tests/fixtures/record-imports.ts) that
// records every module it loads, ours and the packages', until it logs that it has started.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROCESS_TEST_MS, PROCESS_WAIT_MS, TEST_SECRET } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { freePort } from '../../scripts/lib/service-harness.mjs';
import { builtStamp, sourceStamp } from '../../scripts/build-stamp.mjs';

const root = path.resolve(import.meta.dirname, '../..');
const hook = path.resolve(import.meta.dirname, '../fixtures/record-imports.ts');
/**
 * Packages only the web role (HTTP, pages, uploads, the received mail it shows) or the smtp role use.
 * Not hono itself: the contract's schemas, which services parse with, come from @hono/zod-openapi.
 */
const NOT_THE_WORKERS = [
  'astro',
  '@hono/node-server',
  'react',
  'react-dom',
  'sirv',
  'compression',
  'busboy',
  'sanitize-html',
  'smtp-server',
  'mailparser',
  'mailauth',
  '@aws-sdk/client-s3',
];

let database: TestDatabase;
const dirs: string[] = [];
const children: ChildProcess[] = [];

/** `npm run build` when dist/ is missing or older than the sources (npm test has usually done it). */
function ensureBuilt(): void {
  if (builtStamp(root) === sourceStamp(root)) return;
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error(`npm run build failed with ${build.status}`);
}

/** The packages a list of module URLs comes from (every node_modules/<name>/ in each). */
function packagesOf(urls: string[]): Set<string> {
  const names = new Set<string>();
  for (const url of urls) for (const m of url.matchAll(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//g)) names.add(m[1]);
  return names;
}

/**
 * Starts the built service with `roles` on the test's database, waits until it logs "transact
 * started", stops it, and answers the URLs of the modules it loaded.
 */
async function modulesLoadedBy(roles: string): Promise<string[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'transact-role-modules-'));
  dirs.push(dataDir);
  const template = inject('pgliteTemplateDir');
  if (template && !database.env.DATABASE_URL) cpSync(template, path.join(dataDir, 'pg'), { recursive: true });
  const record = path.join(dataDir, 'modules.txt');
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    RECORD_IMPORTS_TO: record,
    DATA_DIR: dataDir,
    TRANSACT_SECRET: TEST_SECRET,
    TRANSACT_ADMIN_EMAIL: 'admin@example.com',
    TRANSACT_ADMIN_PASSWORD: 'admin-password-123',
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SMTP_PORT: String(await freePort()),
    BOUNCE_SMTP_PORT: String(await freePort()),
    DNS_CHECK_INTERVAL_MINUTES: '0',
    LOG_LEVEL: 'info',
  };
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  if (database.env.DATABASE_URL) env.DATABASE_URL = database.env.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', hook, path.join(root, 'dist/main.mjs'), '--roles', roles], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const bound = setTimeout(() => reject(new Error(`no start in ${PROCESS_WAIT_MS} ms:\n${output}`)), PROCESS_WAIT_MS);
    const read = (chunk: Buffer) => {
      output += chunk;
      if (!output.includes('"msg":"transact started"')) return;
      clearTimeout(bound);
      resolve();
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(bound);
      reject(new Error(`the service exited (${code}) before it started:\n${output}`));
    });
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return readFileSync(record, 'utf8').split('\n').filter(Boolean);
}

beforeAll(async () => {
  ensureBuilt();
  database = await createTestDatabase();
}, PROCESS_WAIT_MS);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  await database?.close();
});

describe('modules by role (the built service)', () => {
  it('a ROLES=worker process reads the worker chunk and none of the web or smtp role, nor their libraries', {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    const loaded = await modulesLoadedBy('worker');
    const ours = loaded
      .filter((url) => url.startsWith(`file://${root}/dist/`))
      .map((url) => url.slice(7 + root.length));
    // the record holds what the worker runs: its chunk, and the library it delivers with
    expect(ours).toContain('/dist/main.mjs');
    expect(ours.some((file) => /^\/dist\/chunks\/worker-role-\w+\.mjs$/.test(file))).toBe(true);
    expect(packagesOf(loaded)).toContain('nodemailer');
    // and nothing of the other roles: no Astro pages, no web or smtp chunk, none of their packages
    expect(ours.filter((file) => /^\/dist\/(server\/|chunks\/(web|smtp)-role-)/.test(file))).toEqual([]);
    expect([...packagesOf(loaded)].filter((name) => NOT_THE_WORKERS.includes(name))).toEqual([]);
  });

  it("a ROLES=web process reads the web chunk, Astro's pages and Hono, and not the worker chunk", {
    timeout: PROCESS_TEST_MS,
  }, async () => {
    const loaded = await modulesLoadedBy('web');
    const ours = loaded
      .filter((url) => url.startsWith(`file://${root}/dist/`))
      .map((url) => url.slice(7 + root.length));
    expect(ours.some((file) => /^\/dist\/chunks\/web-role-\w+\.mjs$/.test(file))).toBe(true);
    expect(ours).toContain('/dist/server/entry.mjs');
    expect(packagesOf(loaded)).toContain('hono');
    expect(ours.filter((file) => /^\/dist\/chunks\/(worker|smtp)-role-/.test(file))).toEqual([]);
    expect(packagesOf(loaded)).not.toContain('smtp-server');
  });
});
