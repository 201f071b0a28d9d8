// `npm run bench:memory`: the memory of an idle service (docs/benchmarks.md), as JSON. Five starts,
// each measured once it logs "transact started" and has settled: (a) every role on PostgreSQL,
// (b) ROLES=worker on PostgreSQL, (c) ROLES=web on PostgreSQL, (d) PGlite's first start on an empty
// DATA_DIR (initdb and every migration), (e) PGlite started again on that DATA_DIR. A figure is the
// process's proportional set size (Pss in /proc/<pid>/smaps_rollup, with Rss beside it), the median
// of `--runs` (3) rounds. `--build DIR` (repeatable) measures the checkouts at DIR (each with its
// dist/ and node_modules, e.g. a worktree of main) instead of this one; with several, every round
// runs them in turn, alternating which goes first, so a slow minute of the machine falls on both.
//
//   npm run bench:memory [-- --build ../main --build . --runs 3 --settle-ms 3000]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { builtStamp, sourceStamp } from './build-stamp.mjs';
import { freePort, freshDatabase, relayEnv, sleep, startService } from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    build: { type: 'string', multiple: true },
    runs: { type: 'string', default: '3' },
    'settle-ms': { type: 'string', default: '3000' },
    'database-url': {
      type: 'string',
      default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const builds = (values.build ?? [root]).map((b) => path.resolve(b));
const runs = Number(values.runs);
const settleMs = Number(values['settle-ms']);
const START_MS = 180_000;
const log = (/** @type {string} */ line) => process.stderr.write(`bench:memory: ${line}\n`);

for (const build of builds) {
  if (build === root && builtStamp(root) !== sourceStamp(root)) {
    log('building (dist/ is missing or older than the sources)');
    const res = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
    if (res.status !== 0) process.exit(res.status ?? 1);
  }
}

/** Pss and Rss of `pid` in MB (smaps_rollup gives kB). */
function memoryOf(/** @type {number} */ pid) {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (/** @type {string} */ field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1]);
  return { pss_mb: Math.round(kb('Pss') / 102.4) / 10, rss_mb: Math.round(kb('Rss') / 102.4) / 10 };
}

/**
 * Starts `build`'s service with `extra` over a relay environment, waits for "transact started" and
 * the settle time, reads its memory and stops it (SIGTERM, as an operator would).
 */
async function measure(/** @type {string} */ build, /** @type {Record<string, string>} */ extra, dataDir) {
  const { env } = await relayEnv({ sinkPort: await freePort(), dataDir });
  delete env.DATABASE_URL;
  delete env.NODE_OPTIONS;
  Object.assign(env, { NODE_ENV: 'production', LOG_LEVEL: 'info' }, extra);
  let started = () => {};
  const startedLine = new Promise((resolve) => (started = resolve));
  let printed = '';
  const service = await startService({
    dist: path.join(build, 'dist'),
    cwd: build,
    env,
    wait: false,
    onOutput: (chunk) => {
      printed = (printed + chunk).slice(-20_000);
      if (printed.includes('"msg":"transact started"')) started();
    },
  });
  try {
    const exited = new Promise((_, reject) =>
      service.child.once('exit', (code) => reject(new Error(`exited (${code}):\n${printed.slice(-4000)}`))),
    );
    const timeout = sleep(START_MS).then(() => Promise.reject(new Error(`no start in ${START_MS / 1000} s`)));
    await Promise.race([startedLine, exited, timeout]);
    await sleep(settleMs);
    return memoryOf(/** @type {number} */ (service.child.pid));
  } finally {
    await service.stop('SIGTERM');
  }
}

const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One round of the five starts of one build. */
async function round(/** @type {string} */ build, /** @type {string} */ databaseUrl) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'transact-bench-memory-'));
  try {
    const pg = { DATABASE_URL: databaseUrl };
    const pgDir = path.join(scratch, 'pg-files');
    const embedded = path.join(scratch, 'pglite');
    return {
      all_roles_postgres: await measure(build, pg, pgDir),
      worker_postgres: await measure(build, { ...pg, ROLES: 'worker' }, pgDir),
      web_postgres: await measure(build, { ...pg, ROLES: 'web' }, pgDir),
      pglite_first_start: await measure(build, {}, embedded),
      pglite_restart: await measure(build, {}, embedded),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** @type {Map<string, Record<string, { pss_mb: number, rss_mb: number }>[]>} */
const samples = new Map(builds.map((b) => [b, []]));
const databases = new Map();
try {
  for (const build of builds) {
    // migrated by a first start that is not counted, so every measured start finds it current
    const database = await freshDatabase(values['database-url']);
    databases.set(build, database);
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'transact-bench-memory-'));
    await measure(build, { DATABASE_URL: database.url, ROLES: 'worker' }, scratch);
    rmSync(scratch, { recursive: true, force: true });
  }
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      log(`round ${i + 1}/${runs}: ${build}`);
      samples.get(build)?.push(await round(build, databases.get(build).url));
    }
  }
} finally {
  for (const database of databases.values()) await database.drop();
}

const result = {
  measured: 'idle Pss (and Rss) in MB after "transact started" and a settle; the median of the rounds',
  settle_ms: settleMs,
  runs,
  node: process.version,
  cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}`,
  builds: Object.fromEntries(
    builds.map((build) => {
      const rounds = samples.get(build) ?? [];
      const cases = Object.keys(rounds[0] ?? {});
      const figures = Object.fromEntries(
        cases.map((c) => [
          c,
          {
            pss_mb: median(rounds.map((r) => r[c].pss_mb)),
            rss_mb: median(rounds.map((r) => r[c].rss_mb)),
            pss_runs: rounds.map((r) => r[c].pss_mb),
          },
        ]),
      );
      const first = figures.pglite_first_start?.pss_mb;
      const again = figures.pglite_restart?.pss_mb;
      return [
        build,
        { ...figures, pglite_first_over_restart: first && again ? Math.round((first / again) * 100) / 100 : null },
      ];
    }),
  ),
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
