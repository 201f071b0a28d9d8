// One closed-loop SMTP load of `npm run bench:ab`, the same for every MTA it measures: C connections
// each submit their next message as soon as the last one got its 250, N messages in all (2 KB of
// HTML, From sender@bench.example, each to its own recipient and named by X-Bench-Id), into the MTA
// under test, which relays them to the sink (sink.mjs in headers mode, a child process on the load
// core). While it runs, a worker thread samples the measured processes from /proc every 250 ms:
// CPU seconds and the peak of their summed PSS (proportional set size: shared pages split among the
// processes that share them, so many small processes are not overstated as a sum of RSS would).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';
import { htmlBody } from './message.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const now = () => performance.timeOrigin + performance.now();
const DKIM_SAMPLE = 50;
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * A process group to measure: `tree` is a process and all its descendants (Postfix's master, the
 * service); `database` PostgreSQL's backends of that database (children of the postmaster rather
 * than of the service), named by their process title: `postgres: [cluster: ]user database host…`.
 * @typedef {{ name: string, tree?: number, database?: string }} Group
 */

// Runs in a worker: reads /proc on every tick, so the load's event loop never waits for it.
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const read = (p) => { try { return fs.readFileSync(p, 'utf8'); } catch { return null; } };
const { groups, tck } = workerData;
const cpu = groups.map(() => new Map());
const pssPeak = groups.map(() => 0);
let totalPeak = 0;
function tick(first) {
  const procs = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(d)) continue;
    const s = read('/proc/' + d + '/stat');
    if (!s) continue;
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
    procs.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / tck, comm });
  }
  const children = new Map();
  for (const [pid, p] of procs) { if (!children.has(p.ppid)) children.set(p.ppid, []); children.get(p.ppid).push(pid); }
  let total = 0;
  groups.forEach((g, i) => {
    const pids = new Set();
    const stack = g.tree && procs.has(g.tree) ? [g.tree] : [];
    while (stack.length) {
      const p = stack.pop();
      if (pids.has(p)) continue;
      pids.add(p);
      stack.push(...(children.get(p) || []));
    }
    for (const [pid, p] of procs) {
      if (!g.database || p.comm !== 'postgres') continue;
      const title = (read('/proc/' + pid + '/cmdline') || '').replace(/\\0/g, ' ');
      if (title.startsWith('postgres: ') && title.includes(' ' + g.database + ' ')) pids.add(pid);
    }
    let pss = 0;
    for (const pid of pids) {
      const m = /^Pss:\\s*(\\d+)/m.exec(read('/proc/' + pid + '/smaps_rollup') || '');
      if (m) pss += Number(m[1]);
      const seen = cpu[i].get(pid);
      const c = procs.get(pid).cpu;
      // a process that starts during the run counts from zero, one there before from now
      if (seen) seen.last = c; else cpu[i].set(pid, { first: first ? c : 0, last: c });
    }
    pssPeak[i] = Math.max(pssPeak[i], pss);
    total += pss;
  });
  totalPeak = Math.max(totalPeak, total);
}
tick(true);
const timer = setInterval(() => tick(false), 250);
parentPort.on('message', () => {
  clearInterval(timer);
  tick(false);
  parentPort.postMessage(groups.map((g, i) => ({
    name: g.name,
    cpu_s: [...cpu[i].values()].reduce((a, c) => a + c.last - c.first, 0),
    pss_peak_mb: pssPeak[i] / 1024,
    processes: cpu[i].size,
  })).concat([{ name: 'total', pss_peak_mb: totalPeak / 1024 }]));
});
`;

/** @param {number[]} sorted @param {number} p */
function percentile(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : null;
}
const round = (x, digits = 1) => (x === null || !Number.isFinite(x) ? null : Number(x.toFixed(digits)));

/** The N messages, built before the clock starts. */
function messages(n, runId) {
  // lines well under SMTP's 998 characters: a relay that folds a longer line (Postfix does) after
  // signing would break the body's DKIM hash
  const body = `${htmlBody(2048).replaceAll('</p>', '</p>\r\n')}\r\n`;
  const date = new Date().toUTCString().replace('GMT', '+0000');
  return Array.from({ length: n }, (_, i) => {
    const id = `${runId}.${i}`;
    const to = `b-${id}@sink.example`;
    const head =
      `From: Bench Shop <sender@bench.example>\r\nTo: <${to}>\r\nSubject: Your order ${i} has shipped\r\n` +
      `Date: ${date}\r\nMessage-ID: <${id}@bench.example>\r\nX-Bench-Id: ${id}\r\nMIME-Version: 1.0\r\n` +
      'Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n';
    return { to, raw: Buffer.from(head + body) };
  });
}

function connect(options, auth) {
  return new Promise((resolve, reject) => {
    const c = new SMTPConnection(options);
    c.on('error', () => {}); // each send's callback has the error
    c.connect((err) => {
      if (err) return reject(err);
      if (!auth) return resolve(c);
      c.login(auth, (e) => (e ? reject(e) : resolve(c)));
    });
  });
}

/** Verifies the kept messages' DKIM signatures against the TXT record `dkimTxt` (no DNS asked). */
async function verifyDkim(kept, dkimTxt) {
  const { dkimVerify } = await import('mailauth/lib/dkim/verify.js');
  const record = dkimTxt.replace(/\s*;\s*/g, '; ').trim();
  const resolver = async (name, type) => {
    if (type === 'TXT' && name.includes('._domainkey.')) return [[record]];
    throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  };
  let pass = 0;
  const failures = {};
  for (const [, b64] of kept) {
    const out = await dkimVerify(Buffer.from(b64, 'base64'), { resolver });
    if (out.results.some((r) => r.status?.result === 'pass' && r.signingDomain === 'bench.example')) pass++;
    else {
      const why = out.results.map((r) => `${r.status?.result}: ${r.status?.comment ?? ''}`).join(', ') || 'none';
      failures[why] = (failures[why] ?? 0) + 1;
    }
  }
  return { verified: kept.length, pass, ...(pass < kept.length ? { failures } : {}) };
}

/**
 * Runs one load and answers its figures.
 * @param {{ host?: string, port: number, auth?: { user: string, pass: string }, n: number, c: number,
 *   sinkPort: number, cores: string, groups: Group[], dkimTxt?: string, drainTimeoutS?: number }} o
 */
export async function runLoad(o) {
  const runId = `r${Date.now().toString(36)}`;
  const keepEvery = Math.max(1, Math.floor(o.n / DKIM_SAMPLE));
  const sink = spawn(
    'taskset',
    ['-c', o.cores, process.execPath, path.join(here, 'sink.mjs'), String(o.sinkPort), 'headers', String(keepEvery)],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const arrivals = new Map();
  let unsigned = 0;
  let onArrival = () => {};
  let kept = null;
  sink.on('message', (m) => {
    if (m.kept) kept = m.kept;
    for (const [id, t, signed] of m.hits ?? []) {
      if (!id.startsWith(`${runId}.`) || arrivals.has(id)) continue;
      arrivals.set(id, t);
      if (!signed) unsigned++;
      onArrival();
    }
  });
  await new Promise((resolve, reject) => {
    sink.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error('the sink did not start'))));
    sink.once('exit', (code) => reject(new Error(`the sink exited (${code}): is port ${o.sinkPort} free?`)));
  });
  try {
    return await load(o, runId, { arrivals, sink, unsigned: () => unsigned, kept: () => kept }, (f) => (onArrival = f));
  } finally {
    sink.kill('SIGTERM');
  }
}

async function load(o, runId, sink, setOnArrival) {
  const all = messages(o.n, runId);
  const options = {
    host: o.host ?? '127.0.0.1',
    port: o.port,
    ignoreTLS: true,
    name: 'loadgen.bench.example',
    connectionTimeout: 15_000,
    socketTimeout: 120_000,
  };
  const conns = await Promise.all(Array.from({ length: Math.min(o.c, o.n) }, () => connect(options, o.auth)));
  const sampler = new Worker(SAMPLER, { eval: true, workerData: { groups: o.groups, tck: CLK_TCK } });
  const acceptedAt = new Map();
  const failures = {};
  let next = 0;
  const t0 = now();
  const worker = async (c) => {
    for (let i = next++; i < all.length; i = next++) {
      const m = all[i];
      const err = await new Promise((resolve) =>
        c.send({ from: 'sender@bench.example', to: [m.to] }, m.raw, (e) => resolve(e ?? null)),
      );
      if (err) failures[err.responseCode ?? err.code] = (failures[err.responseCode ?? err.code] ?? 0) + 1;
      else acceptedAt.set(`${runId}.${i}`, now());
    }
    c.quit();
  };
  await Promise.all(conns.map(worker));
  const lastAccept = now();
  const deadline = lastAccept + (o.drainTimeoutS ?? 600) * 1000;
  await new Promise((resolve) => {
    const check = () => sink.arrivals.size >= acceptedAt.size && resolve();
    setOnArrival(check);
    check();
    const timer = setInterval(() => (now() > deadline ? resolve() : undefined), 200);
    timer.unref();
  });
  const processes = await new Promise((resolve) => {
    sampler.once('message', resolve);
    sampler.postMessage('stop');
  });
  await sampler.terminate();
  const e2e = [];
  let lastArrival = 0;
  for (const [id, at] of acceptedAt) {
    const t = sink.arrivals.get(id);
    if (t === undefined) continue;
    e2e.push(t - at);
    lastArrival = Math.max(lastArrival, t);
  }
  e2e.sort((a, b) => a - b);
  const firstAccept = Math.min(...acceptedAt.values());
  const delivered = e2e.length;
  const cpu = processes.filter((p) => p.name !== 'total').reduce((a, p) => a + p.cpu_s, 0);
  let dkim = null;
  if (o.dkimTxt) {
    sink.sink.send('kept');
    while (sink.kept() === null) await new Promise((r) => setTimeout(r, 20));
    dkim = await verifyDkim(sink.kept(), o.dkimTxt);
  }
  return {
    accepted: acceptedAt.size,
    failed: Object.values(failures).reduce((a, b) => a + b, 0),
    failures,
    delivered,
    missing: acceptedAt.size - delivered,
    unsigned: sink.unsigned(),
    dkim,
    accept_msg_s: round(acceptedAt.size / ((lastAccept - t0) / 1000)),
    delivered_msg_s: round(delivered / ((lastArrival - firstAccept) / 1000)),
    p50_accept_to_arrival_ms: round(percentile(e2e, 50)),
    p99_accept_to_arrival_ms: round(percentile(e2e, 99)),
    cpu_s: round(cpu, 2),
    cpu_ms_per_msg: delivered ? round((1000 * cpu) / delivered, 3) : null,
    pss_peak_mb: round(processes.find((p) => p.name === 'total').pss_peak_mb),
    processes: processes
      .filter((p) => p.name !== 'total')
      .map((p) => ({ ...p, cpu_s: round(p.cpu_s, 2), pss_peak_mb: round(p.pss_peak_mb) })),
  };
}
