// A build of Transact as the MTA under test of `npm run bench:ab` and `npm run bench:statements`:
// a fresh database (PGlite in a temporary data directory, or a fresh database on the PostgreSQL
// server), seeded with its own admin CLI before the first start (a customer with a quota far above
// any run, the verified domain bench.example), the service started on `cores` with SMTP
// submission relaying everything to the sink, and the process groups the load measures: the
// service, and on PostgreSQL its database's backends.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, relayEnv, startService } from '../lib/service-harness.mjs';

function adminOf(build, env) {
  return (...args) =>
    execFileSync(process.execPath, [path.join(build.root, 'dist/admin.mjs'), ...args], {
      cwd: build.root,
      env,
      encoding: 'utf8',
    });
}

function created(stdout, kind) {
  const m = new RegExp(`^${kind} (\\d+) created`, 'm').exec(stdout);
  if (!m) throw new Error(`no '${kind} N created' in: ${stdout}`);
  return m[1];
}

/**
 * Seeds and starts `build` relaying to `sinkPort`. `env` adds to the service's environment (not the
 * admin CLI's), e.g. NODE_OPTIONS.
 * @param {{ root: string }} build
 * @param {{ engine: 'pglite' | 'postgres', sinkPort: number, cores: string, env?: Record<string, string>,
 *   databaseUrl?: string }} o
 */
export async function startTarget(build, o) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'transact-bench-target-'));
  const { env } = await relayEnv({ sinkPort: o.sinkPort, dataDir });
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  env.NODE_ENV = 'production';
  let database = null;
  try {
    if (o.engine === 'postgres') {
      database = await freshDatabase(o.databaseUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres');
      env.DATABASE_URL = database.url;
    }
    const admin = adminOf(build, env);
    const enterprise = created(admin('enterprise', 'create', '--name', 'Bench'), 'enterprise');
    const customer = created(
      admin('customer', 'create', '--enterprise', enterprise, '--name', 'Bench', '--quota', '1000000000'),
      'customer',
    );
    const domain = admin('domain', 'add', 'bench.example', '--customer', customer, '--verified');
    const dkimTxt = /v=DKIM1[^"\n]*/.exec(domain)?.[0];
    const creds = /^smtp:\s+\S+ (\S+) \/ (\S+)$/m.exec(admin('credentials', 'show', '--customer', customer));
    if (!creds) throw new Error('could not read the SMTP login from the admin CLI');
    const service = await startService({
      dist: path.join(build.root, 'dist'),
      cwd: build.root,
      env: { ...env, ...o.env },
      prefix: ['taskset', '-c', o.cores],
    });
    const pid = /** @type {number} */ (service.child.pid);
    const dbName = database ? new URL(database.url).pathname.slice(1) : null;
    return {
      smtpPort: service.smtpPort,
      auth: { user: creds[1], pass: creds[2] },
      dkimTxt,
      pid,
      groups: [{ name: 'service', tree: pid }, ...(dbName ? [{ name: 'postgresql backends', database: dbName }] : [])],
      async stop() {
        await service.stop('SIGTERM');
        await database?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}
