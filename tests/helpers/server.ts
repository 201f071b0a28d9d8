// The built service (dist/main.mjs) as a child process for browser tests: its own data directory
// (or a fresh PostgreSQL database when DATABASE_URL is set), copied from the run's migrated template
// (tests/helpers/template-database.ts), a free port, accounts seeded through the admin CLI's
// commands before it starts: in-process on one open database (admin()), or as the CLI's own process
// (adminRun(), for tests of the CLI). Run `npm run build` first (npm test does). TRANSACT_DIST names
// another build directory (a copy beside a node_modules) to test while dist/ is being rebuilt.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { format, promisify } from 'node:util';
import pino from 'pino';
import { inject } from 'vitest';
import { main as adminMain } from '../../src/server/admin.ts';
import { loadConfig } from '../../src/server/core/config.ts';
import { createContext, type ContextHandle } from '../../src/server/create-context.ts';
import type { Database } from '../../src/server/db/database.ts';
import { freePort, type RunningService, startService } from '../../scripts/lib/service-harness.mjs';
import { createTestDatabase, type TestDatabase } from './database.ts';

const root = path.resolve(import.meta.dirname, '../..');
const dist = process.env.TRANSACT_DIST ? path.resolve(process.env.TRANSACT_DIST) : path.join(root, 'dist');
const execFileAsync = promisify(execFile);
export const TEST_SECRET = 'e2e-secret-e2e-secret-e2e-secret-012345';

/** What one run of the admin CLI did. */
export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunningServer {
  baseUrl: string;
  port: number;
  env: Record<string, string>;
  /** True when the service uses the embedded database (PGlite), which one process holds at a time. */
  embedded: boolean;
  /**
   * Runs an admin CLI command in-process with this server's settings, on a database kept open until
   * start(); resolves with its output, rejects (with the error output) on a non-zero exit code.
   */
  admin(...args: string[]): Promise<string>;
  /** Runs `dist/admin.mjs` and resolves with its exit code and output whatever the code. */
  adminRun(...args: string[]): Promise<AdminRun>;
  /** adminRun with some settings changed (undefined removes one from the environment). */
  adminRunWith(changes: Record<string, string | undefined>, ...args: string[]): Promise<AdminRun>;
  /** The service's database, open in this process until start(): for seeding what the CLI does not. */
  database(): Promise<Database>;
  /** Starts the service (call after seeding with admin()), with `changes` to its settings kept from then on. */
  start(changes?: Record<string, string>): Promise<void>;
  /** Stops the service with SIGTERM and keeps its data (start() runs it again). */
  halt(): Promise<void>;
  /** Stops the service with SIGTERM and removes its data. */
  stop(): Promise<void>;
  output(): string;
}

export async function prepareServer(extraEnv: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(path.join(dist, 'main.mjs')))
    throw new Error(`${path.join(dist, 'main.mjs')} is missing: run \`npm run build\` first`);
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'transact-e2e-'));
  const template = inject('pgliteTemplateDir');
  if (template && !process.env.DATABASE_URL) cpSync(template, path.join(dataDir, 'pg'), { recursive: true });
  let database: TestDatabase | undefined;
  const env: Record<string, string> = {
    PORT: String(port),
    // every server of a run needs its own SMTP ports (the defaults 2525 and 2526 would collide)
    SMTP_PORT: String(await freePort()),
    BOUNCE_SMTP_PORT: String(await freePort()),
    // no periodic DNS checks: this machine may have no resolver that answers (tests use their own)
    DNS_CHECK_INTERVAL_MINUTES: '0',
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    TRANSACT_SECRET: TEST_SECRET,
    TRANSACT_ADMIN_EMAIL: 'admin@example.com',
    TRANSACT_ADMIN_PASSWORD: 'admin-password-123',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  if (process.env.DATABASE_URL) {
    database = await createTestDatabase();
    env.DATABASE_URL = database.env.DATABASE_URL!;
  }
  const childEnv = { ...process.env, ...env };
  if (!process.env.DATABASE_URL) delete childEnv.DATABASE_URL;
  let service: RunningService | undefined;
  let log = '';
  // the admin commands' database, opened on the first admin() and closed when the service starts
  let seeding: Promise<ContextHandle> | undefined;
  let started = false;
  const closeSeeding = async () => {
    const open = seeding;
    seeding = undefined;
    if (open) await (await open).close();
  };
  const seedingContext = async () => {
    // PGlite is one process's: the running service holds the data directory (adminRun shows the refusal)
    if (started && !env.DATABASE_URL)
      throw new Error("the embedded database is the running service's: seed before start(), or use adminRun()");
    seeding ??= createContext(loadConfig(childEnv), { logger: pino({ level: 'warn' }), collectDefaultMetrics: false });
    return (await seeding).ctx;
  };

  const adminRunWith = async (changes: Record<string, string | undefined>, ...args: string[]): Promise<AdminRun> => {
    await closeSeeding(); // the CLI's process opens the database itself
    const runEnv = { ...childEnv, ...changes };
    for (const [name, value] of Object.entries(changes)) if (value === undefined) delete runEnv[name];
    try {
      const { stdout, stderr } = await execFileAsync(process.execPath, [path.join(dist, 'admin.mjs'), ...args], {
        env: runEnv,
      });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const failed = err as { code?: unknown; stdout?: string; stderr?: string };
      if (typeof failed.code !== 'number') throw err;
      return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
    }
  };
  const adminRun = (...args: string[]) => adminRunWith({}, ...args);
  let halted = false;
  const halt = async () => {
    halted = true;
    await service?.stop('SIGTERM');
    started = false; // the data directory is free again for admin()
  };

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    env,
    embedded: !env.DATABASE_URL,
    adminRun,
    adminRunWith,
    database: async () => (await seedingContext()).db,
    async admin(...args) {
      const ctx = await seedingContext();
      let stdout = '';
      let stderr = '';
      const output = {
        log: (...a: unknown[]) => {
          stdout += `${format(...a)}\n`;
        },
        error: (...a: unknown[]) => {
          stderr += `${format(...a)}\n`;
        },
      };
      const code = await adminMain(args, output, ctx);
      if (code !== 0) throw new Error(`admin ${args.join(' ')} exited with ${code}:\n${stderr}${stdout}`);
      return stdout;
    },
    async start(changes = {}) {
      Object.assign(env, changes);
      Object.assign(childEnv, changes);
      await closeSeeding();
      started = true;
      halted = false;
      service = await startService({
        dist,
        env: childEnv,
        timeoutMs: 60_000,
        onOutput: (d) => {
          log += d;
        },
      });
    },
    halt,
    async stop() {
      await closeSeeding();
      const crashed =
        service && service.child.exitCode !== null && !halted
          ? `the service exited by itself (code ${service.child.exitCode}):\n${log}`
          : undefined;
      await halt();
      rmSync(dataDir, { recursive: true, force: true });
      await database?.close();
      if (crashed) throw new Error(crashed);
    },
    output: () => log,
  };
}

/** The id the admin CLI printed for what it created ('enterprise 3 created: …'). */
export function createdId(stdout: string, kind: 'enterprise' | 'customer' | 'user'): number {
  const match = new RegExp(`^${kind} (\\d+) created`, 'm').exec(stdout);
  if (!match) throw new Error(`no '${kind} N created' line in:\n${stdout}`);
  return Number(match[1]);
}
