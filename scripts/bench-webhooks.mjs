// `npm run bench:webhooks [-- --events N] [-- --messages N]`: prints one JSON document.
//
//   worker      events delivered per second by the webhook worker (claim, build the payload, sign,
//               POST, record) to a local receiver, against the same receiver driven directly by a
//               bare keep-alive HTTP client with the same concurrency and body size (target ≥ 0.5×).
//   end_to_end  messages accepted through the API and delivered into a local SMTP sink per second,
//               with a webhook subscribed to every event (its worker running alongside) and
//               without (target ≥ 0.9×), runs interleaved: without, with, without, with.
//
// The service's modules run in this process on in-memory PGlite (bundled with esbuild from the
// sources); the receiver and the SMTP sink are separate processes, so their work is not counted here.
// `--database-url postgres://…/db` runs on PostgreSQL instead: each measurement in a fresh database
// created next to the one named (and dropped at the end). `--only worker|end_to_end` runs one part.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '5000' },
    messages: { type: 'string', default: '2000' },
    only: { type: 'string' },
    'database-url': { type: 'string' },
  },
});
const log = (m) => process.stderr.write(`bench:webhooks: ${m}\n`);

const RECEIVER =
  `
const http = require('node:http');
const s = http.createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': ` +
  `'text/plain' }); res.end('ok'); }); });
s.keepAliveTimeout = 65000;
s.listen(0, '127.0.0.1', () => process.stdout.write(String(s.address().port) + '\\n'));`;
// the harness's SMTP receiver, draining each message unread
const SINK = `import(${JSON.stringify(pathToFileURL(path.join(root, 'scripts/lib/service-harness.mjs')).href)})
  .then(({ startSmtpSink }) => startSmtpSink({ keep: false, raw: false }))
  .then((s) => process.stdout.write(String(s.port) + '\\n'));`;

function helper(source) {
  const child = spawn(process.execPath, ['-e', source], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve({ child, port: Number(String(d).trim()) }));
    child.once('exit', (code) => reject(new Error(`helper exited ${code}`)));
  });
}

const workDir = mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
const children = [];
const created = [];
const cleanups = [];
try {
  const outfile = path.join(workDir, 'run.mjs');
  await build({
    entryPoints: [path.join(root, 'scripts/bench/webhooks-run.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    logLevel: 'warning',
  });
  symlinkSync(path.join(root, 'node_modules'), path.join(workDir, 'node_modules'), 'dir');
  const run = await import(pathToFileURL(outfile).href);
  const base = values['database-url'];
  if (base) {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    cleanups.push(async () => {
      for (const name of created) await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    });
    // biome-ignore lint/correctness/useHookAtTopLevel: the harness's method, not a React hook
    run.useDatabases(async () => {
      const name = `bench_webhooks_${process.pid}_${created.length}`;
      await admin.query(`create database ${name}`);
      created.push(name);
      const u = new URL(base);
      u.pathname = `/${name}`;
      return u.toString();
    });
  }

  const receiver = await helper(RECEIVER);
  children.push(receiver.child);
  const sink = await helper(SINK);
  children.push(sink.child);
  const url = `http://127.0.0.1:${receiver.port}/hook`;

  const result = { database: base ? 'postgresql' : 'pglite' };
  if (values.only !== 'end_to_end') {
    const events = Number(values.events);
    log(`worker: ${events} events`);
    const worker = await run.workerRate(url, events);
    log(`bare client: ${events} requests`);
    const bare = await run.bareRate(url, events, worker.payload_bytes);
    result.worker = {
      ...worker,
      bare_client_per_second: bare.per_second,
      ratio: worker.per_second / bare.per_second,
      target: 0.5,
    };
  }
  if (values.only !== 'worker') {
    const messages = Number(values.messages);
    const runs = { without: [], with: [] };
    for (const mode of ['without', 'with', 'without', 'with']) {
      log(`end to end ${mode} a webhook: ${messages} messages`);
      runs[mode].push(await run.endToEnd(sink.port, mode === 'with' ? url : null, messages));
    }
    const best = (list) => Math.max(...list.map((r) => r.delivered_per_second));
    result.end_to_end = {
      without_webhook: runs.without,
      with_webhook: runs.with,
      ratio_best: best(runs.with) / best(runs.without),
      target: 0.9,
    };
  }
  result.machine = { cpus: os.cpus().length, load: os.loadavg() };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
} finally {
  for (const c of children) c.kill();
  for (const cleanup of cleanups) await cleanup();
  rmSync(workDir, { recursive: true, force: true });
}
process.exit(0);
