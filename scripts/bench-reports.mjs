// `npm run bench:reports`: how fast the console's report calls answer for a big account. For each
// engine and size it builds a fresh database with one customer whose history (transactions,
// messages, groups, and the daily_stats / quota_usage rollups derived from them, spread over 180
// days) is bulk-loaded with SQL (scripts/bench/reports-data.mjs), then measures every call the
// Dashboard and Transactions pages make — dashboard, get-quota, overview, the transaction search's
// first page (default, each status filter, each sort key both ways, a uuid, an address prefix, a
// domain, each report type of the group report pages, another date range, no range) and the groups
// search — as server time: in-process through
// the Hono app (app.request with a signed-in session cookie, no socket), the app bundled from the
// current sources with esbuild. Prints one JSON document to stdout; progress goes to stderr.
//
// Group report pages: POST v1/transaction-groups/reports for each report type and the
// spec's sort keys, the overview (POST and GET), the Links tab (POST and GET v1/links), all on the
// largest group; and an export of that group (rows per second, peak RSS growth of the process)
// for sizes up to 1 M. --layouts picks how the rows are spread: 20-groups (default, the Dashboard
// figures so far), 1-group (every row in one group) and 50-groups (the two layouts the group
// reports are measured on).
//
// Options: --engine postgres|pglite (default both), --sizes 1e6,1e7 (default; PGlite takes only
// the sizes up to 1e6 unless --engine pglite is given alone), --quick (100 k rows: a quick try),
// --requests N (measured per call, default 50; 5 more warm up first), --keep (keep the databases
// for a closer look, e.g. EXPLAIN ANALYZE; their URLs or directories are printed).
// PostgreSQL: a fresh database on the DATABASE_URL server (default postgres://postgres@127.0.0.1:5432),
// dropped afterwards. PGlite: a fresh data directory in the system temp directory, removed afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { sql } from 'kysely';
import pg from 'pg';
import {
  checkRollups,
  deriveLinkStats,
  deriveRollups,
  insertGroups,
  loadRows,
  resetSequences,
  SPAN_DAYS,
} from './bench/reports-data.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const t0 = Date.now();
const TARGET = { summary_p95_ms: 10, search_p95_ms: 50, ratio: 1.2 };
const CHUNK_ROWS = 1_000_000;

const { values: opts } = parseArgs({
  options: {
    engine: { type: 'string' },
    sizes: { type: 'string' },
    quick: { type: 'boolean' },
    requests: { type: 'string', default: '50' },
    keep: { type: 'boolean' },
    layouts: { type: 'string', default: '20-groups' },
  },
});
const LAYOUTS = { '20-groups': 20, '1-group': 1, '50-groups': 50 };
const LAYOUT_NAMES = opts.layouts.split(',').filter(Boolean);
for (const l of LAYOUT_NAMES) if (!(l in LAYOUTS)) fail(`unknown layout '${l}' (${Object.keys(LAYOUTS).join(', ')})`);
/** Exports are measured up to this size (an export of every row of the largest group). */
const EXPORT_MAX_SIZE = 1_000_000;
const ENGINES = (opts.engine ?? 'postgres,pglite').split(',').filter(Boolean);
for (const e of ENGINES) if (e !== 'pglite' && e !== 'postgres') fail(`unknown engine '${e}' (pglite, postgres)`);
const SIZES = opts.quick ? [100_000] : (opts.sizes ?? '1e6,1e7').split(',').map((s) => Math.round(Number(s)));
if (SIZES.some((n) => !Number.isFinite(n) || n < 1000))
  fail(`--sizes takes numbers of 1000 or more, e.g. 1e6,1e7 (got '${opts.sizes}')`);
const REQUESTS = Number(opts.requests);
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECRET = 'bench-reports-secret-bench-reports-secret';

function fail(message) {
  console.error(`bench:reports: ${message}`);
  process.exit(2);
}
function log(message) {
  console.error(`[${((Date.now() - t0) / 1000).toFixed(0).padStart(4)} s] ${message}`);
}
const round = (x, digits = 2) => (x === null || x === undefined ? null : Math.round(x * 10 ** digits) / 10 ** digits);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const cleanups = [];
async function cleanupAll() {
  for (const fn of cleanups.splice(0).reverse())
    await Promise.resolve()
      .then(fn)
      .catch((err) => log(`cleanup: ${err.message}`));
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    log(`${sig}: cleaning up…`);
    void cleanupAll().then(() => process.exit(130));
  });
}

/** The service's modules, bundled from the current sources (no build of the whole service needed). */
async function bundleApp(workDir) {
  const entry = [
    "export { loadConfig } from './src/server/core/config.ts';",
    "export { createContext } from './src/server/create-context.ts';",
    "export { createApi } from './src/server/app.ts';",
    "export { insertEnterprise, insertCustomer } from './src/server/accounts/accounts.repository.ts';",
    "export { createUser } from './src/server/accounts/accounts.service.ts';",
    "export { addDomain } from './src/server/domains/domains.service.ts';",
    "export { runOneExport } from './src/server/exports/exports.service.ts';",
  ].join('\n');
  const outfile = path.join(workDir, 'app.mjs');
  await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts', sourcefile: 'bench-reports-entry.ts' },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    logLevel: 'warning',
  });
  symlinkSync(path.join(root, 'node_modules'), path.join(workDir, 'node_modules'), 'dir');
  return import(pathToFileURL(outfile).href);
}

/** A fresh, empty database; returns its settings and how to remove it. */
async function freshDatabase(engine, workDir, size) {
  if (engine === 'pglite') {
    const dir = mkdtempSync(path.join(opts.keep ? os.tmpdir() : workDir, `transact-bench-reports-pglite-${size}-`));
    return {
      env: { DATA_DIR: dir },
      drop: async () => (opts.keep ? log(`kept ${dir}`) : rmSync(dir, { recursive: true, force: true })),
    };
  }
  const name = `transact_bench_reports_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: workDir },
    drop: async () => {
      if (opts.keep) return log(`kept ${url}`);
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * Loads `size` rows: the plain indexes of messages and transactions are dropped first and built
 * again afterwards (as any bulk load does; the definitions are the migrations' own), then the
 * rollups are derived and the tables vacuumed and analysed, as a long-lived table would be.
 */
async function load(db, engine, account, size, now, groupCount) {
  const started = Date.now();
  const { rows: indexes } = await sql`
    select indexname, indexdef from pg_indexes
     where schemaname = 'public' and tablename in ('messages', 'transactions')
       and indexname not in (select conname from pg_constraint)`.execute(db);
  for (const ix of indexes) await sql.raw(`drop index ${ix.indexname}`).execute(db);
  await insertGroups(db, account.customerId, now, groupCount);
  for (let from = 1; from <= size; from += CHUNK_ROWS) {
    const to = Math.min(size, from + CHUNK_ROWS - 1);
    await loadRows(db, { customerId: account.customerId, domainId: account.domainId, size, from, to, now, groupCount });
    log(`${engine} ${size}: rows ${to.toLocaleString('en')} of ${size.toLocaleString('en')}`);
  }
  const rowsSeconds = (Date.now() - started) / 1000;
  await db.connection().execute(async (conn) => {
    await sql.raw(`set maintenance_work_mem = '${engine === 'pglite' ? '256MB' : '1GB'}'`).execute(conn);
    for (const ix of indexes) {
      await sql.raw(ix.indexdef).execute(conn);
      log(`${engine} ${size}: index ${ix.indexname}`);
    }
  });
  await resetSequences(db);
  await deriveRollups(db, account.customerId);
  await deriveLinkStats(db, account.customerId, groupCount);
  for (const table of [
    'transactions',
    'messages',
    'transaction_groups',
    'daily_stats',
    'transaction_counts',
    'quota_usage',
    'link_stats',
  ])
    await sql.raw(`vacuum analyze ${table}`).execute(db);
  const check = await checkRollups(db, account.customerId);
  if (!check.match) throw new Error(`the generated rollups disagree with the rows: ${check.mismatches.join(', ')}`);
  return {
    load_seconds: round((Date.now() - started) / 1000, 1),
    rows_seconds: round(rowsSeconds, 1),
    rollups_match_rows: check.match,
    totals: check.totals,
  };
}

const day = (at) => at.toISOString().slice(0, 10);
const daysBefore = (at, n) => day(new Date(at.getTime() - n * 86_400_000));

/**
 * The calls the Dashboard and Transactions pages make, with the page's default range (the last 29 days through today).
 */
function callsFor(now, sample) {
  const range = { startDate: daysBefore(now, 29), endDate: day(now) };
  const q = new URLSearchParams(range).toString();
  const search = (name, body) => ({
    name,
    kind: 'search',
    method: 'POST',
    path: '/v1/transaction/search',
    body: { ...range, ...body },
  });
  const calls = [
    // the floor under every call: the session lookup and the stack, nothing else read
    { name: 'floor: GET /v1/verify_auth (session only)', kind: 'floor', method: 'GET', path: '/v1/verify_auth' },
    { name: 'GET /v1/dashboard', kind: 'summary', method: 'GET', path: `/v1/dashboard?${q}` },
    { name: 'GET /v1/dashboard/get-quota', kind: 'summary', method: 'GET', path: `/v1/dashboard/get-quota?${q}` },
    {
      name: 'POST /v1/dashboard/overview (empty body: all-time total)',
      kind: 'summary',
      method: 'POST',
      path: '/v1/dashboard/overview',
      body: {},
    },
    {
      name: 'POST /v1/dashboard/overview (default range: the chart)',
      kind: 'summary',
      method: 'POST',
      path: '/v1/dashboard/overview',
      body: range,
    },
    search('search: default (trans_id desc)', {}),
    ...['sent', 'failed', 'delivered'].map((s) => search(`search: status ${s}`, { message_status: s })),
    ...['trans_id', 'dateSent', 'firstOpenDate', 'firstClickDate', 'clicks', 'opens'].flatMap((key) =>
      ['asc', 'desc'].map((order) => search(`search: sort ${key} ${order}`, { order, order_by: key })),
    ),
    search('search: a transaction uuid', { transaction_search_string: sample.uuid }),
    search(`search: address prefix '${sample.prefix}'`, { transaction_search_string: sample.prefix }),
    search("search: domain 'example.net'", { transaction_search_string: 'example.net' }),
    // the group report pages' tables (docs/console-reports.md §2) use the same search with a report type
    ...['sent', 'opens', 'clicks', 'failed', 'bounced'].map((t) =>
      search(`search: report type ${t}`, { reportType: t }),
    ),
    search(`search: one group (${sample.groupShare} of the mail)`, { group_uuid: sample.groupUuid }),
    search(`search: one group, report type sent`, { group_uuid: sample.groupUuid, reportType: 'sent' }),
    search('search: date range (7 days, two months ago)', {
      startDate: daysBefore(now, 66),
      endDate: daysBefore(now, 60),
    }),
    {
      name: 'search: no date range (all time)',
      kind: 'search',
      method: 'POST',
      path: '/v1/transaction/search',
      body: {},
    },
    {
      name: 'groups: default (last send desc)',
      kind: 'search',
      method: 'POST',
      path: '/v1/transaction-groups/search',
      body: {},
    },
    {
      name: 'groups: sort by sent desc',
      kind: 'search',
      method: 'POST',
      path: '/v1/transaction-groups/search',
      body: { order: 'desc', orderBy: 'sent' },
    },
    {
      name: "groups: name search 'ord'",
      kind: 'search',
      method: 'POST',
      path: '/v1/transaction-groups/search',
      body: { searchQuery: 'ord' },
    },
    ...groupReportCalls(now, sample),
  ];
  return calls;
}

/**
 * The group report pages' calls on the largest group, with the range the console sends
 * (docs/console-reports.md §7: start of the first day to the end of today, unix seconds).
 */
function groupReportCalls(now, sample) {
  const today = Date.parse(`${day(now)}T00:00:00Z`) / 1000;
  const range = { start_date: today - 29 * 86_400, end_date: today + 86_399 };
  const group = { group_uuid: sample.largestGroupUuid, ...range };
  const report = (name, body) => ({
    name: `group report: ${name}`,
    kind: 'search',
    method: 'POST',
    path: '/v1/transaction-groups/reports',
    body: { ...group, ...body },
  });
  const query = new URLSearchParams(Object.entries(group).map(([k, v]) => [k, String(v)])).toString();
  return [
    ...['overview', 'sent', 'opens', 'clicks', 'failed', 'bounced'].map((t) => report(t, { report_type: t })),
    report('sent, sort dateSent asc', { report_type: 'sent', order: 'dateSent', order_by: 'asc' }),
    report('opens, sort opens desc', { report_type: 'opens', order: 'opens', order_by: 'desc' }),
    report('opens, sort firstOpenDate asc', { report_type: 'opens', order: 'firstOpenDate', order_by: 'asc' }),
    report('clicks, sort clicks desc', { report_type: 'clicks', order: 'clicks', order_by: 'desc' }),
    report('clicks, sort firstClickDate desc', { report_type: 'clicks', order: 'firstClickDate', order_by: 'desc' }),
    report('bounced, sort bounceReceivedDated asc', {
      report_type: 'bounced',
      order: 'bounceReceivedDated',
      order_by: 'asc',
    }),
    report(`sent, search '${sample.prefix}'`, { report_type: 'sent', search_query: sample.prefix }),
    report('sent, page 50', { report_type: 'sent', page: 50 }),
    {
      name: 'group overview: POST',
      kind: 'summary',
      method: 'POST',
      path: '/v1/transaction-groups/overview',
      body: { ...group, report_type: 'overview' },
    },
    { name: 'group overview: GET', kind: 'summary', method: 'GET', path: `/v1/transaction-groups/overview?${query}` },
    {
      name: 'links: POST',
      kind: 'search',
      method: 'POST',
      path: '/v1/links',
      body: { ...group, report_type: 'clicks' },
    },
    {
      name: 'links: GET page 1, sort unique_clicks',
      kind: 'search',
      method: 'GET',
      path: `/v1/links?${query}&page=1&order=unique_clicks&order_by=desc`,
    },
  ];
}

/**
 * An export of every row of the largest group over 400 days (the longest range): queued through
 * the API, written by the worker's step in this process, timed, with the process's peak RSS above
 * what it was before (sampled every 20 ms).
 */
async function measureExport(p) {
  const today = Date.parse(`${day(new Date())}T00:00:00Z`) / 1000;
  const body = {
    report_type: 'overview',
    group_uuid: p.largestGroupUuid,
    start_date: today - 399 * 86_400,
    end_date: today + 86_399,
    isExport: true,
  };
  const res = await p.app.request('http://localhost:4321/v1/transaction-groups/reports/export', {
    method: 'POST',
    headers: {
      Cookie: p.cookie,
      'Request-Type': 'ui',
      Origin: 'http://localhost:4321',
      'Content-Type': 'application/json',
    },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
  const { uuid } = await res.json();
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  try {
    await p.mod.runOneExport(p.ctx);
  } finally {
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  const {
    rows: [job],
  } = await sql`select status, row_count, size_bytes from exports where uuid = ${uuid}`.execute(p.ctx.db);
  if (job.status !== 'ready') throw new Error(`export ended ${job.status}`);
  const growth = (peak - before) / 2 ** 20;
  return {
    rows: Number(job.row_count),
    seconds: round(seconds, 1),
    rows_per_second: Math.round(Number(job.row_count) / seconds),
    csv_mb: round(Number(job.size_bytes) / 2 ** 20, 1),
    peak_rss_growth_mb: round(growth, 1),
    target_rss_growth_mb: 100,
    meets_target: growth <= 100,
  };
}

/** Server time of one call: app.request (no socket) and reading the whole answer. */
async function timeCall(app, cookie, call) {
  const headers = { Cookie: cookie, 'Request-Type': 'ui', Origin: 'http://localhost:4321', 'Accept-Encoding': 'gzip' };
  if (call.body !== undefined) headers['Content-Type'] = 'application/json';
  const init = { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) };
  const started = performance.now();
  const res = await app.request(`http://localhost:4321${call.path}`, init);
  const body = await res.arrayBuffer();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${call.name}: ${res.status} ${Buffer.from(body).toString().slice(0, 300)}`);
  return ms;
}

/** p50/p95 of a list of times against the call's target. */
function summarise(times, call) {
  const sorted = [...times].sort((a, b) => a - b);
  const target = { summary: TARGET.summary_p95_ms, search: TARGET.search_p95_ms }[call.kind] ?? null;
  const p95 = percentile(sorted, 95);
  return {
    requests: sorted.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(p95),
    max_ms: round(sorted[sorted.length - 1]),
    target_p95_ms: target,
    meets_target: target === null ? null : p95 <= target,
  };
}

/**
 * Measures every call on every loaded size, interleaved request by request (1 M, 10 M, 1 M, …), so
 * whatever else the machine does slows each size alike and the ratio between them stays honest.
 */
async function measureAll(engine, prepared) {
  const results = prepared.map(() => ({}));
  for (let c = 0; c < prepared[0].calls.length; c++) {
    const name = prepared[0].calls[c].name;
    for (const p of prepared) for (let i = 0; i < 5; i++) await timeCall(p.app, p.cookie, p.calls[c]);
    const times = prepared.map(() => []);
    const until = Date.now() + 60_000; // a very slow call is measured fewer times
    for (let i = 0; i < REQUESTS && (i < 5 || Date.now() < until); i++) {
      for (const [k, p] of prepared.entries()) times[k].push(await timeCall(p.app, p.cookie, p.calls[c]));
    }
    for (const [k, p] of prepared.entries()) {
      const r = summarise(times[k], p.calls[c]);
      results[k][name] = r;
      log(
        `${engine} ${p.size}: ${name}: p50 ${r.p50_ms} ms, p95 ${r.p95_ms} ms${
          r.meets_target === false ? `  (target ${r.target_p95_ms} ms)` : ''
        }`,
      );
    }
  }
  return results;
}

/** A fresh database with one customer's bulk-loaded history, signed in; `close` removes it all. */
async function prepare(mod, engine, size, workDir, layout) {
  log(`${engine} ${size} ${layout}: fresh database…`);
  const database = await freshDatabase(engine, workDir, size);
  cleanups.push(database.drop);
  const config = mod.loadConfig({
    TRANSACT_SECRET: SECRET,
    PUBLIC_URL: 'http://localhost:4321',
    LOG_LEVEL: 'silent',
    ...database.env,
  });
  const { ctx, close } = await mod.createContext(config, { collectDefaultMetrics: false });
  cleanups.push(close);
  const closeAll = async () => {
    await close();
    cleanups.splice(cleanups.indexOf(close), 1);
    await database.drop();
    cleanups.splice(cleanups.indexOf(database.drop), 1);
  };
  try {
    const now = new Date();
    const enterprise = await mod.insertEnterprise(ctx.db, { name: 'Bench Enterprise' });
    const customer = await mod.insertCustomer(ctx.db, {
      enterprise_id: enterprise.id,
      name: 'Bench Shop',
      monthly_quota: 2_000_000_000,
    });
    const password = 'bench-password-123';
    const user = await mod.createUser(ctx, {
      customerId: customer.id,
      email: 'bench@bench.example',
      name: 'Bench',
      password,
      permissions: 'all',
    });
    const domain = await mod.addDomain(ctx, customer.id, 'bench.example', { verified: true });
    const account = { customerId: Number(customer.id), domainId: Number(domain.id), userId: user.id };

    log(`${engine} ${size}: loading…`);
    const loaded = await load(ctx.db, engine, account, size, now, LAYOUTS[layout]);
    log(`${engine} ${size}: loaded in ${loaded.load_seconds} s`);

    const app = mod.createApi(ctx);
    const login = await app.request('http://localhost:4321/v1/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Request-Type': 'ui', Origin: 'http://localhost:4321' },
      body: JSON.stringify({ email: 'bench@bench.example', password }),
    });
    const cookie = /transact_session=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
    if (!cookie) throw new Error(`sign-in failed: ${login.status}`);

    // a transaction in the default range to search for by uuid, and an address that exists at every size
    const {
      rows: [sample],
    } = await sql`select uuid from transactions where customer_id = ${account.customerId} and queued_at >
        ${new Date(now.getTime() - 10 * 86_400_000)} order by id limit 1`.execute(ctx.db);
    // the smallest group, as a group report page would search it
    const {
      rows: [group],
    } = await sql`
      select g.uuid, count(t.id)::float / ${size} as share from transaction_groups g join transactions t on
        t.group_id = g.id
       where g.customer_id = ${account.customerId} group by g.id order by count(t.id) limit 1`.execute(ctx.db);
    const {
      rows: [largest],
    } = await sql`select uuid from transaction_groups where customer_id = ${account.customerId} and id = 1`.execute(
      ctx.db,
    );
    const calls = callsFor(now, {
      uuid: sample.uuid,
      prefix: 'ann.smith42@',
      groupUuid: group.uuid,
      groupShare: `${round(group.share * 100, 1)} %`,
      largestGroupUuid: largest.uuid,
    });
    return { size, app, cookie, calls, loaded, close: closeAll, mod, ctx, largestGroupUuid: largest.uuid };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

const workDir = mkdtempSync(path.join(os.tmpdir(), 'transact-bench-reports-'));
cleanups.push(() => rmSync(workDir, { recursive: true, force: true }));
const output = {
  benchmark: 'reports',
  method:
    'server time in-process: app.request through the Hono app (no socket) with a signed-in session cookie; ' +
    'sequential requests, 5 warm-up requests per call and size, the sizes of an engine measured interleaved ' +
    'request by request',
  machine: {
    cores: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memory_gb: round(os.totalmem() / 2 ** 30, 1),
    node: process.version,
  },
  data: {
    span_days: SPAN_DAYS,
    default_range: 'the last 29 days through today (the console default)',
    layouts: Object.fromEntries(
      LAYOUT_NAMES.map((l) => [
        l,
        `${LAYOUTS[l]} group(s); group 1, the largest, for the group report calls and the export`,
      ]),
    ),
  },
  requests_per_call: REQUESTS,
  targets: TARGET,
  engines: {},
};
let exitCode = 0;
try {
  const mod = await bundleApp(workDir);
  for (const engine of ENGINES)
    for (const layout of LAYOUT_NAMES) {
      const sizes = engine === 'pglite' && !(opts.engine === 'pglite') ? SIZES.filter((n) => n <= 1_000_000) : SIZES;
      const result = { sizes: {} };
      const prepared = [];
      try {
        for (const size of sizes) prepared.push(await prepare(mod, engine, size, workDir, layout));
        const measured = await measureAll(`${engine} ${layout}`, prepared);
        for (const [k, p] of prepared.entries()) {
          result.sizes[p.size] = { ...p.loaded, calls: measured[k] };
          if (p.size <= EXPORT_MAX_SIZE) {
            result.sizes[p.size].export = await measureExport(p);
            log(`${engine} ${layout} ${p.size}: export ${JSON.stringify(result.sizes[p.size].export)}`);
          }
        }
      } catch (err) {
        log(`${engine}: failed: ${err.stack ?? err.message}`);
        result.error = err.message;
        exitCode = 1;
      } finally {
        for (const p of prepared) await p.close();
      }
      // how each call's time grows with the account: largest size over smallest (target ≤ 1.2)
      const measured = sizes.filter((n) => result.sizes[n]?.calls);
      if (measured.length >= 2) {
        const [small, large] = [measured[0], measured[measured.length - 1]];
        result.ratio = { of: `${large} / ${small}`, target: TARGET.ratio, p50: {}, p95: {} };
        for (const name of Object.keys(result.sizes[large].calls)) {
          result.ratio.p50[name] = round(
            result.sizes[large].calls[name].p50_ms / result.sizes[small].calls[name].p50_ms,
          );
          result.ratio.p95[name] = round(
            result.sizes[large].calls[name].p95_ms / result.sizes[small].calls[name].p95_ms,
          );
        }
      }
      output.engines[engine] = { ...output.engines[engine], [layout]: result };
    }
  output.seconds_total = round((Date.now() - t0) / 1000, 0);
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
} catch (err) {
  log(`failed: ${err.stack ?? err.message}`);
  exitCode = 1;
} finally {
  await cleanupAll();
}
process.exit(exitCode);
