// Builds the AppContext: opens the database, applies migrations, brings the template gallery's rows
// up to this source tree (src/server/templates/gallery/seed.ts), and (embedded database only)
// provides a generated master secret kept in DATA_DIR.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from './core/config.ts';
import type { AppContext } from './core/context.ts';
import { randomToken } from './core/crypto.ts';
import { openDatabase } from './db/database.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createMetrics } from './core/metrics.ts';
import { openStorage } from './open-storage.ts';
import { syncGallery } from './templates/gallery/seed.ts';

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
  const ctx: AppContext = {
    config: full,
    db: handle.db,
    engine: handle.engine,
    logger,
    metrics: createMetrics(opts.collectDefaultMetrics ?? true),
    storage: openStorage(full),
    // main.ts moves it through starting → running → draining; elsewhere (CLI, tests) it is running
    lifecycle: { state: 'running' },
  };
  return { ctx, close: () => handle.close() };
}
