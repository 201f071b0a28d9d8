// On PGlite an acknowledgement means the commit is on disk. PGlite itself never calls
// fsync, so src/server/db/pglite-sync.ts syncs the WAL after each commit; here strace watches the
// real system calls of a process committing through the service's own database layer
// (tests/fixtures/pglite-commits.ts) and every "ack" it writes must come after an fdatasync that
// followed the previous one. The same run with PGLITE_SYNC_COMMITS off shows none, so the syncs
// are ours. PGlite only: every test here opens PGlite itself, whatever DATABASE_URL says, so the
// PostgreSQL run (which strace makes the slowest file of) skips them; the PGlite run has them.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { PgliteSync } from '../../src/server/db/pglite-sync.ts';

const execFileAsync = promisify(execFile);
const onPglite = describe.skipIf(Boolean(process.env.DATABASE_URL));
const fixture = path.resolve(import.meta.dirname, '../fixtures/pglite-commits.ts');
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs the fixture under strace; answers, per ack, how many fdatasync/fsync calls came since the previous one. */
async function syncsPerAck(commits: number, syncCommits: boolean): Promise<number[]> {
  const dir = mkdtempSync(path.join(tmpdir(), 'transact-pglite-sync-'));
  dirs.push(dir);
  const trace = path.join(dir, 'strace.out');
  await execFileAsync('strace', [
    '-f',
    '-e',
    'trace=fdatasync,fsync,write',
    '-e',
    'signal=none',
    '-o',
    trace,
    process.execPath,
    fixture,
    path.join(dir, 'data'),
    String(commits),
    String(syncCommits),
  ]);
  return syncsBetweenAcks(readFileSync(trace, 'utf8'));
}

/**
 * Reads an `strace -f` log. A sync is counted where it returned: on its own line, or, when another
 * thread's call (libuv's wake-up write, say) was logged while it ran, on its "<... fdatasync
 * resumed>" line, which strace writes when the call returns.
 */
function syncsBetweenAcks(log: string): number[] {
  const counts: number[] = [];
  let since = -1; // until "ready": table creation and the start-up sweep
  for (const line of log.split('\n')) {
    if (/ write\(1, "ready\\n"/.test(line)) since = 0;
    else if (/ write\(1, "ack \d+\\n"/.test(line)) {
      counts.push(since);
      since = 0;
    } else if (since >= 0 && /((fdatasync|fsync)\(\d+\)|<\.\.\. (fdatasync|fsync) resumed>\))\s+= 0/.test(line))
      since++;
  }
  return counts;
}

onPglite('PGlite commits are on disk before they are acknowledged', () => {
  it('is run where strace is installed (.ci/run installs it)', () => {
    expect(spawnSync('strace', ['-V']).status, 'strace is needed for this test: apt-get install strace').toBe(0);
  });

  it("counts a sync strace split around another thread's call, where it returned", () => {
    const log = [
      '10  write(1, "ready\\n", 6) = 6',
      '11  fdatasync(24 <unfinished ...>',
      '12  write(20, "\\1\\0\\0\\0\\0\\0\\0\\0", 8) = 8',
      '11  <... fdatasync resumed>)          = 0',
      '10  write(1, "ack 0\\n", 6) = 6',
      '11  fdatasync(24)                     = 0',
      '10  write(1, "ack 1\\n", 6) = 6',
      '11  fdatasync(24 <unfinished ...>',
      '10  write(1, "ack 2\\n", 6) = 6',
      '11  <... fdatasync resumed>)          = 0',
    ].join('\n');
    expect(syncsBetweenAcks(log)).toEqual([1, 1, 0]);
  });

  it('syncs the WAL after every commit, before the answer', { timeout: 120_000 }, async () => {
    const counts = await syncsPerAck(20, true);
    expect(counts).toHaveLength(20);
    expect(counts.filter((n) => n < 1)).toEqual([]);
  });

  it('makes no such call with PGLITE_SYNC_COMMITS=false (PGlite alone never syncs)', { timeout: 120_000 }, async () => {
    const counts = await syncsPerAck(20, false);
    expect(counts).toHaveLength(20);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(0);
  });
});

onPglite('the sweep of the data files at start', () => {
  it('runs after a crash (no clean-close mark) and is skipped after a clean close', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'transact-pglite-sweep-'));
    dirs.push(dir);
    const pglite = await PGlite.create({ dataDir: dir });
    const first = await PgliteSync.open(dir); // initdb's files: never synced by PGlite
    expect(first.counters.sweeps).toBe(1);
    await pglite.query('create table t (id int)');
    await first.afterStatement(pglite, 'CREATE TABLE');
    expect(first.counters.walSyncs).toBe(1);
    // the process dies here: no close, so no mark
    const afterCrash = await PgliteSync.open(dir);
    expect(afterCrash.counters.sweeps).toBe(1);
    await pglite.close();
    await afterCrash.close();
    const afterCleanClose = await PgliteSync.open(dir);
    expect(afterCleanClose.counters.sweeps).toBe(0);
    await afterCleanClose.close();
  });
});

onPglite('PGlite memory', () => {
  it("opens with PGLITE_SHARED_BUFFERS (16MB by default) instead of initdb's 128MB", async () => {
    const { loadConfig } = await import('../../src/server/core/config.ts');
    const { openDatabase } = await import('../../src/server/db/database.ts');
    const { sql } = await import('kysely');
    expect(loadConfig({}).pgliteSharedBuffers).toBe('16MB');
    const dir = mkdtempSync(path.join(tmpdir(), 'transact-pglite-memory-'));
    dirs.push(dir);
    for (const sharedBuffers of ['16MB', '24MB']) {
      const { db, close } = await openDatabase({ dataPath: dir, sharedBuffers, syncCommits: false });
      const { rows } = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(db);
      expect(rows[0].shared_buffers).toBe(sharedBuffers);
      await close();
    }
  });
});
