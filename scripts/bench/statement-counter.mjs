// Preloaded into the service under test (`node --import`) by `npm run bench:statements`: counts the
// SQL statements the process sends, by their text with the parameters and the repeats of a VALUES
// list folded, with the rows each returned or changed and the bytes of text and parameters sent.
// It wraps PGlite's query/exec and pg's Client#query of the build under test (their module URLs
// come in STATEMENTS_PGLITE and STATEMENTS_PG, resolved from that build's node_modules).
// SIGUSR2 writes the counts so far to STATEMENTS_OUT (atomically) and starts counting afresh.
// With STATEMENTS_EXPLAIN=1, the 50th and 100th call of each statement are also EXPLAINed with the
// same parameters, on the same connection; inside a transaction with ANALYZE and BUFFERS (the rows
// each step really read), between a savepoint and its rollback, so nothing is written twice.
import { renameSync, writeFileSync } from 'node:fs';

const EXPLAIN_AT = new Set([50, 100]);
const out = process.env.STATEMENTS_OUT;
const explain = process.env.STATEMENTS_EXPLAIN === '1';
/** @type {Map<string, any>} */
let stats = new Map();
let seq = 0;

/** The statement's shape: whitespace collapsed, `$n` as `$`, a VALUES list's or IN list's repeats folded. */
function shapeOf(text) {
  let s = text.replace(/\s+/g, ' ').replace(/"/g, '').trim();
  s = s.replace(/\$\d+/g, '$');
  s = s.replace(/(\([^()]*\))(?:\s*,\s*\1)+/g, '$1, …');
  s = s.replace(/\$(?:\s*,\s*\$)+/g, '$, …');
  return s;
}

function paramBytes(params) {
  let n = 0;
  for (const p of params ?? []) {
    if (p === null || p === undefined) continue;
    if (p instanceof Date) n += 24;
    else if (Buffer.isBuffer(p) || p instanceof Uint8Array) n += p.byteLength;
    else n += Buffer.byteLength(typeof p === 'object' ? JSON.stringify(p) : String(p));
  }
  return n;
}

function record(text, params, rows, changed, ms) {
  const shape = shapeOf(text);
  let s = stats.get(shape);
  if (!s) {
    s = { calls: 0, rows: 0, changed: 0, text_bytes: 0, param_bytes: 0, params: 0, zero_row_calls: 0, ms: 0 };
    stats.set(shape, s);
  }
  s.calls++;
  s.rows += rows;
  s.changed += changed;
  s.text_bytes += Buffer.byteLength(text);
  s.param_bytes += paramBytes(params);
  s.params += params?.length ?? 0;
  if (rows === 0 && changed === 0) s.zero_row_calls++;
  s.ms += ms;
  return s;
}

function dump() {
  if (!out) return;
  const statements = [...stats].map(([shape, s]) => ({ shape, ...s, ms: Math.round(s.ms) }));
  writeFileSync(`${out}.tmp`, JSON.stringify({ seq: ++seq, pid: process.pid, statements }));
  renameSync(`${out}.tmp`, out);
  stats = new Map();
}
process.on('SIGUSR2', dump);

const explainable = (text) => /^\s*(with|select|update|insert|delete)\b/i.test(text);
/** pg clients between their BEGIN and COMMIT (PGlite knows it itself). */
const inTransaction = new WeakSet();

/** Adds the plan of `text` with `params` to `s.plans`, keyed by the call's number. */
async function explainInto(s, run, text, params, analyze) {
  let plan;
  try {
    if (analyze) {
      await run('savepoint statement_counter', []);
      try {
        plan = await run(`explain (analyze, buffers, timing off) ${text}`, params);
      } finally {
        await run('rollback to savepoint statement_counter', []);
      }
    } else plan = await run(`explain ${text}`, params);
  } catch (err) {
    plan = { rows: [{ error: err.message }] };
  }
  s.plans ??= {};
  s.plans[s.calls] = plan.rows.map((r) => r['QUERY PLAN'] ?? r.error);
}

if (process.env.STATEMENTS_PGLITE) {
  const { PGlite } = await import(process.env.STATEMENTS_PGLITE);
  // query and exec are defined on PGlite's base class
  const proto = Object.getPrototypeOf(PGlite.prototype);
  const query = proto.query;
  const exec = proto.exec;
  proto.query = async function countedQuery(text, params, options) {
    const t = performance.now();
    const result = await query.call(this, text, params, options);
    const s = record(text, params, result.rows.length, result.affectedRows ?? 0, performance.now() - t);
    if (explain && EXPLAIN_AT.has(s.calls) && explainable(text))
      await explainInto(s, (q, p) => query.call(this, q, p), text, params, this.isInTransaction());
    return result;
  };
  proto.exec = async function countedExec(text, options) {
    const t = performance.now();
    const results = await exec.call(this, text, options);
    const rows = results.reduce((n, r) => n + r.rows.length, 0);
    const changed = results.reduce((n, r) => n + (r.affectedRows ?? 0), 0);
    record(text, [], rows, changed, performance.now() - t);
    return results;
  };
}

if (process.env.STATEMENTS_PG) {
  const pg = (await import(process.env.STATEMENTS_PG)).default;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, values, callback) {
    // only the promise form with a text (what Kysely and the service's own calls use) is counted
    if (typeof config !== 'string' || typeof values === 'function' || typeof callback === 'function')
      return query.call(this, config, values, callback);
    const t = performance.now();
    return query.call(this, config, values).then(async (result) => {
      const rows = Array.isArray(result) ? 0 : result.rows.length;
      const changed = Array.isArray(result) || result.command === 'SELECT' ? 0 : (result.rowCount ?? 0);
      const s = record(config, values, rows, changed, performance.now() - t);
      if (/^\s*begin\b/i.test(config)) inTransaction.add(this);
      if (/^\s*(commit|rollback)\b/i.test(config)) inTransaction.delete(this);
      if (explain && EXPLAIN_AT.has(s.calls) && explainable(config))
        await explainInto(s, (q, p) => query.call(this, q, p), config, values, inTransaction.has(this));
      return result;
    });
  };
}
