// The delivery worker, read top to bottom as Postal's outgoing processor is: claim due
// transactions → compose (DKIM-signed, VERP envelope, Message-ID fixed at acceptance) → send →
// classify the reply → record the outcome (status, event, daily_stats, suppression on a hard
// bounce) in batches. Delivery is at least once; two workers never hold the same row at once.
import type { AppContext } from '../core/context.ts';
import { BatchWriter } from '../db/batch-writer.ts';
import { secretsOf } from '../credentials/credentials.service.ts';
import { returnPathDomainOf } from '../domains/domains.service.ts';
import { insertEvents, type NewEvent } from '../events/events.repository.ts';
import { bumpDailyStats, statDay, type StatDelta } from '../stats/stats.repository.ts';
import { domainOf } from '../core/addresses.ts';
import { ClaimLoop } from '../db/claim-loop.ts';
import { onQueued } from '../core/queue-signal.ts';
import { inFlowOf, lagOfClaim } from './in-flow.ts';
import {
  applyOutcomes,
  claimDue,
  type ClaimedTransaction,
  type LoadedMessage,
  loadMessages,
  type OutcomeUpdate,
  releaseClaims,
  renewLeases,
} from './queue.repository.ts';
import { classifyNetworkError, classifyReply, nextAttemptAt } from './smtp-reply.ts';
import { NoRouteError, createTransportPool, type TransportPool } from './transports.ts';
import { verpAddress } from './verp.ts';
import type Mail from 'nodemailer/lib/mailer';
import { DirectDelivery, type Wire } from './direct.ts';
import { SiteRegistry, rememberSites, requeueWaiting } from './sites.ts';
import { trackedContent } from '../tracking/tracking.service.ts';
import { withAttachmentBlock } from '../attachments/mail-block.ts';
import { withListUnsubscribe } from '../message/list-unsubscribe.ts';
import { DkimKeys } from '../message/dkim.ts';
import { composer, mailOptions } from '../message/compose.ts';
import { claimAlongDueIndex, inTransaction } from '../core/transaction.ts';

/** What one delivery attempt came to (a small typed result, not exceptions). */
export type SendResult =
  | { kind: 'delivered'; reply: string; wire?: Wire }
  | { kind: 'permanent'; reply: string; wire?: Wire }
  | { kind: 'temporary'; reply: string; retryAfterSeconds?: number; wire?: Wire }
  /** Direct delivery: the recipient's site is paused, suspended or busy; no attempt is spent. */
  | { kind: 'wait'; reply: string; until: Date; site: string };

/** One delivery attempt's result, as recorded by recordOutcomes (also by the demo's history, src/server/demo). */
export interface Outcome {
  tx: ClaimedTransaction;
  result: SendResult;
  at: Date;
}

const POLL_MS = 1000;
// Outcomes are recorded in one transaction per flush (5–6 statements), written as soon as the
// previous write is done (group commit): a busy worker records hundreds per flush while the window
// a kill -9 can lose stays the length of one write. A write that fails is tried again
// (batch-writer.ts), so a database restart does not send mail twice; a crash loses at most that
// window of *records*, and those messages are delivered again when their lease expires (at least once).
const FLUSH_MS = 0;
const FLUSH_SIZE = 500;
// A claim whose outcome the batch writer could not record stops being renewed after this, so its
// lease runs out and another attempt takes it (the writer gives up after about four minutes).
const MAX_HOLD_MS = 10 * 60_000;

export class DeliveryWorker {
  readonly #ctx: AppContext;
  readonly #transports: TransportPool;
  readonly #loop: ClaimLoop<{ tx: ClaimedTransaction; message: LoadedMessage }>;
  readonly #outcomes: BatchWriter<Outcome>;
  #unsubscribe: () => void = () => {};
  /** The domains' DKIM keys, each opened and parsed once (message/dkim.ts). */
  readonly #dkim: DkimKeys;
  /** Straight to the recipients' MX hosts when there is no SMTP_RELAY_URL (direct.ts). */
  readonly #direct: DirectDelivery | null;
  /** Claims not yet recorded (delivering, or the outcome waiting to be written): their leases are renewed. */
  readonly #held = new Map<number, { id: number; attempts: number; since: number }>();
  #heartbeat: NodeJS.Timeout | null = null;

  constructor(ctx: AppContext, transports?: TransportPool) {
    this.#ctx = ctx;
    this.#transports = transports ?? createTransportPool(ctx.config);
    this.#dkim = new DkimKeys((sealed) => secretsOf(ctx).decrypt(sealed));
    this.#direct =
      transports || ctx.config.smtpRelayUrl
        ? null
        : new DirectDelivery({
            config: ctx.config,
            logger: ctx.logger,
            sites: new SiteRegistry(ctx.db, { basePauseSeconds: ctx.config.sitePauseSeconds }),
            onStsFailure: () => ctx.metrics.mtaStsTestingFailures.inc(),
          });
    this.#outcomes = new BatchWriter<Outcome>({
      what: 'delivery outcomes',
      logger: ctx.logger,
      flushMs: FLUSH_MS,
      flushSize: FLUSH_SIZE,
      write: async (batch) => {
        await recordOutcomes(ctx, batch);
        for (const { tx } of batch) if (this.#held.get(tx.id)?.attempts === tx.attempts) this.#held.delete(tx.id);
      },
    });
    const concurrency = ctx.config.deliveryConcurrency;
    this.#loop = new ClaimLoop({
      what: 'due messages',
      logger: ctx.logger,
      pollMs: POLL_MS,
      room: (inFlight) => {
        // messages parked for a busy site's connection do not count (direct.ts): others still go
        const free = concurrency - inFlight + (this.#direct?.parked ?? 0);
        // while busy, wait for a quarter of the slots to free up and claim them together: one claim
        // and one message load per chunk instead of two queries per delivered message
        const enough = inFlight === 0 ? 1 : Math.max(1, Math.floor(concurrency / 4));
        return free >= enough ? free : 0;
      },
      claim: (limit) => this.#claim(limit),
      process: ({ tx, message }) => this.#deliver(tx, message),
    });
  }

  start(): void {
    if (this.#loop.running) return;
    this.#unsubscribe = onQueued(this.#ctx, () => this.#loop.poke());
    this.#loop.start();
    // the heartbeat: three renewals per lease, so one that fails (the database restarting) is not fatal
    const every = Math.max(1000, (this.#ctx.config.deliveryLeaseSeconds * 1000) / 3);
    this.#heartbeat = setInterval(() => void this.#renew(), every);
    this.#heartbeat.unref();
  }

  /**
   * Stops claiming, lets in-flight deliveries finish (for at most `graceMs`) and records their
   * outcomes; whatever is still held then is released so another process takes it at once.
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    this.#unsubscribe();
    inFlowOf(this.#ctx).close(); // nothing more is delivered here: no message waits for it
    await this.#loop.stop(graceMs);
    await this.#outcomes.flush();
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = null;
    if (this.#held.size > 0) {
      const held = [...this.#held.values()];
      this.#held.clear();
      try {
        const n = await releaseClaims(this.#ctx.db, held);
        this.#ctx.logger.info({ count: n }, 'released claimed messages not delivered before stopping');
      } catch (err) {
        this.#ctx.logger.warn(
          { err, count: held.length },
          'could not release claimed messages; their leases will expire',
        );
      }
    }
    this.#transports.close();
    await this.#direct?.close();
  }

  async #renew(): Promise<void> {
    const now = Date.now();
    const held = [...this.#held.values()].filter((h) => now - h.since < MAX_HOLD_MS);
    if (held.length === 0) return;
    try {
      await renewLeases(this.#ctx.db, held, this.#ctx.config.deliveryLeaseSeconds);
    } catch (err) {
      this.#ctx.logger.warn(
        { err, count: held.length },
        'renewing delivery leases failed; trying again at the next beat',
      );
    }
  }

  /** Wakes the loop (from LISTEN/NOTIFY or tests). */
  poke(): void {
    this.#loop.poke();
  }

  /** Claims up to `limit` due messages and loads them; they are held (their leases renewed) until recorded. */
  async #claim(limit: number): Promise<{ tx: ClaimedTransaction; message: LoadedMessage }[]> {
    const lease = this.#ctx.config.deliveryLeaseSeconds;
    const claimed = await claimAlongDueIndex(this.#ctx, (db) => claimDue(db, limit, lease));
    // how far behind delivery is paces SMTP acceptance (in-flow.ts)
    const lag = lagOfClaim(claimed, limit);
    if (lag !== null) inFlowOf(this.#ctx).observe(lag);
    if (claimed.length === 0) return [];
    // a failed load leaves the claims to their leases, which bring them back
    const messages = new Map(
      (
        await loadMessages(
          this.#ctx.db,
          claimed.map((c) => c.message_id),
        )
      ).map((m) => [m.id, m]),
    );
    for (const tx of claimed) this.#held.set(tx.id, { id: tx.id, attempts: tx.attempts, since: Date.now() });
    return claimed.map((tx) => ({ tx, message: messages.get(tx.message_id)! }));
  }

  async #deliver(tx: ClaimedTransaction, message: LoadedMessage): Promise<void> {
    const result = await this.#send(tx, message);
    this.#outcomes.add({ tx, result, at: new Date() });
  }

  async #send(tx: ClaimedTransaction, message: LoadedMessage): Promise<SendResult> {
    const { config } = this.#ctx;
    const returnPath = returnPathDomainOf(this.#ctx);
    const envelope = { from: verpAddress(config.secret!, tx.uuid, returnPath), to: [tx.to_email] };
    const dkim = this.#dkim.optionsFor(message);
    // System mail (a system customer's: domain verification, and whatever later goes through
    // systemSender) is the service's own, not marketing: no pixel, no link rewriting and no
    // List-Unsubscribe, whatever that customer's settings say (issue 11).
    const system = message.is_system;
    // open and click tracking (issue 5), applied before DKIM signs the result
    const content = await trackedContent(
      this.#ctx,
      tx,
      system ? { ...message, track_opens: false, track_links: false } : message,
    )
      .then((tracked) => withAttachmentBlock(this.#ctx, tx, message, tracked)) // online attachments (issue 15)
      .catch((err: Error) => err);
    if (content instanceof Error)
      return { kind: 'temporary', reply: `storing tracked links failed: ${content.message}` };
    // assembled (message/compose.ts) and, unless it is system mail, given List-Unsubscribe
    const mail = mailOptions(message, tx.message_id_header, content, envelope, dkim);
    if (this.#direct)
      return sendDirect(this.#direct, tx, system ? mail : withListUnsubscribe(config, returnPath, tx.uuid, mail));
    try {
      const route = await this.#transports.routeFor(domainOf(tx.to_email));
      // RFC 8058: List-Unsubscribe + one-click on every customer's message, DKIM-signed
      const info = await route.transport.sendMail(
        system ? mail : withListUnsubscribe(config, returnPath, tx.uuid, mail),
      );
      return { kind: 'delivered', reply: String(info.response ?? '250 OK') };
    } catch (err) {
      if (err instanceof NoRouteError) {
        return classifyNetworkError(err.code) === 'permanent'
          ? { kind: 'permanent', reply: err.message }
          : { kind: 'temporary', reply: err.message };
      }
      const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
      const reply = e.response ?? `${e.code ?? 'ERROR'}: ${e.message ?? 'delivery failed'}`;
      if (e.responseCode === undefined) {
        return classifyNetworkError(e.code) === 'permanent'
          ? { kind: 'permanent', reply }
          : { kind: 'temporary', reply };
      }
      const c = classifyReply(e.responseCode, reply);
      if (c.kind === 'delivered') return { kind: 'delivered', reply };
      return c.kind === 'permanent'
        ? { kind: 'permanent', reply }
        : { kind: 'temporary', reply, retryAfterSeconds: c.retryAfterSeconds };
    }
  }
}

/** Direct delivery of one composed message (direct.ts): every MX in turn, within its site's limits. */
async function sendDirect(
  direct: DirectDelivery,
  tx: ClaimedTransaction,
  mail: Mail.Options & { envelope: { from: string; to: string[] } },
): Promise<SendResult> {
  const composed = await composer.sendMail(mail);
  return direct
    .deliver(domainOf(tx.to_email), mail.envelope, composed.message as Buffer)
    .catch((err: Error) => ({ kind: 'temporary' as const, reply: `delivery failed: ${err.message}` }));
}

/** Turns outcomes into row updates, events, stats and suppressions, written in one transaction. */
export async function recordOutcomes(ctx: AppContext, outcomes: Outcome[]): Promise<void> {
  // messages waiting for their site go back to the queue as they were (sites.ts); the rest are outcomes
  const waiting = outcomes.flatMap(({ tx, result }) =>
    result.kind === 'wait' ? [{ id: tx.id, attempts: tx.attempts, until: result.until, site: result.site }] : [],
  );
  outcomes = outcomes.filter((o) => o.result.kind !== 'wait');
  const updates: OutcomeUpdate[] = [];
  for (const { tx, result, at } of outcomes) {
    if (result.kind === 'wait') continue;
    if (result.kind === 'delivered') {
      updates.push({
        id: tx.id,
        attempts: tx.attempts,
        status: 'sent',
        delivered_status: 'delivered',
        sent_at: at,
        next_attempt_at: null,
        last_reply: result.reply,
        bounce_type: null,
        bounce_reason: null,
      });
    } else if (result.kind === 'permanent') {
      updates.push({
        id: tx.id,
        attempts: tx.attempts,
        status: 'failed',
        delivered_status: 'bounced',
        sent_at: null,
        next_attempt_at: null,
        last_reply: result.reply,
        bounce_type: 'hard',
        bounce_reason: result.reply,
      });
    } else {
      const next = nextAttemptAt({
        attempts: tx.attempts,
        queuedAt: tx.queued_at,
        now: at,
        maxHours: ctx.config.retryMaxHours,
        retryAfterSeconds: result.retryAfterSeconds,
      });
      updates.push(
        next
          ? {
              id: tx.id,
              attempts: tx.attempts,
              status: 'queued',
              delivered_status: 'pending',
              sent_at: null,
              next_attempt_at: next,
              last_reply: result.reply,
              bounce_type: null,
              bounce_reason: null,
            }
          : {
              id: tx.id,
              attempts: tx.attempts,
              status: 'failed',
              delivered_status: 'failed',
              sent_at: null,
              next_attempt_at: null,
              last_reply: result.reply,
              bounce_type: 'soft',
              bounce_reason: result.reply,
            },
      );
    }
  }

  await inTransaction(ctx.db, async (trx) => {
    await requeueWaiting(trx, waiting);
    const applied = await applyOutcomes(trx, updates);
    // a deferred message remembers its site: `admin queue` counts it there and a resume brings it due
    await rememberSites(
      trx,
      outcomes.flatMap(({ tx, result }, i) =>
        applied.has(tx.id) && updates[i].status === 'queued' && 'wire' in result && result.wire
          ? [{ id: tx.id, site: result.wire.site }]
          : [],
      ),
    );
    const events: NewEvent[] = [];
    const stats: StatDelta[] = [];
    const hardBounced: { customer_id: number; email: string; at: Date }[] = [];
    outcomes.forEach(({ tx, result, at }, i) => {
      if (!applied.has(tx.id)) return;
      const u = updates[i];
      const base = { customer_id: tx.customer_id, transaction_id: tx.id, at };
      const day = statDay(at);
      // what happened on the wire (direct delivery): MX host and address, TLS, MTA-STS, hosts tried
      const data = {
        reply: result.reply,
        attempt: tx.attempts,
        ...('wire' in result && result.wire ? result.wire : {}),
      };
      if (u.status === 'sent') {
        events.push({ ...base, type: 'sent', data }, { ...base, type: 'delivered', data });
        stats.push({ customer_id: tx.customer_id, group_id: tx.group_id, day, counts: { sent: 1, delivered: 1 } });
      } else if (u.status === 'queued') {
        events.push({ ...base, type: 'deferred', data: { ...data, next_attempt_at: u.next_attempt_at } });
      } else if (u.bounce_type === 'hard') {
        events.push({ ...base, type: 'bounced', data: { ...data, bounce_type: 'hard' } });
        stats.push({
          customer_id: tx.customer_id,
          group_id: tx.group_id,
          day,
          counts: { failed: 1, bounced: 1, bounces_hard: 1 },
        });
        hardBounced.push({ customer_id: tx.customer_id, email: tx.to_email, at });
      } else {
        events.push({ ...base, type: 'failed', data: { ...data, bounce_type: 'soft' } });
        stats.push({ customer_id: tx.customer_id, group_id: tx.group_id, day, counts: { failed: 1, bounces_soft: 1 } });
      }
    });
    await insertEvents(trx, events, ctx);
    await bumpDailyStats(trx, stats);
    if (hardBounced.length > 0) {
      const customers = await trx
        .selectFrom('customers')
        .select('id')
        .where('id', 'in', [...new Set(hardBounced.map((h) => h.customer_id))])
        .where('disable_suppression', '=', false)
        .execute();
      const suppressing = new Set(customers.map((c) => c.id));
      const rows = hardBounced
        .filter((h) => suppressing.has(h.customer_id))
        .map((h) => ({ customer_id: h.customer_id, email: h.email, origin: 'bounce' as const, created_at: h.at }));
      if (rows.length)
        await trx
          .insertInto('suppressions')
          .values(rows)
          .onConflict((oc) => oc.columns(['customer_id', 'email']).doNothing())
          .execute();
    }
  });
}
