// Builds the AppContext: opens the database, applies migrations, brings the template gallery's rows
// up to this source tree (src/server/templates/gallery/seed.ts), and (embedded database only)
// provides a generated master secret kept in DATA_DIR. It also makes the state the process keeps
// (caches, readings, the queues that group writes: core/context.ts) and closes it with the database.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from './core/config.ts';
import type { AppContext } from './core/context.ts';
import { randomToken } from './core/crypto.ts';
import { openDatabase, probeDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createMetrics } from './core/metrics.ts';
import { freeSpaceReading } from './core/free-space.ts';
import { LookupCaches } from './core/lookup-cache.ts';
import { createQueueSignal } from './core/queue-signal.ts';
import { Reading } from './core/reading.ts';
import { createResolver } from './core/resolver.ts';
import { createSecrets } from './core/secrets.ts';
import { createInFlow } from './delivery/in-flow.ts';
import { systemSenderReading } from './domains/system-sender.ts';
import { openStorage } from './open-storage.ts';
import { AcceptQueue } from './sending/sending.service.ts';
import { syncGallery } from './templates/gallery/seed.ts';
import { createTrackingWriters, flushTracking } from './tracking/tracking.service.ts';
import { createTestEventSender } from './webhooks/webhooks.service.ts';

const PROBE_EVERY_MS = 1000;

export interface ContextHandle {
  ctx: AppContext;
  close(): Promise<void>;
}

/** With the embedded database and no TRANSACT_SECRET, a secret is generated once into DATA_DIR. */
function ensureSecret(config: Config): Config {
  if (config.secret || config.databaseUrl || config.dataDir === 'memory://') {
    return config.secret ? config : Object.freeze({ ...config, secret: randomToken(32) });
  }
  const file = path.join(config.dataPath, 'secret.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataPath, { recursive: true });
    writeFileSync(file, randomToken(32), { mode: 0o600, flag: 'wx' });
  }
  return Object.freeze({ ...config, secret: readFileSync(file, 'utf8').trim() });
}

/** `loadDataDir`: an embedded database's starting data directory (see openDatabase); tests pass a migrated template. */
export async function createContext(
  config: Config,
  opts: { logger?: Logger; collectDefaultMetrics?: boolean; loadDataDir?: Blob } = {},
): Promise<ContextHandle> {
  const logger = opts.logger ?? pino({ level: config.logLevel, base: { pid: process.pid } });
  const full = ensureSecret(config);
  const handle = await openDatabase({
    databaseUrl: full.databaseUrl,
    dataPath: full.dataDir === 'memory://' ? 'memory://' : full.dataPath,
    poolSize: full.databasePoolSize,
    syncCommits: full.pgliteSyncCommits,
    sharedBuffers: full.pgliteSharedBuffers,
    loadDataDir: opts.loadDataDir,
  });
  try {
    await migrateToLatest(handle.db);
    await syncGallery(handle.db);
  } catch (err) {
    await handle.close();
    throw err;
  }
  const metrics = createMetrics(opts.collectDefaultMetrics ?? true);
  const core = {
    config: full,
    db: handle.db,
    engine: handle.engine,
    logger,
    metrics,
    storage: await openStorage(full),
    // main.ts moves it through starting → running → draining; elsewhere (CLI, tests) it is running
    lifecycle: { state: 'running' } as AppContext['lifecycle'],
    secrets: createSecrets(full.secret!),
    lookups: new LookupCaches(),
    queueSignal: createQueueSignal(),
    freeSpace: freeSpaceReading(full),
    databaseProbe: new Reading(() => probeDatabase(handle.db), PROBE_EVERY_MS),
    resolver: createResolver(full),
    apiKeyTouches: new Map<string, number>(),
    inFlow: createInFlow({ config: full, metrics }),
    webhookSender: createTestEventSender(full),
  };
  // the domains' state keeps the context it serves, to use once work comes; it is added just below
  const ctx = core as AppContext;
  const state: Omit<AppContext, keyof typeof core> = {
    acceptQueue: new AcceptQueue(ctx),
    systemSender: systemSenderReading(ctx),
    tracking: createTrackingWriters(ctx),
  };
  Object.assign(ctx, state);
  return {
    ctx,
    async close() {
      await flushTracking(ctx); // the opens and clicks still buffered (it logs its own failures)
      ctx.webhookSender.close();
      ctx.inFlow.close();
      await handle.close();
    },
  };
}
