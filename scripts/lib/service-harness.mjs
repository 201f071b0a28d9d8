// The parts of a run against the built service that the durability script and the fault suite
// share: a counting SMTP sink, a fresh database, a private copy of dist/, the service as a child
// process that can be killed and restarted, and the admin CLI.
import { spawn, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const execFileAsync = promisify(execFile);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// a start (PGlite recovery, migrations, the roles) takes seconds; on a busy machine far more
const START_TIMEOUT_MS = 180_000;

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** The transaction uuid a VERP envelope sender names (bounces+<32 hex>.<12 hex mac>@…). */
export function uuidFromVerp(address) {
  const m = /^bounces\+([0-9a-f]{32})\.[0-9a-f]{12}@/i.exec(address);
  if (!m) return null;
  const id = m[1].toLowerCase();
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}

/** The far side of delivery: counts arrivals per trans_uuid and the trans_uuids seen per idempotency key. */
export async function startSink({ rcptDelayMs = 0 } = {}) {
  const arrivals = new Map(); // trans_uuid → count
  const repeats = []; // [trans_uuid, time of the previous arrival, time of this one]
  const lastArrival = new Map();
  const firstArrival = new Map(); // trans_uuid → when it first arrived (ms)
  const uuidsByKey = new Map(); // X-Durability-Key → Set(trans_uuid)
  let unparsed = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    maxClients: 1000,
    // a receiver that takes its time per recipient (the kill -9 fault of faults.mjs uses 0.1 s)
    onRcptTo(_address, _session, callback) {
      if (rcptDelayMs > 0) setTimeout(() => callback(), rcptDelayMs);
      else callback();
    },
    onData(stream, session, callback) {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('error', () => {}); // the sender was killed mid-message: nothing arrived
      stream.on('end', () => {
        const uuid = uuidFromVerp(session.envelope.mailFrom ? session.envelope.mailFrom.address : '');
        if (!uuid) {
          unparsed++;
          return callback(null);
        }
        arrivals.set(uuid, (arrivals.get(uuid) ?? 0) + 1);
        if (!firstArrival.has(uuid)) firstArrival.set(uuid, Date.now());
        if (lastArrival.has(uuid)) repeats.push([uuid, lastArrival.get(uuid), Date.now()]);
        lastArrival.set(uuid, Date.now());
        const raw = Buffer.concat(chunks).toString('latin1');
        const end = raw.indexOf('\r\n\r\n');
        const head = end < 0 ? raw : raw.slice(0, end);
        const key = /^X-Durability-Key:\s*(\S+)/im.exec(head)?.[1];
        if (key) {
          if (!uuidsByKey.has(key)) uuidsByKey.set(key, new Set());
          uuidsByKey.get(key).add(uuid);
        }
        callback(null);
      });
    },
  });
  server.on('error', () => {}); // a worker killed mid-session resets its connection
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.server.address().port,
    arrivals,
    firstArrival,
    repeats,
    uuidsByKey,
    unparsed: () => unparsed,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Creates a fresh database on DATABASE_URL's server; drop() removes it (even with connections left). */
export async function freshDatabase(adminUrl) {
  const name = `transact_durability_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/**
 * A private copy of dist/ (with node_modules linked beside it), so that a `npm run build` during
 * the run cannot pull the files from under a restart.
 */
export function snapshotBuild(dir, from = path.join(root, 'dist')) {
  cpSync(from, path.join(dir, 'dist'), { recursive: true });
  for (const file of ['main.mjs', 'admin.mjs', 'server/entry.mjs']) {
    if (!existsSync(path.join(dir, 'dist', file)))
      throw new Error(`dist/${file} is missing (a build running at the same time?)`);
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return path.join(dir, 'dist');
}

/** The built service as a child process that can be killed and started again. */
export function serviceController(dist, env, baseUrl) {
  let child = null;
  let output = '';
  const unexpectedExits = [];
  const expected = new WeakSet();
  // never leave a service behind, whatever ends this script
  process.on('exit', () => child?.kill('SIGKILL'));
  return {
    unexpectedExits,
    output: () => output.slice(-4000),
    running: () => child !== null && child.exitCode === null && child.signalCode === null,
    pid: () => child?.pid,
    /** Starts the service; unless `wait` is false, resolves once /readyz answers 200. */
    async start({ wait = true } = {}) {
      const c = spawn(process.execPath, [path.join(dist, 'main.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      child = c;
      c.stdout.on('data', (d) => (output = (output + d).slice(-20_000)));
      c.stderr.on('data', (d) => (output = (output + d).slice(-20_000)));
      c.on('exit', (code, signal) => {
        if (!expected.has(c)) unexpectedExits.push({ code, signal });
      });
      if (!wait) return;
      const deadline = Date.now() + START_TIMEOUT_MS;
      while (Date.now() < deadline) {
        if (c.exitCode !== null)
          throw new Error(`the service exited while starting (${c.exitCode}):\n${output.slice(-4000)}`);
        try {
          if ((await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(1000) })).ok) return;
        } catch {
          // not listening yet
        }
        await sleep(50);
      }
      throw new Error(`the service did not become ready:\n${output.slice(-4000)}`);
    },
    /** Sends `signal` and resolves with the exit code once the process is gone. */
    async stop(signal) {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return null;
      expected.add(c);
      const exited = new Promise((resolve) => c.once('exit', (code) => resolve(code)));
      c.kill(signal);
      return exited;
    },
  };
}

export async function admin(dist, env, ...args) {
  try {
    const { stdout } = await execFileAsync(process.execPath, [path.join(dist, 'admin.mjs'), ...args], { env });
    return stdout;
  } catch (err) {
    throw new Error(`admin ${args.join(' ')} failed: ${err.stderr ?? ''}${err.stdout ?? ''}${err.message}`);
  }
}

export function createdId(stdout, kind) {
  const m = new RegExp(`^${kind} (\\d+) created`, 'm').exec(stdout);
  if (!m) throw new Error(`no '${kind} N created' in: ${stdout}`);
  return m[1];
}
