// One Database type over either engine: embedded PGlite (default, data in DATA_DIR) or PostgreSQL
// (DATABASE_URL). Everything above this file sees only Kysely<Tables>.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type { Tables } from './schema.ts';
import { pglitePool } from './pglite-pool.ts';
import { PgliteSync } from './pglite-sync.ts';

export type Database = Kysely<Tables>;

export interface DatabaseHandle {
  db: Database;
  engine: 'pglite' | 'postgres';
  /** Closes the pool (PostgreSQL) or the embedded database (PGlite). */
  close(): Promise<void>;
}

/**
 * Opens PostgreSQL when `databaseUrl` is given, else PGlite in `dataPath/pg` (or in memory for
 * `memory://`). `loadDataDir` (PGlite) starts an empty data directory from a tarball of another
 * (PGlite's dumpDataDir) instead of running initdb: tests start from a migrated template.
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataPath?: string;
  poolSize?: number;
  syncCommits?: boolean;
  /** PGlite: its shared_buffers (PostgreSQL's size syntax, e.g. `16MB`). */
  sharedBuffers?: string;
  loadDataDir?: Blob;
}): Promise<DatabaseHandle> {
  if (opts.databaseUrl) {
    const pg = (await import('pg')).default;
    // int8 (counts, ids) as numbers: every value we store fits in 2^53.
    pg.types.setTypeParser(20, (v: string) => Number(v));
    // a connection attempt to a server that does not answer fails instead of hanging
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
    });
    pool.on('error', () => {
      // an idle client lost its connection; the pool replaces it on next use
    });
    // A client that is checked out (inside a transaction, between two queries) has no pool listener:
    // its 'error' event (PostgreSQL restarted, the backend terminated) would be unhandled and end the
    // process. The query that was running fails with the same error; the client is then discarded
    // by the pool when released (pg marks it as errored).
    pool.on('connect', (client) => {
      client.on('error', () => {});
    });
    const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }) });
    return { db, engine: 'postgres', close: () => db.destroy() };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  let dataDir: string | undefined;
  if (opts.dataPath && opts.dataPath !== 'memory://') {
    dataDir = path.join(opts.dataPath, 'pg');
    mkdirSync(dataDir, { recursive: true });
  }
  // shared_buffers lives in PGlite's WebAssembly memory, which never shrinks: initdb's 128MB is most
  // of the process's memory, while the queue's working set is small and every read of a data file
  // goes through the operating system's page cache anyway (docs/benchmarks.md)
  const startParams = opts.sharedBuffers
    ? [...PGlite.defaultStartParams, '-c', `shared_buffers=${opts.sharedBuffers}`]
    : undefined;
  const pglite = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    ...(startParams ? { startParams } : {}),
  });
  // on disk, a commit is answered once its WAL is synced (PGlite itself never calls fsync)
  const sync = dataDir && (opts.syncCommits ?? true) ? await PgliteSync.open(dataDir) : undefined;
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: pglitePool(pglite, sync) }) });
  return { db, engine: 'pglite', close: () => db.destroy() };
}

/** True when the database answers a trivial query. */
export async function databaseReachable(db: Database): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

const PROBE_TIMEOUT_MS = 3000;

/**
 * Whether the database answers within 3 s. Asked through AppContext.databaseProbe, at most once a
 * second (SMTP asks before MAIL FROM and RCPT TO, so a client learns of an outage with a 451 before
 * sending its message).
 */
export function probeDatabase(db: Database): Promise<boolean> {
  return Promise.race([
    databaseReachable(db),
    new Promise<boolean>((resolve) => setTimeout(resolve, PROBE_TIMEOUT_MS, false).unref()),
  ]);
}
