// `npm run test:durability` (needs DATABASE_URL): proves "accepted means durable" and "a retry with
// the same Idempotency-Key never sends twice" (docs/architecture.md §5.1) against the built service while it is
// killed with SIGKILL again and again. Submitters send over HTTP (some with an Idempotency-Key that
// they retry after any failure) and over SMTP; every 2xx / 250 is recorded with its trans_uuids.
// After the run the service drains the queue and every acknowledged message must have reached the
// sink (a scheduled one not before its time), and no idempotency key may have been accepted (and
// delivered) under two trans_uuids.
// A redelivery of the same trans_uuid after a kill is allowed: delivery is at least once.
//
// Works on its own fresh database on the server DATABASE_URL names (created here, dropped at the
// end). Prints one JSON summary on stdout and exits 1 on any violation. DURABILITY_SECONDS sets the
// length of the run (default 60).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { builtStamp, sourceStamp } from './build-stamp.mjs';
import {
  freshDatabase,
  relayEnv,
  serviceController,
  sleep,
  seedShop,
  snapshotBuild,
  startCountingSink,
} from './lib/service-harness.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RUN_SECONDS = Number(process.env.DURABILITY_SECONDS ?? 60);
const KILL_EVERY_MS = [8_000, 12_000];
const DOWNTIME_MS = [200, 1_500];
const PACE_MS = 100; // pause between one submitter's submissions: ~100 messages/s in all
const SCHEDULE_AHEAD_MS = [2_000, 6_000]; // how far ahead the scheduled submitters schedule
const REQUEST_TIMEOUT_MS = 5_000;
const LEASE_SECONDS = 5; // a killed process's claimed messages come back after this
// bounds for a failure, not delays (each wait ends when its condition holds): on two cores shared
// with CI's other lanes a restart and its drain took several times what they take on a quiet machine
const DRAIN_TIMEOUT_MS = 180_000;
const IDEMPOTENT_GIVE_UP_MS = 180_000;

const between = ([lo, hi]) => lo + Math.random() * (hi - lo);
const log = (line) => process.stderr.write(`durability: ${line}\n`);

async function main() {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    console.error(
      'durability: set DATABASE_URL to a PostgreSQL server (a fresh database is created on it and dropped afterwards)',
    );
    return 2;
  }
  if (!existsSync(path.join(root, 'dist/main.mjs')) || builtStamp(root) !== sourceStamp(root)) {
    log('building (dist/ is missing or older than the sources)');
    const build = spawnSync(process.execPath, [path.join(root, 'scripts/build.mjs')], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (build.status !== 0) return build.status ?? 1;
  }

  const workDir = mkdtempSync(path.join(tmpdir(), 'transact-durability-'));
  const dist = snapshotBuild(workDir);
  const sink = await startCountingSink();
  const database = await freshDatabase(adminUrl);
  const dataDir = path.join(workDir, 'data');
  mkdirSync(dataDir);
  const relay = await relayEnv({ sinkPort: sink.port, dataDir });
  const { baseUrl, smtpPort } = relay;
  const env = { ...relay.env, DATABASE_URL: database.url, DELIVERY_LEASE_SECONDS: String(LEASE_SECONDS) };
  const service = serviceController(dist, env);
  process.once('SIGINT', () => {
    log(`interrupted; database ${new URL(database.url).pathname.slice(1)} is left behind`);
    process.exit(130);
  });
  process.once('uncaughtException', (err) => {
    log(`crashed: ${err.stack ?? err}`);
    void service.stop('SIGKILL').finally(() => database.drop().finally(() => process.exit(1)));
  });
  const db = new pg.Client({ connectionString: database.url });
  const violations = [];
  let summary;
  try {
    // the account, made with the admin CLI before the first start
    const {
      apiKey,
      smtp: { user: smtpUser, pass: smtpPass },
    } = await seedShop(dist, env, { enterprise: 'Durability', password: 'durability-password' });

    await service.start();
    await db.connect();
    const started = Date.now();
    let stopping = false;
    let kills = 0;
    const killedAt = [];
    const counts = { submitted: 0, acknowledged: 0, attempts_failed: 0, cut_off_2xx: 0 };
    const acknowledged = new Map(); // trans_uuid → how it was sent
    const acknowledgedBy = { api: 0, 'api-idempotent': 0, smtp: 0, scheduled: 0 };
    const scheduledFor = new Map(); // trans_uuid → the moment it was scheduled for (ms)
    const ack = (uuids, via) => {
      counts.acknowledged++;
      acknowledgedBy[via]++;
      for (const u of uuids) acknowledged.set(u, via);
    };

    /**
     * POST with a timeout; resolves { status, body } or null when the request failed in transit
     * (ECONNREFUSED while down, ECONNRESET on a kill, a timeout, or a body cut off by a kill).
     */
    const post = async (route, body, headers = {}) => {
      let res;
      let text;
      try {
        res = await fetch(`${baseUrl}${route}`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...headers },
          body,
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        text = await res.text();
      } catch {
        if (res?.ok) counts.cut_off_2xx++; // the status line arrived, the body did not: not an answer
        return null;
      }
      try {
        return { status: res.status, body: JSON.parse(text) };
      } catch {
        violations.push(
          `POST ${route} answered ${res.status} with a body that is not JSON: ${JSON.stringify(text.slice(0, 200))}`,
        );
        return null;
      }
    };
    const message = (tag, key) => ({
      from: 'Shop <orders@shop.example>',
      to: `${tag}@customer.example`,
      subject: `Durability ${tag}`,
      text: `Message ${tag}`,
      ...(key ? { headers: { 'X-Durability-Key': key } } : {}),
    });

    // plain API sends: one attempt each; a failure is simply not acknowledged
    const plain = async (id) => {
      for (let n = 0; !stopping; n++) {
        counts.submitted++;
        const res = await post('/v1/mail', JSON.stringify(message(`plain${id}-${n}`)));
        if (res?.status === 202)
          ack(
            res.body.data.map((d) => d.trans_uuid),
            'api',
          );
        else counts.attempts_failed++;
        if (res && res.status !== 202 && res.status < 500)
          violations.push(`POST /v1/mail answered ${res.status} ${JSON.stringify(res.body)}`);
        await sleep(PACE_MS);
      }
    };

    // scheduled API sends: a few seconds ahead, so kills fall between acceptance and the moment;
    // each acknowledged one must arrive, and not before its time
    const scheduled = async (id) => {
      for (let n = 0; !stopping; n++) {
        counts.submitted++;
        const at = new Date(Date.now() + between(SCHEDULE_AHEAD_MS));
        const res = await post(
          '/v1/mail',
          JSON.stringify({ ...message(`later${id}-${n}`), scheduled_at: at.toISOString() }),
        );
        if (res?.status === 202) {
          const uuids = res.body.data.map((d) => d.trans_uuid);
          ack(uuids, 'scheduled');
          for (const u of uuids) scheduledFor.set(u, at.getTime());
        } else counts.attempts_failed++;
        // a moment already past when the request was finally read (a slow machine) is refused as such
        const late = res?.status === 400 && /must be in the future/.test(JSON.stringify(res.body));
        if (res && res.status !== 202 && res.status < 500 && !late)
          violations.push(`POST /v1/mail (scheduled) answered ${res.status} ${JSON.stringify(res.body)}`);
        await sleep(PACE_MS);
      }
    };

    // idempotent API sends (single and batch): retried with the same key and body until answered
    const idempotent = async (id, batchSize) => {
      for (let n = 0; !stopping; n++) {
        const key = `${batchSize ? 'batch' : 'idem'}${id}-${n}`;
        const route = batchSize ? '/v1/mail/batch' : '/v1/mail';
        const body = JSON.stringify(
          batchSize
            ? Array.from({ length: batchSize }, (_, i) => message(`${key}-${i}`, `${key}/${i}`))
            : message(key, key),
        );
        counts.submitted++;
        const giveUpAt = Date.now() + IDEMPOTENT_GIVE_UP_MS;
        for (;;) {
          const res = await post(route, body, { 'Idempotency-Key': key });
          if (res?.status === 202) {
            const uuids = batchSize
              ? res.body.data.flatMap((r) => r.map((d) => d.trans_uuid))
              : res.body.data.map((d) => d.trans_uuid);
            ack(uuids, 'api-idempotent');
            break;
          }
          counts.attempts_failed++;
          if (res && res.status < 500) {
            violations.push(`Idempotency-Key ${key}: the retry was answered ${res.status} ${JSON.stringify(res.body)}`);
            break;
          }
          if (Date.now() > giveUpAt) {
            violations.push(`Idempotency-Key ${key}: no answer within ${IDEMPOTENT_GIVE_UP_MS / 1000} s of retries`);
            break;
          }
          await sleep(250);
        }
        await sleep(PACE_MS);
      }
    };

    // SMTP submissions: one connection per message, STARTTLS and AUTH as a customer's client does
    const smtp = async (id) => {
      for (let n = 0; !stopping; n++) {
        const tag = `smtp${id}-${n}`;
        counts.submitted++;
        const transport = nodemailer.createTransport({
          host: '127.0.0.1',
          port: smtpPort,
          secure: false,
          auth: { user: smtpUser, pass: smtpPass },
          tls: { rejectUnauthorized: false },
          connectionTimeout: REQUEST_TIMEOUT_MS,
          greetingTimeout: REQUEST_TIMEOUT_MS,
          socketTimeout: REQUEST_TIMEOUT_MS,
        });
        try {
          const info = await transport.sendMail({
            from: 'Shop <orders@shop.example>',
            to: `${tag}@customer.example`,
            subject: `Durability ${tag}`,
            text: `Message ${tag}`,
          });
          const uuids = /Queued as ((?:[0-9a-f-]{36}\s*)+)/
            .exec(info.response ?? '')?.[1]
            .trim()
            .split(/\s+/);
          if (!/^250 /.test(info.response ?? '') || !uuids)
            violations.push(`SMTP ${tag}: unexpected answer '${info.response}'`);
          else ack(uuids, 'smtp');
        } catch {
          counts.attempts_failed++; // refused, reset by a kill, or 4xx: not acknowledged
        } finally {
          transport.close();
        }
        await sleep(PACE_MS);
      }
    };

    // a submitter that throws is a bug in this script or an answer it cannot read: fail the run, but
    // let the others finish so the service is still stopped and the database dropped
    const guarded = (name, run) =>
      run().catch((err) => violations.push(`submitter ${name} crashed: ${err.stack ?? err}`));
    const submitters = [
      ...[0, 1, 2, 3].map((i) => guarded(`plain${i}`, () => plain(i))),
      ...[0, 1, 2, 3].map((i) => guarded(`idem${i}`, () => idempotent(i, 0))),
      ...[0, 1].map((i) => guarded(`batch${i}`, () => idempotent(i, 5))),
      ...[0, 1, 2].map((i) => guarded(`smtp${i}`, () => smtp(i))),
      ...[0, 1].map((i) => guarded(`scheduled${i}`, () => scheduled(i))),
    ];

    // the chaos: SIGKILL every 8–12 s, down for a moment, started again
    while (Date.now() - started < RUN_SECONDS * 1000) {
      await sleep(Math.min(between(KILL_EVERY_MS), Math.max(0, started + RUN_SECONDS * 1000 - Date.now())));
      if (Date.now() - started >= RUN_SECONDS * 1000) break;
      await service.stop('SIGKILL');
      kills++;
      killedAt.push(Date.now());
      log(`kill ${kills} at ${((Date.now() - started) / 1000).toFixed(1)} s: ${acknowledged.size} acknowledged so far`);
      await sleep(between(DOWNTIME_MS));
      await service.start();
    }
    stopping = true;
    await Promise.all(submitters); // idempotent ones finish their retries against the running service

    // one more crash and restart, then the queue must drain
    await service.stop('SIGKILL');
    kills++;
    killedAt.push(Date.now());
    await service.start();
    const drainDeadline = Date.now() + DRAIN_TIMEOUT_MS;
    let queued = -1;
    while (Date.now() < drainDeadline) {
      queued = Number(
        (await db.query(`select count(*) as n from transactions where status in ('queued', 'scheduled')`)).rows[0].n,
      );
      if (queued === 0) break;
      await sleep(250);
    }
    if (queued !== 0)
      violations.push(`${queued} transactions still queued ${DRAIN_TIMEOUT_MS / 1000} s after the last restart`);
    const drainedAt = Date.now();
    const stopCode = await service.stop('SIGTERM');
    if (stopCode !== 0) violations.push(`the service exited with ${stopCode} on SIGTERM (graceful shutdown)`);
    for (const e of service.unexpectedExits)
      violations.push(`the service exited on its own (code ${e.code}, signal ${e.signal})`);

    // the checks
    const missing = [...acknowledged.keys()].filter((u) => !sink.arrivals.has(u));
    const duplicatedKeys = [...sink.uuidsByKey].filter(([, uuids]) => uuids.size > 1);
    const redelivered = [...sink.arrivals.values()].filter((n) => n > 1).length;
    // at least once: a copy sent by a process that was then killed before recording it comes again;
    // a repeat with no kill in between means something else (an expired lease, a lost outcome)
    const unexplained = sink.repeats.filter(
      ([, before, after]) => !killedAt.some((t) => t >= before && t <= after + 100),
    );
    const redeliveredKeyed = [...sink.uuidsByKey.values()].filter((uuids) =>
      [...uuids].some((u) => sink.arrivals.get(u) > 1),
    ).length;
    const statuses = (await db.query(`select status, count(*) as n from transactions group by status order by status`))
      .rows;
    const notSent = Number(
      (
        await db.query(`select count(*) as n from transactions where uuid = any($1::uuid[]) and status <> 'sent'`, [
          [...acknowledged.keys()],
        ])
      ).rows[0].n,
    );
    if (missing.length)
      violations.push(
        `${missing.length} acknowledged messages never arrived, e.g. ${missing
          .slice(0, 5)
          .map((u) => `${u} (${acknowledged.get(u)})`)
          .join(', ')}`,
      );
    if (duplicatedKeys.length)
      violations.push(
        `${duplicatedKeys.length} idempotency keys arrived under more than one trans_uuid, e.g. ${duplicatedKeys
          .slice(0, 5)
          .map(([k, u]) => `${k}: ${[...u].join(' ')}`)
          .join('; ')}`,
      );
    if (notSent) violations.push(`${notSent} acknowledged transactions are not status 'sent'`);
    const early = [...scheduledFor].filter(([u, at]) => (sink.firstArrival.get(u) ?? Infinity) < at);
    if (early.length)
      violations.push(`${early.length} scheduled messages arrived before their time, e.g. ${early[0][0]}`);
    if (sink.unparsed()) violations.push(`${sink.unparsed()} messages arrived without a VERP envelope sender`);

    summary = {
      submitted: counts.submitted,
      acknowledged: counts.acknowledged,
      acknowledged_by: acknowledgedBy,
      acknowledged_transactions: acknowledged.size,
      delivered: sink.arrivals.size,
      missing: missing.length,
      scheduled_early: early.length,
      duplicates_by_idempotency_key: duplicatedKeys.length,
      redeliveries: redelivered,
      redeliveries_with_idempotency_key: redeliveredKeyed,
      redeliveries_without_a_kill: unexplained.length,
      failed_attempts: counts.attempts_failed,
      answers_cut_off_by_a_kill: counts.cut_off_2xx,
      transactions_by_status: Object.fromEntries(statuses.map((r) => [r.status, Number(r.n)])),
      kills,
      drain_s: Number(((drainedAt - started) / 1000 - RUN_SECONDS).toFixed(1)),
      elapsed_s: Number(((Date.now() - started) / 1000).toFixed(1)),
      violations,
    };
  } catch (err) {
    violations.push(`the run could not finish: ${err.message}`);
    summary = { violations, output: service.output() };
  } finally {
    await service.stop('SIGKILL').catch(() => {});
    await db.end().catch(() => {});
    await sink.close();
    await database.drop().catch((err) => log(`could not drop the database: ${err.message}`));
    rmSync(workDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(summary, null, 2));
  if (violations.length) log(`FAILED: ${violations.length} violation(s)`);
  return violations.length ? 1 : 0;
}

process.exit(await main());
