// Process entry: `node dist/main.mjs [--roles web,smtp,worker]`. Reads the configuration, takes the
// data directory (embedded database), migrates, creates the first administrator on an empty
// database, starts the roles, and drains on SIGTERM/SIGINT/SIGHUP.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from './core/config.ts';
import { createContext } from './create-context.ts';
import { DataDirBusyError, lockDataDir } from './db/data-lock.ts';
import { writeServiceRecord } from './ops/service-record.ts';
import { bootstrapAdmin } from './accounts/accounts.service.ts';
import { pruneAuthTables } from './auth/auth.service.ts';
import { createApi } from './app.ts';
import { createHttpServer } from './server.ts';
import { purgeDownloadRecords, sweepOrphanBlobs } from './attachments/attachments.service.ts';
import { purgeReceived, sweepOrphanInboundFiles } from './inbound/inbound.service.ts';
import { createPageBridge } from './page-bridge.ts';
import { DeliveryWorker } from './delivery/worker.ts';
import { startDnsRefresher } from './domains/dns-check.service.ts';
import { startSubmissionServer } from './smtp/submission.ts';
import { startBounceReceiver } from './bounces/receiver.ts';
import { listenForChanges } from './delivery/listen.ts';
import { notifyQueued } from './core/queue-signal.ts';
import { clearLookupCaches } from './core/lookup-cache.ts';
import { pruneIdempotency } from './sending/sending.service.ts';
import { flushTracking } from './tracking/tracking.service.ts';
import { WebhookWorker } from './webhooks/worker.ts';
import { ExportWorker } from './exports/exports.service.ts';
import { isDatabaseUnavailable } from './db/availability.ts';
import { releaseOrphanedClaims } from './delivery/queue-admin.ts';
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

async function main(): Promise<void> {
  const config = configOrExit(process.argv.slice(2));
  const unlock = lockOrExit(config);
  const { ctx, close } = await createContextWaiting(
    config,
    pino({ level: config.logLevel, base: { pid: process.pid } }),
  );
  ctx.lifecycle.state = 'starting';
  await releaseClaimsOfPreviousProcess(ctx);
  await createFirstAdministrator(ctx);

  const stops: Stop[] = [];
  const markStarted = drainOnSignals(ctx, stops, { close, unlock });
  if (config.roles.includes('web')) stops.push(await startWebRole(ctx));
  stops.push(listenForOtherProcesses(ctx));
  if (config.roles.includes('smtp')) stops.push(...(await startSmtpRole(ctx)));
  if (config.roles.includes('worker')) stops.push(startWorkerRole(ctx));
  ctx.logger.info({ roles: config.roles, engine: ctx.engine }, 'transact started');
  if (ctx.lifecycle.state === 'starting') ctx.lifecycle.state = 'running';
  markStarted();
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

async function releaseClaimsOfPreviousProcess(ctx: AppContext): Promise<void> {
  if (ctx.engine !== 'pglite' || !ctx.config.roles.includes('worker')) return;
  // this process owns the data directory: every claim in it belongs to a process that is gone
  const released = await releaseOrphanedClaims(ctx);
  if (released > 0) ctx.logger.info({ count: released }, 'released the claims of the previous process');
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

/** The web role: the HTTP server on PORT (API, assets and the console's pages). */
async function startWebRole(ctx: AppContext): Promise<Stop> {
  const { config, logger } = ctx;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const entry = path.join(here, 'server', 'entry.mjs');
  const { handler } = await import(entry);
  const server = createHttpServer({
    ctx,
    api: createApi(ctx),
    pages: handler,
    bridge: createPageBridge(ctx),
    clientDir: path.join(here, 'client'),
  });
  server.keepAliveTimeout = 65_000;
  // attachment uploads take as long as they take (docs/console-reports.md §7: no timeout); headersTimeout
  // bounds slow headers, and connections that never send any
  server.requestTimeout = 0;
  server.headersTimeout = config.httpHeadersTimeoutSeconds * 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  logger.info({ port: config.port, url: config.publicUrl }, 'web role listening');
  try {
    writeServiceRecord(config.dataPath, { publicUrl: config.publicUrl, startedAt: new Date().toISOString() });
  } catch (err) {
    // only the admin CLI's address check reads it: serving goes on without it
    logger.warn({ err }, 'could not record the service addresses in DATA_DIR');
  }
  // after the last requests, their opens and clicks
  return () => closeWebServer(server, config.shutdownGraceSeconds * 1000).then(() => flushTracking(ctx));
}

/**
 * Keep-alive connections go idle after their request: close them as they do, and at the end of
 * the grace period close what is left (a request still running gets cut off).
 */
function closeWebServer(server: ReturnType<typeof createHttpServer>, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const deadline = Date.now() + graceMs;
    const sweep = setInterval(() => {
      if (Date.now() < deadline) server.closeIdleConnections();
      else server.closeAllConnections();
    }, 100);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
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

/** The smtp role: submission on SMTP_PORT, and the bounce receiver when BOUNCE_SMTP_PORT is set. */
async function startSmtpRole(ctx: AppContext): Promise<Stop[]> {
  const { config } = ctx;
  const submission = await startSubmissionServer(ctx);
  const stops: Stop[] = [() => submission.close(config.shutdownGraceSeconds * 1000)];
  if (config.bounceSmtpPort > 0) {
    const bounces = await startBounceReceiver(ctx);
    stops.push(() => bounces.close());
  }
  return stops;
}

/** The worker role: delivery, webhooks, exports, the DNS refresher and the hourly housekeeping. */
function startWorkerRole(ctx: AppContext): Stop {
  const { config, logger } = ctx;
  const worker = new DeliveryWorker(ctx);
  worker.start();
  const webhooks = new WebhookWorker(ctx);
  webhooks.start();
  const exportWorker = new ExportWorker(ctx);
  exportWorker.start();
  const stopDnsRefresher = startDnsRefresher(ctx);
  const timer = setInterval(() => {
    pruneAuthTables(ctx).catch((err) => logger.warn({ err }, 'pruning sessions failed'));
    pruneIdempotency(ctx).catch((err) => logger.warn({ err }, 'pruning idempotency keys failed'));
    webhooks.purge().catch((err) => logger.warn({ err }, 'purging webhook logs failed'));
    sweepOrphanBlobs(ctx).catch((err) => logger.warn({ err }, 'sweeping attachment blobs failed'));
    purgeDownloadRecords(ctx).catch((err) => logger.warn({ err }, 'purging attachment download records failed'));
    purgeReceived(ctx)
      .then(() => sweepOrphanInboundFiles(ctx))
      .catch((err) => logger.warn({ err }, 'purging received mail failed'));
  }, 3_600_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await Promise.all([
      worker.stop(config.shutdownGraceSeconds * 1000),
      webhooks.stop(),
      exportWorker.stop(config.shutdownGraceSeconds * 1000),
      stopDnsRefresher(),
    ]);
  };
}

main().catch((err) => {
  console.error('transact: failed to start:', err);
  process.exit(1);
});
