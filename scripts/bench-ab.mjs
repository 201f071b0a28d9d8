// `npm run bench:ab -- <git-ref> [--engine pglite|postgres] [--pairs 3] [--n 10000] [--c 16] [--no-postfix]
//   [--env-a KEY=VALUE …] [--env-b KEY=VALUE …]`:
// delivery of this checkout (B) against another git ref (A), beside Postfix + OpenDKIM, in one
// sitting. A is built in a worktree of its own (bench/ref-build.mjs); B is this checkout, rebuilt
// when dist/ is older than its sources. The runs go Postfix, then pairs in alternating order
// (A B, B A, A B, …), then Postfix again, so a machine that drifts during the sitting weighs on both
// builds alike and the two Postfix runs show how far it drifted.
//
// Every run is the same closed SMTP load (bench/smtp-load.mjs): N messages of 2.4 KB over C
// connections, DKIM-signed by the MTA, relayed to a sink. The load and the sink run on core 0, the
// MTA on core 1. Transact starts afresh each run on a fresh database (bench/transact-target.mjs);
// Postfix (bench/postfix-peer.sh, root: apt-get installs postfix and opendkim when missing) with
// an empty queue. Per run: delivered msg/s (first 250 to last arrival), the MTA's CPU seconds a
// message (the service, plus on PostgreSQL its database's backends; Postfix and OpenDKIM all
// processes), the peak PSS of the same processes, p99 from the 250 to the arrival at the sink, and
// a DKIM check of 50 messages. `--env-a` / `--env-b` add to one side's environment (repeatable): with
// HEAD as the ref, the same code under two settings (NODE_OPTIONS, PGLITE_*, …). Prints one JSON
// document, then a markdown table (to stderr when stdout is not a terminal, so the JSON stays
// parseable).
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildOf } from './bench/ref-build.mjs';
import { runLoad } from './bench/smtp-load.mjs';
import { startTarget } from './bench/transact-target.mjs';
import { freePort } from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LOAD_CORE = '0';
const MTA_CORE = '1';

// the load, the sink and this script belong on the load core: run again pinned
if (process.env.BENCH_AB_PINNED !== '1') {
  const child = spawn(
    'taskset',
    ['-c', LOAD_CORE, process.execPath, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_AB_PINNED: '1' },
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  await new Promise(() => {});
}

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    engine: { type: 'string', default: 'pglite' },
    pairs: { type: 'string', default: '3' },
    n: { type: 'string', default: '10000' },
    c: { type: 'string', default: '16' },
    'no-postfix': { type: 'boolean', default: false },
    'env-a': { type: 'string', multiple: true, default: [] },
    'env-b': { type: 'string', multiple: true, default: [] },
  },
});
const log = (message) => process.stderr.write(`[bench:ab ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
if (positionals.length !== 1) {
  log(
    'usage: npm run bench:ab -- <git-ref> [--engine pglite|postgres] [--pairs 3] [--n 10000] [--c 16] [--no-postfix]' +
      ' [--env-a KEY=VALUE …] [--env-b KEY=VALUE …]',
  );
  process.exit(2);
}
if (!['pglite', 'postgres'].includes(opts.engine)) throw new Error(`unknown engine '${opts.engine}'`);
const N = Number(opts.n);
const C = Number(opts.c);
const PAIRS = Number(opts.pairs);
const peerScript = path.join(root, 'scripts/bench/postfix-peer.sh');

const round = (x, digits = 2) =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Number(x.toFixed(digits));
const median = (xs) => {
  const s = xs.filter((x) => x !== null).sort((a, b) => a - b);
  if (s.length === 0) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The public key of a TXT record as opendkim-genkey writes it (quoted pieces) or bare. */
function txtOf(text) {
  const pieces = [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
  return pieces.length ? pieces.join('') : text.trim();
}

async function postfixRun(sinkPort) {
  const [master, opendkim] = execFileSync('bash', [peerScript, 'start', String(sinkPort), MTA_CORE], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split(' ')
    .map(Number);
  try {
    return await runLoad({
      port: 2525,
      n: N,
      c: C,
      sinkPort,
      cores: LOAD_CORE,
      groups: [
        { name: 'postfix', tree: master },
        { name: 'opendkim', tree: opendkim },
      ],
      dkimTxt: txtOf(readFileSync('/etc/transact-bench/keys/s1.txt', 'utf8')),
    });
  } finally {
    execFileSync('bash', [peerScript, 'stop'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
}

/** `KEY=VALUE` options as an environment. */
const envOf = (pairs) =>
  Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
const sideEnv = { A: envOf(opts['env-a']), B: envOf(opts['env-b']) };

async function transactRun(build, sinkPort, env) {
  const target = await startTarget(build, {
    engine: opts.engine,
    env,
    sinkPort,
    cores: MTA_CORE,
    databaseUrl: process.env.DATABASE_URL,
  });
  try {
    return await runLoad({
      port: target.smtpPort,
      auth: target.auth,
      n: N,
      c: C,
      sinkPort,
      cores: LOAD_CORE,
      groups: target.groups,
      dkimTxt: target.dkimTxt,
    });
  } finally {
    await target.stop();
  }
}

/** The figures a comparison reads, of one run. */
const brief = (r) => ({
  delivered_msg_s: r.delivered_msg_s,
  cpu_ms_per_msg: r.cpu_ms_per_msg,
  pss_peak_mb: r.pss_peak_mb,
  p99_accept_to_arrival_ms: r.p99_accept_to_arrival_ms,
  delivered: r.delivered,
  failed: r.failed,
  unsigned: r.unsigned,
  dkim_pass: r.dkim ? `${r.dkim.pass}/${r.dkim.verified}` : null,
});

const builds = { A: buildOf(root, positionals[0], log), B: buildOf(root, null, log) };
const sinkPort = await freePort();
const started = new Date();
const output = {
  benchmark: 'ab',
  date: started.toISOString(),
  machine: { nproc: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, load_core: 0, mta_core: 1 },
  command: `npm run bench:ab -- ${process.argv.slice(2).join(' ')}`,
  settings: { engine: opts.engine, n: N, connections: C, pairs: PAIRS, message_bytes: 2400 },
  builds: { A: builds.A.label, B: builds.B.label },
  env: sideEnv,
  postfix: [],
  pairs: [],
  runs: [],
};

async function timed(label, run) {
  log(`${label}: ${N} messages…`);
  const result = await run();
  log(
    `${label}: ${result.delivered} delivered at ${result.delivered_msg_s} msg/s, ` +
      `${result.cpu_ms_per_msg} ms CPU a message`,
  );
  output.runs.push({ label, ...result });
  return result;
}

if (!opts['no-postfix']) output.postfix.push(brief(await timed('postfix (start)', () => postfixRun(sinkPort))));
for (let i = 0; i < PAIRS; i++) {
  const order = i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  const pair = { order: order.join(' ') };
  for (const side of order)
    pair[side] = brief(await timed(`pair ${i + 1} ${side}`, () => transactRun(builds[side], sinkPort, sideEnv[side])));
  pair.ratio_b_a = {
    delivered_msg_s: round(pair.B.delivered_msg_s / pair.A.delivered_msg_s, 3),
    cpu_ms_per_msg: round(pair.B.cpu_ms_per_msg / pair.A.cpu_ms_per_msg, 3),
    pss_peak_mb: round(pair.B.pss_peak_mb / pair.A.pss_peak_mb, 3),
    p99_accept_to_arrival_ms: round(pair.B.p99_accept_to_arrival_ms / pair.A.p99_accept_to_arrival_ms, 3),
  };
  output.pairs.push(pair);
}
if (!opts['no-postfix']) output.postfix.push(brief(await timed('postfix (end)', () => postfixRun(sinkPort))));

const figures = ['delivered_msg_s', 'cpu_ms_per_msg', 'pss_peak_mb', 'p99_accept_to_arrival_ms'];
output.summary = { ratio_b_a: {}, to_postfix: {} };
for (const f of figures) {
  const ratios = output.pairs.map((p) => p.ratio_b_a[f]);
  output.summary.ratio_b_a[f] = {
    median: round(median(ratios), 3),
    min: round(Math.min(...ratios), 3),
    max: round(Math.max(...ratios), 3),
  };
}
const postfixMedian = (f) => median(output.postfix.map((p) => p[f]));
for (const side of ['A', 'B']) {
  output.summary.to_postfix[side] = Object.fromEntries(
    figures.map((f) => [f, round(median(output.pairs.map((p) => p[side][f])) / postfixMedian(f), 3)]),
  );
}
output.seconds = round((Date.now() - started.getTime()) / 1000, 0);

const spread = (r) => `${r.median} (${r.min}–${r.max})`;

/** The sitting as a markdown table, one column per run in the order they ran. */
function table() {
  const columns = [];
  if (output.postfix[0]) columns.push(['Postfix + OpenDKIM', output.postfix[0]]);
  output.pairs.forEach((p, i) => {
    for (const side of p.order.split(' ')) columns.push([`${i + 1} ${side}`, p[side]]);
  });
  if (output.postfix[1]) columns.push(['Postfix + OpenDKIM', output.postfix[1]]);
  const row = (name, f, digits) =>
    `| ${name} | ${columns.map(([, r]) => r[f]?.toFixed?.(digits) ?? r[f] ?? '').join(' | ')} |`;
  const { ratio_b_a: ab } = output.summary;
  const withEnv = (side) =>
    Object.keys(sideEnv[side]).length
      ? ` with ${Object.entries(sideEnv[side])
          .map(([k, v]) => `${k}=${v}`)
          .join(' ')}`
      : '';
  return [
    `A = ${builds.A.label}${withEnv('A')}, B = ${builds.B.label}${withEnv('B')}; ${opts.engine}, N = ${N}, C = ${C}; ` +
      `${output.machine.nproc} × ${output.machine.cpu}, ${output.date.slice(0, 10)}`,
    '',
    `| run | ${columns.map(([name]) => name).join(' | ')} |`,
    `| --- | ${columns.map(() => '---').join(' | ')} |`,
    row('delivered msg/s', 'delivered_msg_s', 1),
    row('CPU ms a message', 'cpu_ms_per_msg', 2),
    row('PSS peak, MB', 'pss_peak_mb', 0),
    row('p99 accept → arrival, ms', 'p99_accept_to_arrival_ms', 0),
    row('DKIM verified', 'dkim_pass', 0),
    '',
    `B/A, median (min–max) of ${PAIRS} pairs: msg/s ${spread(ab.delivered_msg_s)}, ` +
      `CPU a message ${spread(ab.cpu_ms_per_msg)}, PSS ${spread(ab.pss_peak_mb)}, ` +
      `p99 ${spread(ab.p99_accept_to_arrival_ms)}`,
  ].join('\n');
}
output.markdown = table();
process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
(process.stdout.isTTY ? process.stdout : process.stderr).write(`\n${output.markdown}\n`);
const incomplete = output.runs.some((r) => r.missing > 0 || r.failed > 0);
process.exit(incomplete ? 1 : 0);
