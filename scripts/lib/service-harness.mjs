// One harness for everything that runs the built service from outside: the scripts (durability,
// faults, benches) and the tests' helpers (the e2e server, the SMTP sink). It owns a free port,
// the service as a child process and its wait for /readyz, a real SMTP receiver as the far side of
// delivery, a fresh database, a private copy of dist/ and the admin CLI. Plain ESM with JSDoc
// types, so .mjs scripts and .ts tests import the same file.
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
/** @param {number} ms */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// a start (PGlite recovery, migrations, the roles) takes seconds; on a busy machine far more
const START_TIMEOUT_MS = 180_000;

/**
 * A TCP port free on `host` right now (the kernel's pick, released before it resolves).
 * @param {string} [host]
 * @returns {Promise<number>}
 */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const address = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => resolve(address.port));
    });
  });
}

/**
 * @typedef {object} WaitReadyOptions
 * @property {number} [timeoutMs] how long to wait in all (default 180 s)
 * @property {number} [intervalMs] the pause between two probes (default 100 ms)
 * @property {number} [requestTimeoutMs] how long one probe may take (default: no limit)
 * @property {import('node:child_process').ChildProcess} [child] the service's process: its exit ends the wait
 * @property {() => string} [output] what the service printed, for the error
 * @property {() => Promise<boolean>} [ready] a further condition (e.g. the SMTP port open)
 */

/**
 * Resolves once `url`/readyz answers 200 (and `ready()` holds); rejects when `child` exits first
 * or after `timeoutMs`, with the service's last output.
 * @param {string} url the service's base URL
 * @param {WaitReadyOptions} [options]
 */
export async function waitReady(url, options = {}) {
  const { timeoutMs = START_TIMEOUT_MS, intervalMs = 100, requestTimeoutMs, child, output = () => '', ready } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null)
      throw new Error(`the service exited while starting (${child.exitCode}):\n${output().slice(-4000)}`);
    const signal = requestTimeoutMs ? AbortSignal.timeout(requestTimeoutMs) : undefined;
    const ok = await fetch(`${url}/readyz`, { signal }).then(
      async (res) => {
        await res.arrayBuffer();
        return res.ok;
      },
      () => false, // not listening yet
    );
    if (ok && (!ready || (await ready()))) return;
    if (Date.now() > deadline)
      throw new Error(`the service did not become ready in ${timeoutMs / 1000} s:\n${output().slice(-4000)}`);
    await sleep(intervalMs);
  }
}

/**
 * @typedef {object} StartServiceOptions
 * @property {Record<string, string | undefined>} env the whole environment of the service; PORT,
 *   SMTP_PORT and HOST are filled in (free ports, 127.0.0.1) when it has none
 * @property {string} [dist] the build to run (default: this repository's dist/)
 * @property {string[]} [args] arguments after main.mjs (e.g. --roles web)
 * @property {string[]} [prefix] a command the service runs under (e.g. taskset -c 1)
 * @property {string} [cwd]
 * @property {import('node:child_process').StdioOptions} [stdio] default: output kept for output()
 * @property {(chunk: Buffer) => void} [onOutput] each piece of stdout and stderr, when piped
 * @property {boolean} [wait] false: resolve at once, without waiting for /readyz
 */

/**
 * @typedef {object} RunningService
 * @property {string} url
 * @property {number} port
 * @property {number} smtpPort
 * @property {Record<string, string | undefined>} env the environment it runs with
 * @property {import('node:child_process').ChildProcess} child
 * @property {() => string} output the last 20,000 characters it printed (when piped)
 * @property {() => boolean} running
 * @property {(signal?: NodeJS.Signals) => Promise<number | null>} stop sends `signal` (SIGTERM) and
 *   resolves with the exit code once the process is gone (null when it was gone already)
 * @property {() => Promise<number | null>} kill stop('SIGKILL')
 */

/**
 * Starts dist/main.mjs as a child process and, unless `wait` is false, waits for /readyz (killing
 * the process when it does not get there).
 * @param {StartServiceOptions & WaitReadyOptions} options
 * @returns {Promise<RunningService>}
 */
export async function startService(options) {
  const { dist = path.join(root, 'dist'), args = [], prefix = [], cwd, onOutput, wait = true } = options;
  const env = { ...options.env };
  env.PORT ??= String(await freePort());
  env.SMTP_PORT ??= String(await freePort());
  env.HOST ??= '127.0.0.1';
  const port = Number(env.PORT);
  const url = `http://${env.HOST}:${port}`;
  // node and its arguments, after the prefix's command when there is one
  const [command, ...commandArgs] = [...prefix, process.execPath, path.join(dist, 'main.mjs'), ...args];
  const child = spawn(command, commandArgs, { cwd, env, stdio: options.stdio ?? ['ignore', 'pipe', 'pipe'] });
  let log = '';
  /** @param {Buffer} chunk */
  const keep = (chunk) => {
    log = (log + chunk).slice(-20_000);
    onOutput?.(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const output = () => log;
  const stop = async (/** @type {NodeJS.Signals} */ signal = 'SIGTERM') => {
    if (child.exitCode !== null || child.signalCode !== null) return null;
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill(signal);
    return /** @type {Promise<number | null>} */ (exited);
  };
  const service = {
    url,
    port,
    smtpPort: Number(env.SMTP_PORT),
    env,
    child,
    output,
    running: () => child.exitCode === null && child.signalCode === null,
    stop,
    kill: () => stop('SIGKILL'),
  };
  if (wait) {
    try {
      await waitReady(url, { ...options, child, output });
    } catch (err) {
      await service.kill(); // a start that failed leaves no process behind
      throw err;
    }
  }
  return service;
}

/** The transaction uuid a VERP envelope sender names (bounces+<32 hex>.<12 hex mac>@…). */
export function uuidFromVerp(/** @type {string} */ address) {
  const m = /^bounces\+([0-9a-f]{32})\.[0-9a-f]{12}@/i.exec(address);
  if (!m) return null;
  const id = m[1].toLowerCase();
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}

/**
 * @typedef {object} SunkMessage
 * @property {string} from the envelope sender ('' for the null sender)
 * @property {string[]} to the envelope recipients
 * @property {Buffer} raw
 * @property {Date} at when the sink had the whole message
 */

/**
 * @typedef {object} SmtpSinkOptions
 * @property {number} [port] default: a free one
 * @property {boolean} [keep] false: do not keep the messages in `messages` (long runs)
 * @property {boolean} [raw] false: drain each message unread (`raw` is empty), for sinks that count
 * @property {number} [rcptDelayMs] a receiver that takes its time per recipient
 * @property {string} [dataReply] the text of the 250 after DATA (default: smtp-server's)
 * @property {(message: SunkMessage) => void} [onMessage] called as each message is whole
 * @property {import('smtp-server').SMTPServerOptions} [smtp] further smtp-server settings
 *   (name, banner, maxClients, AUTH...)
 */

/**
 * @typedef {object} SmtpSink
 * @property {number} port
 * @property {string} url smtp://127.0.0.1:port
 * @property {SunkMessage[]} messages every message received (unless `keep` is false)
 * @property {Map<string, [number, string]>} replies answers for recipients: address → [code, text]
 * @property {() => number} count how many messages arrived
 * @property {(count: number, timeoutMs?: number) => Promise<SunkMessage[]>} waitFor
 * @property {() => Promise<void>} close
 */

/**
 * A real SMTP receiver (smtp-server) as the far side of delivery: it answers every command as a
 * receiver does, records each message with its envelope, and answers chosen recipients with a
 * chosen reply (`replies`, e.g. 550 or 450).
 * @param {SmtpSinkOptions} [options]
 * @returns {Promise<SmtpSink>}
 */
export async function startSmtpSink(options = {}) {
  const { port = 0, keep = true, raw = true, rcptDelayMs = 0, dataReply, onMessage, smtp = {} } = options;
  /** @type {SunkMessage[]} */
  const messages = [];
  /** @type {Map<string, [number, string]>} */
  const replies = new Map();
  let count = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    ...smtp,
    onRcptTo(address, _session, callback) {
      const reply = replies.get(address.address.toLowerCase());
      if (reply) {
        const err = /** @type {Error & { responseCode: number }} */ (new Error(reply[1]));
        err.responseCode = reply[0];
        return callback(err);
      }
      if (rcptDelayMs > 0) setTimeout(() => callback(), rcptDelayMs);
      else callback();
    },
    onData(stream, session, callback) {
      /** @type {Buffer[]} */
      const chunks = [];
      stream.on('data', (/** @type {Buffer} */ c) => raw && chunks.push(c));
      stream.on('error', () => {}); // the sender was killed mid-message: nothing arrived
      stream.on('end', () => {
        count++;
        const message = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          at: new Date(),
        };
        if (keep) messages.push(message);
        onMessage?.(message);
        callback(null, dataReply);
      });
    },
  });
  // a client that drops mid-session (a killed sender) must not crash the process
  server.on('error', () => {});
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.server.address());
  return {
    port: address.port,
    url: `smtp://127.0.0.1:${address.port}`,
    messages,
    replies,
    count: () => count,
    async waitFor(expected, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < expected) {
        if (Date.now() > deadline) throw new Error(`expected ${expected} messages at the sink, got ${messages.length}`);
        await sleep(25);
      }
      return messages;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The sink of the durability script and the fault suite: counts arrivals per trans_uuid (from the
 * VERP envelope sender) and the trans_uuids seen per X-Durability-Key, keeping no message.
 * @param {{ rcptDelayMs?: number }} [options]
 */
export async function startCountingSink({ rcptDelayMs = 0 } = {}) {
  const arrivals = new Map(); // trans_uuid → count
  const repeats = []; // [trans_uuid, time of the previous arrival, time of this one]
  const lastArrival = new Map();
  const firstArrival = new Map(); // trans_uuid → when it first arrived (ms)
  const uuidsByKey = new Map(); // X-Durability-Key → Set(trans_uuid)
  let unparsed = 0;
  const sink = await startSmtpSink({
    keep: false,
    rcptDelayMs,
    smtp: { maxClients: 1000 },
    onMessage({ from, raw }) {
      const uuid = uuidFromVerp(from);
      if (!uuid) {
        unparsed++;
        return;
      }
      arrivals.set(uuid, (arrivals.get(uuid) ?? 0) + 1);
      if (!firstArrival.has(uuid)) firstArrival.set(uuid, Date.now());
      if (lastArrival.has(uuid)) repeats.push([uuid, lastArrival.get(uuid), Date.now()]);
      lastArrival.set(uuid, Date.now());
      const text = raw.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const head = end < 0 ? text : text.slice(0, end);
      const key = /^X-Durability-Key:\s*(\S+)/im.exec(head)?.[1];
      if (key) {
        if (!uuidsByKey.has(key)) uuidsByKey.set(key, new Set());
        uuidsByKey.get(key).add(uuid);
      }
    },
  });
  return {
    port: sink.port,
    arrivals,
    firstArrival,
    repeats,
    uuidsByKey,
    unparsed: () => unparsed,
    close: sink.close,
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

/**
 * The environment of a service under test (over process.env) on free ports, relaying its mail to
 * the sink at `sinkPort`: a fresh secret and administrator password, neither bounces nor periodic
 * DNS checks (nothing here measures them), logs from warn up.
 * @param {{ sinkPort: number, dataDir: string }} options
 */
export async function relayEnv({ sinkPort, dataDir }) {
  const [port, smtpPort] = [await freePort(), await freePort()];
  const baseUrl = `http://127.0.0.1:${port}`;
  /** @type {Record<string, string | undefined>} */
  const env = {
    ...process.env,
    TRANSACT_SECRET: randomBytes(24).toString('hex'),
    TRANSACT_ADMIN_EMAIL: 'admin@shop.example',
    TRANSACT_ADMIN_PASSWORD: randomBytes(12).toString('hex'),
    HOST: '127.0.0.1',
    PORT: String(port),
    SMTP_PORT: String(smtpPort),
    BOUNCE_SMTP_PORT: '0',
    DNS_CHECK_INTERVAL_MINUTES: '0',
    PUBLIC_URL: baseUrl,
    SMTP_RELAY_URL: `smtp://127.0.0.1:${sinkPort}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  };
  return { env, baseUrl, smtpPort };
}

/**
 * The built service as a child process that can be killed and started again on the same ports
 * (env names them), counting the exits nobody asked for.
 * @param {string} dist
 * @param {Record<string, string | undefined>} env
 */
export function serviceController(dist, env) {
  /** @type {RunningService | null} */
  let service = null;
  let output = '';
  const unexpectedExits = [];
  const expected = new WeakSet();
  // never leave a service behind, whatever ends this script
  process.on('exit', () => service?.child.kill('SIGKILL'));
  return {
    unexpectedExits,
    output: () => output.slice(-4000),
    running: () => service?.running() ?? false,
    pid: () => service?.child.pid,
    /** Starts the service; unless `wait` is false, resolves once /readyz answers 200. */
    async start({ wait = true } = {}) {
      service = await startService({
        dist,
        env,
        wait: false,
        onOutput: (d) => (output = (output + d).slice(-20_000)),
      });
      const { child } = service;
      child.on('exit', (code, signal) => {
        if (!expected.has(child)) unexpectedExits.push({ code, signal });
      });
      if (wait) await waitReady(service.url, { child, output: () => output, intervalMs: 50, requestTimeoutMs: 1000 });
    },
    /** Sends `signal` and resolves with the exit code once the process is gone. */
    async stop(/** @type {NodeJS.Signals} */ signal) {
      if (!service?.running()) return null;
      expected.add(service.child);
      return service.stop(signal);
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

function createdId(stdout, kind) {
  const m = new RegExp(`^${kind} (\\d+) created`, 'm').exec(stdout);
  if (!m) throw new Error(`no '${kind} N created' in: ${stdout}`);
  return m[1];
}

/**
 * The account the durability script and the fault suite send from, made with the admin CLI before
 * the first start: enterprise `enterprise`, customer Shop (quota 10,000,000), its administrator
 * owner@shop.example with `password`, the verified domain shop.example. Resolves with its API key
 * and SMTP login.
 * @param {string} dist
 * @param {Record<string, string | undefined>} env
 * @param {{ enterprise: string, password: string, receiving?: boolean }} names (receiving: shop.example receives mail)
 */
export async function seedShop(dist, env, { enterprise: name, password, receiving = false }) {
  const enterprise = createdId(await admin(dist, env, 'enterprise', 'create', '--name', name), 'enterprise');
  const customer = createdId(
    await admin(dist, env, 'customer', 'create', '--enterprise', enterprise, '--name', 'Shop', '--quota', '10000000'),
    'customer',
  );
  await admin(
    dist,
    env,
    'user',
    'create',
    '--customer',
    customer,
    '--email',
    'owner@shop.example',
    '--name',
    'Owner',
    '--password',
    password,
    '--admin',
  );
  const receive = receiving ? ['--receiving'] : [];
  await admin(dist, env, 'domain', 'add', 'shop.example', '--customer', customer, '--verified', ...receive);
  const creds = await admin(dist, env, 'credentials', 'show', '--customer', customer);
  const apiKey = /^api key:\s+(\S+)$/m.exec(creds)?.[1];
  const smtpLogin = /^smtp:\s+\S+ (\S+) \/ (\S+)$/m.exec(creds);
  if (!apiKey || !smtpLogin) throw new Error(`could not read the credentials from:\n${creds}`);
  return { apiKey, smtp: { user: smtpLogin[1], pass: smtpLogin[2] } };
}
