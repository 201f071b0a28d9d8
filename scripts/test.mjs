// `npm test`: builds if the sources changed (the browser tests run the built server), checks that
// Chromium is there, runs the unit, integration and browser suites, and ends with one plain line
// "tests: N passed, N failed, N skipped". Set DATABASE_URL to run everything on PostgreSQL.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtStamp, sourceStamp } from './build-stamp.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.error(
    `npm test: Chromium not found at ${chromium}. Install it with: apt-get update && apt-get install -y chromium`,
  );
  process.exit(1);
}
if (builtStamp(root) !== sourceStamp(root)) {
  const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
mkdirSync(path.join(root, 'test-results'), { recursive: true });
// one report per engine, so a PostgreSQL run beside a PGlite one (.ci/run) keeps its own
const report = path.join(root, 'test-results', process.env.DATABASE_URL ? 'vitest-postgres.json' : 'vitest.json');
console.log(`npm test: database ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'PGlite (embedded)'}`);
const run = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit' },
);
let summary = 'tests: 0 passed, 1 failed';
try {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  // a suite that failed to load counts as a failure even when no single test failed
  const failed = r.numFailedTests || (run.status === 0 ? 0 : Math.max(1, r.numFailedTestSuites ?? 0));
  summary = `tests: ${r.numPassedTests} passed, ${failed} failed, ${r.numPendingTests + r.numTodoTests} skipped`;
} catch {
  // no report: the run failed before producing one
}
console.log(summary);
process.exit(run.status ?? 1);
