// `npm run bench:statements [-- <git-ref> …] [--engine pglite|postgres] [--n 1000] [--c 16] [--explain]`:
// the SQL statements the service sends per delivered message, counted, not timed. For each build
// (this checkout, or each git ref given, built in a worktree of its own: bench/ref-build.mjs) it
// starts the service on a fresh database with a counter preloaded (bench/statement-counter.mjs),
// submits N messages over SMTP with the load of `npm run bench:ab` (relayed to a local sink), and
// once all have arrived and 2 s passed, reads what was sent during the load; then 5 s more with
// nothing to do, to tell the statements the workers send on a clock (their polls) from those a
// message costs. Prints one JSON document: per build, per statement shape (text with `$n` as `$`
// and a VALUES list's repeats folded) its calls and rows per message, the bytes of text and
// parameters sent, and with --explain the plans of its 50th and 100th calls (with ANALYZE inside a
// transaction); then the shapes whose count per message differs between the builds. The
// milliseconds beside each shape are wall time in the service's process: read them as a hint,
// never as a measurement.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildOf } from './bench/ref-build.mjs';
import { runLoad } from './bench/smtp-load.mjs';
import { startTarget } from './bench/transact-target.mjs';
import { freePort, sleep } from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    engine: { type: 'string', default: 'pglite' },
    n: { type: 'string', default: '1000' },
    c: { type: 'string', default: '16' },
    explain: { type: 'boolean', default: false },
  },
});
if (!['pglite', 'postgres'].includes(opts.engine)) throw new Error(`unknown engine '${opts.engine}'`);
const N = Number(opts.n);
const IDLE_S = 5;
const ALL_CORES = `0-${os.cpus().length - 1}`;
const log = (message) => process.stderr.write(`[bench:statements] ${message}\n`);
const round = (x, digits = 3) => Number(x.toFixed(digits));

/** The module URLs of PGlite and pg as the build under test resolves them (its own node_modules). */
function modulesOf(build) {
  const script = "console.log(import.meta.resolve('@electric-sql/pglite'));console.log(import.meta.resolve('pg'))";
  const [pglite, pg] = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: build.root,
    encoding: 'utf8',
  })
    .trim()
    .split('\n');
  return { STATEMENTS_PGLITE: pglite, STATEMENTS_PG: pg };
}

/** Asks the counter for what it counted since the last ask (and to start afresh). */
async function take(pid, file) {
  rmSync(file, { force: true });
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 200 && !existsSync(file); i++) await sleep(25);
  if (!existsSync(file) || statSync(file).size === 0) throw new Error('the statement counter did not answer');
  return JSON.parse(readFileSync(file, 'utf8')).statements;
}

async function measure(build) {
  const work = mkdtempSync(path.join(os.tmpdir(), 'transact-statements-'));
  const file = path.join(work, 'statements.json');
  const sinkPort = await freePort();
  const counter = pathToFileURL(path.join(root, 'scripts/bench/statement-counter.mjs')).href;
  const target = await startTarget(build, {
    engine: opts.engine,
    sinkPort,
    cores: ALL_CORES,
    databaseUrl: process.env.DATABASE_URL,
    env: {
      ...modulesOf(build),
      NODE_OPTIONS: `--import=${counter}`,
      STATEMENTS_OUT: file,
      STATEMENTS_EXPLAIN: opts.explain ? '1' : '0',
    },
  });
  try {
    await sleep(1000);
    await take(target.pid, file); // the start's statements
    const t0 = performance.now();
    const load = await runLoad({
      port: target.smtpPort,
      auth: target.auth,
      n: N,
      c: Number(opts.c),
      sinkPort,
      cores: ALL_CORES,
      groups: [],
    });
    await sleep(2000);
    const during = await take(target.pid, file);
    const seconds = (performance.now() - t0) / 1000;
    await sleep(IDLE_S * 1000);
    const idle = await take(target.pid, file);
    return { load, seconds, during, idle };
  } finally {
    await target.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function summary(build, m) {
  const n = m.load.delivered;
  const idleCalls = new Map(m.idle.map((s) => [s.shape, s.calls / IDLE_S]));
  const shapes = m.during
    .map((s) => ({
      shape: s.shape,
      calls: s.calls,
      per_msg: round(s.calls / n),
      rows_per_call: round(s.rows / s.calls, 2),
      changed_per_call: round(s.changed / s.calls, 2),
      zero_row_calls: s.zero_row_calls,
      text_bytes_per_call: Math.round(s.text_bytes / s.calls),
      param_bytes_per_call: Math.round(s.param_bytes / s.calls),
      params_per_call: round(s.params / s.calls, 1),
      idle_calls_per_s: round(idleCalls.get(s.shape) ?? 0, 2),
      wall_ms_per_call_hint: round(s.ms / s.calls, 3),
      ...(s.plans ? { plans: s.plans } : {}),
    }))
    .sort((a, b) => b.calls - a.calls);
  const sum = (key) => m.during.reduce((a, s) => a + s[key], 0);
  const clocked = m.idle.reduce((a, s) => a + s.calls, 0) / IDLE_S;
  return {
    build: build.label,
    commit: build.commit,
    engine: opts.engine,
    n: N,
    delivered: n,
    missing: m.load.missing,
    seconds: round(m.seconds, 1),
    statements: sum('calls'),
    statements_per_msg: round(sum('calls') / n),
    // what the workers' polls would have sent over the same seconds with nothing to deliver
    clocked_statements_per_s: round(clocked, 2),
    statements_per_msg_less_clocked: round((sum('calls') - clocked * m.seconds) / n),
    rows_per_msg: round(sum('rows') / n),
    text_kb_per_msg: round(sum('text_bytes') / n / 1024),
    param_kb_per_msg: round(sum('param_bytes') / n / 1024),
    shapes,
  };
}

/** The shapes whose calls per message differ between the first build and each other one. */
function differences(results) {
  const [a, ...rest] = results;
  return rest.map((b) => {
    const byShape = (r) => new Map(r.shapes.map((s) => [s.shape, s]));
    const sa = byShape(a);
    const sb = byShape(b);
    const shapes = [...new Set([...sa.keys(), ...sb.keys()])]
      .map((shape) => ({ shape, a: sa.get(shape)?.per_msg ?? 0, b: sb.get(shape)?.per_msg ?? 0 }))
      .filter((d) => Math.abs(d.a - d.b) >= 0.01)
      .sort((x, y) => Math.abs(y.b - y.a) - Math.abs(x.b - x.a));
    return { a: a.build, b: b.build, statements_per_msg: [a.statements_per_msg, b.statements_per_msg], shapes };
  });
}

const refs = positionals.length ? positionals : ['.'];
const results = [];
for (const ref of refs) {
  const build = buildOf(root, ref === '.' ? null : ref, log);
  log(`${build.label}: ${N} messages on ${opts.engine}`);
  results.push(summary(build, await measure(build)));
}
const output = {
  benchmark: 'statements',
  date: new Date().toISOString(),
  machine: { nproc: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
  results,
  differences: differences(results),
};
process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
