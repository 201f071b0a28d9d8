// PGlite's Node file system never calls fsync: PostgreSQL's own fsync calls end in a no-op inside
// the WebAssembly runtime (strace shows none), so a committed transaction may sit in the operating
// system's page cache when the answer goes out, and a power cut loses it. This file
// makes a commit durable the way PostgreSQL does, from outside: after every statement that ends a
// write (COMMIT, or a write outside a transaction), the WAL segment holding it is fdatasync'ed
// before the result is handed back, so the 202/250 that follows is sent only for data on disk.
//
// Data files are written by checkpoints, which in PGlite's single-user mode run inside a statement
// (when the WAL outgrows max_wal_size, and at close). A checkpoint rewrites global/pg_control; when
// its mtime moves, every file of the data directory is synced (data files first, pg_control last),
// so the WAL a checkpoint lets PostgreSQL recycle is never the only copy of a change. The window
// between the checkpoint writing pg_control and that sweep is the one place a power cut could still
// leave pg_control ahead of the data files; docs/architecture.md (§5.1) records it.
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open, readdir, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

const WAL_FILE = /^[0-9A-F]{24}$/;
// written after the sweep at a clean close, removed at open: its absence means "sweep at start"
const CLEAN_MARK = 'transact-synced';

/** The counters a test reads: how many WAL syncs and full sweeps ran. */
export interface SyncCounters {
  walSyncs: number;
  sweeps: number;
}

export class PgliteSync {
  readonly #dataDir: string;
  readonly #walDir: string;
  readonly #control: string;
  #segment: string | null = null;
  #handle: FileHandle | null = null;
  #controlMtime: number;
  // when the last sweep began (0: none yet, so the first one takes every file)
  #sweptFrom = -Infinity;
  readonly counters: SyncCounters = { walSyncs: 0, sweeps: 0 };
  /** How long the last sweep took (logged at start by the caller). */
  lastSweepMs = 0;

  constructor(dataDir: string) {
    this.#dataDir = dataDir;
    this.#walDir = path.join(dataDir, 'pg_wal');
    this.#control = path.join(dataDir, 'global', 'pg_control');
    this.#controlMtime = statSync(this.#control).mtimeMs;
  }

  /**
   * What an earlier process (or initdb) left in the page cache goes to disk before anything new is
   * acknowledged: a full sweep, awaited by openDatabase.
   */
  static async open(dataDir: string): Promise<PgliteSync> {
    const sync = new PgliteSync(dataDir);
    // a clean close left everything synced and said so; after a crash there is no such mark
    const mark = path.join(dataDir, CLEAN_MARK);
    if (existsSync(mark)) rmSync(mark);
    else await sync.sweep();
    return sync;
  }

  /**
   * Called after a statement, under the pool's mutex: syncs when the statement ended a write.
   * `command` is the statement's tag (COMMIT, INSERT, …).
   */
  async afterStatement(pglite: PGlite, command: string | undefined): Promise<void> {
    if (
      command === undefined ||
      command === 'SELECT' ||
      command === 'BEGIN' ||
      command === 'ROLLBACK' ||
      command === 'SHOW' ||
      command === 'SET'
    )
      return;
    if (pglite.isInTransaction()) return;
    // by the simple query protocol, which costs PGlite about half the extended one (pglite-pool.ts)
    const [{ rows }] = await pglite.exec('select pg_walfile_name(pg_current_wal_insert_lsn()) as name');
    await this.#syncWal((rows[0] as { name: string }).name);
    const mtime = statSync(this.#control).mtimeMs;
    if (mtime !== this.#controlMtime) {
      this.#controlMtime = mtime;
      await this.sweep();
    }
  }

  /**
   * fdatasync of the current WAL segment, and of every segment (and the directory) since the last
   * one. Asynchronous (libuv's thread pool), so requests keep being read meanwhile and join the
   * next group commit.
   */
  async #syncWal(current: string): Promise<void> {
    if (current !== this.#segment) {
      const previous = this.#segment;
      // the commit may have crossed into a new segment: the ones in between, and the new names
      for (const name of readdirSync(this.#walDir)) {
        if (WAL_FILE.test(name) && previous !== null && name >= previous && name < current)
          await syncFile(path.join(this.#walDir, name), false, -Infinity);
      }
      await syncFile(this.#walDir, true, -Infinity);
      await this.#handle?.close();
      this.#handle = await open(path.join(this.#walDir, current), 'r');
      this.#segment = current;
    }
    await (this.#handle as FileHandle).datasync();
    this.counters.walSyncs++;
  }

  /**
   * Every file and directory of the data directory changed since the previous sweep began (all of
   * them the first time), pg_control last: at start, after a checkpoint, at close. Asynchronous, a
   * few files at a time, so the event loop keeps running.
   */
  async sweep(): Promise<void> {
    const started = Date.now();
    const since = this.#sweptFrom - 2_000; // file times are coarse on some file systems
    const files: string[] = [];
    const dirs: string[] = [];
    const walk = async (dir: string) => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile() && full !== this.#control) files.push(full);
      }
      dirs.push(dir);
    };
    await walk(this.#dataDir);
    const queue = [...files.map((f) => [f, false] as const), ...dirs.map((d) => [d, true] as const)];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) await syncFile(next[0], next[1], since);
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    await syncFile(this.#control, false, -Infinity);
    this.#sweptFrom = started;
    this.counters.sweeps++;
    this.lastSweepMs = Date.now() - started;
  }

  /** After PGlite closed: the last sweep, then the mark that lets the next start skip its own. */
  async close(): Promise<void> {
    await this.#handle?.close();
    this.#handle = null;
    await this.sweep();
    writeFileSync(path.join(this.#dataDir, CLEAN_MARK), '');
  }
}

/** fdatasync (fsync for a directory) of `file` when it changed after `since` (ms); gone is fine. */
async function syncFile(file: string, directory: boolean, since: number): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch {
    return; // removed meanwhile (a recycled WAL segment, a dropped relation)
  }
  try {
    if (since > -Infinity && (await handle.stat()).mtimeMs < since) return;
    if (directory) await handle.sync();
    else await handle.datasync();
  } finally {
    await handle.close();
  }
}
