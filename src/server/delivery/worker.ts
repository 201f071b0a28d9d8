// The delivery worker, read top to bottom as Postal's outgoing processor is: claim due
// transactions → compose (DKIM-signed, VERP envelope, Message-ID fixed at acceptance) → send →
// classify the reply → record the outcome through the lifecycle (lifecycle/) in batches. Delivery
// is at least once; two workers never hold the same row at once.
import type { AppContext } from '../core/context.ts';
import { BatchWriter } from '../db/batch-writer.ts';
import { returnPathDomainOf } from '../domains/domains.service.ts';
import { type Attempt, recordAttempts } from '../lifecycle/lifecycle.service.ts';
import { releaseScheduled } from '../sending/sending.service.ts';
import { domainOf } from '../core/addresses.ts';
import { ClaimLoop } from '../db/claim-loop.ts';
import { onQueued } from '../core/queue-signal.ts';
import { lagOfClaim } from './in-flow.ts';
import {
  claimDue,
  type ClaimedTransaction,
  type LoadedMessage,
  loadMessages,
  releaseClaims,
  renewLeases,
} from './queue.repository.ts';
import { type Refusal, classifyNetworkError, classifyReply, nextAttemptAt, refusalOf } from './smtp-reply.ts';
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
  /** Refused for good or for now (smtp-reply.ts), with what the wire saw. */
  | (Refusal & { wire?: Wire })
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
// Scheduled messages whose moment came are released to the queue at most this often (a claim may
// run many times a second when busy); a scheduled message goes out within about a second of its time.
const RELEASE_EVERY_MS = 1000;

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
  #releasedAt = 0;

  constructor(ctx: AppContext, transports?: TransportPool) {
    this.#ctx = ctx;
    this.#transports = transports ?? createTransportPool(ctx.config);
    this.#dkim = new DkimKeys((sealed) => ctx.secrets.decrypt(sealed));
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
    this.#ctx.inFlow.close(); // nothing more is delivered here: no message waits for it
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
    if (Date.now() - this.#releasedAt >= RELEASE_EVERY_MS) {
      this.#releasedAt = Date.now();
      await releaseScheduled(this.#ctx); // scheduled messages whose moment came join the queue first
    }
    const lease = this.#ctx.config.deliveryLeaseSeconds;
    const claimed = await claimAlongDueIndex(this.#ctx, (db) => claimDue(db, limit, lease));
    // how far behind delivery is paces SMTP acceptance (in-flow.ts)
    const lag = lagOfClaim(claimed, limit);
    if (lag !== null) this.#ctx.inFlow.observe(lag);
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
    // List-Unsubscribe, whatever that customer's settings say.
    const system = message.is_system;
    // open and click tracking, applied before DKIM signs the result
    const content = await trackedContent(
      this.#ctx,
      tx,
      system ? { ...message, track_opens: false, track_links: false } : message,
    )
      .then((tracked) => withAttachmentBlock(this.#ctx, tx, message, tracked)) // online attachments
      .catch((err: Error) => err);
    if (content instanceof Error)
      return { kind: 'temporary', reply: `storing tracked links failed: ${content.message}` };
    // assembled (message/compose.ts) and, unless it is system mail, given List-Unsubscribe
    const mail = mailOptions(message, tx.message_id_header, content, envelope, dkim);
    if (this.#direct)
      return sendDirect(
        this.#direct,
        tx,
        system ? mail : withListUnsubscribe(config, returnPath, tx.uuid, mail),
        message.tls === 'enforced',
      );
    try {
      const route = await this.#transports.routeFor(domainOf(tx.to_email));
      // RFC 8058: List-Unsubscribe + one-click on every customer's message, DKIM-signed
      const info = await route.transport.sendMail(
        system ? mail : withListUnsubscribe(config, returnPath, tx.uuid, mail),
      );
      return { kind: 'delivered', reply: String(info.response ?? '250 OK') };
    } catch (err) {
      if (err instanceof NoRouteError) return refusalOf(classifyNetworkError(err.code), err.message);
      const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
      const reply = e.response ?? `${e.code ?? 'ERROR'}: ${e.message ?? 'delivery failed'}`;
      // the relay's answer gets the verdict a DSN quoting it would get (remote-answer.ts)
      const verdict =
        e.responseCode === undefined ? classifyNetworkError(e.code) : classifyReply(e.responseCode, reply);
      return refusalOf(verdict, reply);
    }
  }
}

/** Direct delivery of one composed message (direct.ts): every MX in turn, within its site's limits. */
async function sendDirect(
  direct: DirectDelivery,
  tx: ClaimedTransaction,
  mail: Mail.Options & { envelope: { from: string; to: string[] } },
  requireTls: boolean,
): Promise<SendResult> {
  const composed = await composer.sendMail(mail);
  return direct
    .deliver(domainOf(tx.to_email), mail.envelope, composed.message as Buffer, requireTls)
    .catch((err: Error) => ({ kind: 'temporary' as const, reply: `delivery failed: ${err.message}` }));
}

type Attempted = Outcome & { result: Exclude<SendResult, { kind: 'wait' }> };

/**
 * What one attempt came to (docs/architecture.md §5.2): delivered; refused for good, a bounce that
 * is hard only when the address is bad; or deferred with backoff until the retry window closes,
 * then expired (failed, a soft bounce). The lifecycle writes what each means.
 */
function attemptOf(ctx: AppContext, { tx, result, at }: Attempted): Attempt {
  // what happened on the wire (direct delivery): MX host and address, TLS, MTA-STS, hosts tried;
  // and what the remote's answer was about (remote-answer.ts)
  const data: Record<string, unknown> = {
    reply: result.reply,
    attempt: tx.attempts,
    ...('category' in result && result.category ? { category: result.category } : {}),
    ...('wire' in result && result.wire ? result.wire : {}),
  };
  const base = { tx, at, attempts: tx.attempts, reply: result.reply };
  if (result.kind === 'delivered') return { ...base, outcome: 'delivered', data };
  const addressBad = result.kind === 'permanent' && result.address === 'bad';
  if (result.kind === 'permanent')
    return {
      ...base,
      outcome: 'bounced',
      facts: { addressBad },
      data: { ...data, bounce_type: addressBad ? 'hard' : 'soft' },
    };
  const next = nextAttemptAt({
    attempts: tx.attempts,
    queuedAt: tx.queued_at,
    now: at,
    maxHours: ctx.config.retryMaxHours,
    retryAfterSeconds: result.retryAfterSeconds,
  });
  if (next === null) return { ...base, outcome: 'expired', data: { ...data, bounce_type: 'soft' } };
  return { ...base, outcome: 'deferred', nextAttemptAt: next, data: { ...data, next_attempt_at: next } };
}

/**
 * Records a batch of outcomes in one transaction: messages waiting for their site go back to the
 * queue as they were (sites.ts); each attempt goes through the lifecycle; a deferred message
 * remembers its site, so `admin queue` counts it there and a resume brings it due.
 */
export async function recordOutcomes(ctx: AppContext, outcomes: Outcome[]): Promise<void> {
  const waiting = outcomes.flatMap(({ tx, result }) =>
    result.kind === 'wait' ? [{ id: tx.id, attempts: tx.attempts, until: result.until, site: result.site }] : [],
  );
  const attempted = outcomes.filter((o): o is Attempted => o.result.kind !== 'wait');
  const attempts = attempted.map((o) => attemptOf(ctx, o));
  await inTransaction(ctx.db, async (trx) => {
    await requeueWaiting(trx, waiting);
    const applied = await recordAttempts(trx, ctx, attempts);
    await rememberSites(trx, deferredSites(attempted, attempts, applied));
  });
}

/** The sites of the applied attempts that were deferred after a direct delivery tried them. */
function deferredSites(attempted: Attempted[], attempts: Attempt[], applied: Set<number>) {
  return attempted.flatMap(({ tx, result }, i) =>
    applied.has(tx.id) && attempts[i].outcome === 'deferred' && 'wire' in result && result.wire
      ? [{ id: tx.id, site: result.wire.site }]
      : [],
  );
}
