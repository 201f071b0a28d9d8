// Process entry: `node dist/main.mjs [--roles web,smtp,worker]`. Reads the configuration, takes the
// data directory (embedded database), migrates, creates the first administrator on an empty
// database, starts the roles, and drains on SIGTERM/SIGINT/SIGHUP. Each role's module is imported
// only when the process has the role (docs/development.md: modules by role), so a worker never
// reads the HTTP server, Astro or the SMTP listeners.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './core/config.ts';
import { createContext } from './create-context.ts';
import { DataDirBusyError, lockDataDir } from './db/data-lock.ts';
import { limitHeapGrowth } from './core/heap.ts';
import { bootstrapAdmin } from './accounts/accounts.service.ts';
import { listenForChanges } from './delivery/listen.ts';
import { notifyQueued } from './core/queue-signal.ts';
import { clearLookupCaches } from './core/lookup-cache.ts';
import { isDatabaseUnavailable } from './db/availability.ts';
import type { Config } from './core/config.ts';
import type { AppContext } from './core/context.ts';
import { createServer as createPlainServer } from 'node:http';
import pino, { type Logger } from 'pino';

/**
 * Started while PostgreSQL does not answer: tries again with backoff (1 s, 2 s, 4 s, …
 * at most 10 s apart, each attempt logged) for DATABASE_WAIT_SECONDS, while a stand-in on the HTTP
 * port answers /healthz 200 and everything else 503 (so /readyz says "not yet").
 */
async function createContextWaiting(config: Config, logger: Logger): ReturnType<typeof createContext> {
  const started = Date.now();
  let standIn: ReturnType<typeof createPlainServer> | null = null;
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        return await createContext(config, { logger });
      } catch (err) {
        const waited = (Date.now() - started) / 1000;
        if (!config.databaseUrl || !isDatabaseUnavailable(err) || waited >= config.databaseWaitSeconds) throw err;
        const delay = Math.min(
          10_000,
          1000 * 2 ** (attempt - 1),
          Math.max(0, config.databaseWaitSeconds - waited) * 1000,
        );
        logger.warn(
          { attempt, err: (err as Error).message, retryInMs: delay, waitedSeconds: Math.round(waited) },
          'database unavailable at start; waiting for it',
        );
        if (!standIn && config.roles.includes('web')) {
          standIn = createPlainServer((req, res) => {
            const live = req.url === '/healthz';
            res.writeHead(live ? 200 : 503, {
              'Content-Type': 'application/json',
              'Retry-After': '5',
              'Cache-Control': 'no-store',
            });
            res.end(JSON.stringify(live ? { status: 'ok' } : { status: 'database unreachable' }));
          });
          standIn.keepAliveTimeout = 1000;
          await new Promise<void>((resolve) => {
            standIn!.once('error', () => resolve()); // the port is taken: the real server will say so
            standIn!.listen(config.port, config.host, () => resolve());
          });
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  } finally {
    if (standIn) {
      const s = standIn as ReturnType<typeof createPlainServer>;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
    }
  }
}

function rolesFromArgs(argv: string[]): string | undefined {
  const i = argv.indexOf('--roles');
  if (i >= 0) return argv[i + 1];
  const inline = argv.find((a) => a.startsWith('--roles='));
  return inline?.slice('--roles='.length);
}

/** Stops one started role (or part of one) within the grace period. */
type Stop = () => Promise<void>;

/** The argument main.ts runs itself with to create an embedded database (initializeInChild). */
const INITIALIZE_ONLY = '--initialize-database';

async function main(): Promise<void> {
  const config = configOrExit(process.argv.slice(2));
  if (process.argv.includes(INITIALIZE_ONLY)) return initializeOnly(config);
  limitHeapGrowth(config.heapGrowthPercent);
  const unlock = lockOrExit(config);
  await initializeInChild(config);
  const { ctx, close } = await createContextWaiting(
    config,
    pino({ level: config.logLevel, base: { pid: process.pid } }),
  );
  ctx.lifecycle.state = 'starting';
  const { roles } = config;
  const workerRole = roles.includes('worker') ? await import('./worker-role.ts') : null;
  if (workerRole) await workerRole.releaseClaimsOfPreviousProcess(ctx);
  await createFirstAdministrator(ctx);

  const stops: Stop[] = [];
  const markStarted = drainOnSignals(ctx, stops, { close, unlock });
  if (roles.includes('web')) {
    const { startWebRole } = await import('./web-role.ts');
    stops.push(await startWebRole(ctx, path.dirname(fileURLToPath(import.meta.url))));
  }
  stops.push(listenForOtherProcesses(ctx));
  if (roles.includes('smtp')) {
    const { startSmtpRole } = await import('./smtp-role.ts');
    stops.push(...(await startSmtpRole(ctx)));
  }
  if (workerRole) stops.push(workerRole.startWorkerRole(ctx));
  ctx.logger.info({ roles, engine: ctx.engine }, 'transact started');
  if (ctx.lifecycle.state === 'starting') ctx.lifecycle.state = 'running';
  markStarted();
}

/**
 * PGlite's first start on an empty data directory runs initdb and every migration, which leave the
 * process far larger than a restart (PGlite's memory of that run, and the C heap it fragmented,
 * are not handed back: docs/benchmarks.md). So this process runs them in a child of its own, run
 * from this file with INITIALIZE_ONLY, and opens the database once it exits, as a restart would.
 * The data directory stays locked by this process meanwhile.
 */
async function initializeInChild(config: Config): Promise<void> {
  if (config.databaseUrl || config.dataDir === 'memory://') return;
  if (existsSync(path.join(config.dataPath, 'pg', 'PG_VERSION'))) return;
  // the IPC channel tells the child when this process is gone (it then stops: the next start's child
  // must be the only process in the directory)
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), INITIALIZE_ONLY], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => resolve(signal ? null : exitCode));
  });
  if (code !== 0) throw new Error(`creating the database in ${config.dataPath} failed (exit ${code})`);
}

/** The child of initializeInChild: opens (creating) and migrates the embedded database, then closes it. */
async function initializeOnly(config: Config): Promise<void> {
  process.once('disconnect', () => process.exit(1)); // the parent is gone: it holds the directory's lock
  const logger = pino({ level: config.logLevel, base: { pid: process.pid } });
  const { close } = await createContext(config, { logger, collectDefaultMetrics: false });
  await close();
  logger.info({ dataDir: config.dataPath }, 'created the embedded database');
  process.exit(0);
}

/** The configuration from the environment and `--roles`; a configuration error ends the process (exit 2). */
function configOrExit(argv: string[]): Config {
  const roleArg = rolesFromArgs(argv);
  try {
    return loadConfig(roleArg ? { ...process.env, ROLES: roleArg } : process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`transact: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

/** Takes the embedded database's data directory (nothing to take with PostgreSQL); held elsewhere: exit 3. */
function lockOrExit(config: Config): () => void {
  if (config.databaseUrl) return () => {};
  try {
    return lockDataDir(config.dataPath, { role: 'the Transact service', port: config.port });
  } catch (err) {
    if (err instanceof DataDirBusyError) {
      console.error(`transact: ${err.message}`);
      process.exit(3);
    }
    throw err;
  }
}

async function createFirstAdministrator(ctx: AppContext): Promise<void> {
  const boot = await bootstrapAdmin(ctx);
  if (!boot.created) return;
  ctx.logger.info({ email: boot.email }, 'created the first administrator');
  if (boot.generatedPassword) {
    // printed once, to the terminal only; never logged
    process.stdout.write(
      `\n  First administrator created.\n  Sign in at ${ctx.config.publicUrl}/login\n  email:    ${boot.email}\n  ` +
        `password: ${boot.generatedPassword}\n  (shown once; change it with: npm run admin -- user password ` +
        `--email ${boot.email})\n\n`,
    );
  }
}

/**
 * SIGTERM, SIGINT and SIGHUP drain: every stop runs, then the context closes and the data directory
 * is released. A signal that arrives while the roles are still starting (/readyz already answers
 * once the web role listens) is honoured when they have started, so it always drains instead of
 * killing; the returned function marks them started.
 */
function drainOnSignals(ctx: AppContext, stops: Stop[], held: { close: Stop; unlock: () => void }): () => void {
  const { config, logger } = ctx;
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.lifecycle.state = 'draining';
    logger.info({ signal }, 'draining');
    // the roles finish within the grace period themselves; this only catches one that hangs
    const force = setTimeout(
      () => {
        logger.error('drain took too long; exiting');
        held.unlock();
        process.exit(1);
      },
      (config.shutdownGraceSeconds + 10) * 1000,
    );
    force.unref();
    await Promise.allSettled(stops.map((stop) => stop()));
    await held.close();
    held.unlock();
    logger.info('stopped');
    process.exit(0);
  };
  let markStarted = () => {};
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  process.on('SIGTERM', () => void started.then(() => shutdown('SIGTERM')));
  process.on('SIGINT', () => void started.then(() => shutdown('SIGINT')));
  // the terminal that started it closed: drain rather than die mid-write
  process.on('SIGHUP', () => void started.then(() => shutdown('SIGHUP')));
  return markStarted;
}

/** With PostgreSQL, what other processes queue or change reaches this one by LISTEN/NOTIFY. */
function listenForOtherProcesses(ctx: AppContext): Stop {
  const { databaseUrl } = ctx.config;
  if (!databaseUrl) return async () => {};
  return listenForChanges(databaseUrl, ctx.logger, {
    queued: () => notifyQueued(ctx),
    changed: () => clearLookupCaches(ctx),
  });
}

main().catch((err) => {
  console.error('transact: failed to start:', err);
  process.exit(1);
});
