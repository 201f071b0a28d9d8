// The webhook worker (worker role), read top to bottom like the delivery worker: claim due outbox
// rows (FOR UPDATE SKIP LOCKED, a lease, a per-customer bound) → build the payload on the first
// attempt → sign and send → decide (success on 2xx; 410 Gone disables the webhook; anything else
// is retried on the schedule of schedule.ts) → record the result and the attempt in batches.
// Delivery is at least once; the `webhook-id` lets receivers drop a repeat. The clock and the
// jitter are injectable, so tests walk the three-day schedule without sleeping.
import type { AppContext } from '../core/context.ts';
import { BatchWriter } from '../db/batch-writer.ts';
import { ClaimLoop } from '../db/claim-loop.ts';
import { invalidateLookups } from '../core/lookup-cache.ts';
import { type AttemptResult, WebhookSender, type WebhookTarget } from './deliver.ts';
import { buildPayload, type PayloadTransaction } from './payload.ts';
import { nextRetryAt, parseRetryAfter } from './schedule.ts';
import * as repo from './webhook-requests.repository.ts';
import { claimAlongDueIndex, inTransaction } from '../core/transaction.ts';

const POLL_MS = 250;
// more than the 10 s a request may take plus the time to record its result
const LEASE_SECONDS = 120;
const FLUSH_MS = 50;
const FLUSH_SIZE = 500;
const PURGE_BATCH = 1000;

export interface WebhookWorkerOptions {
  now?: () => Date;
  /** jitter source in [0, 1) */
  random?: () => number;
  timeoutMs?: number;
  concurrency?: number;
  perCustomer?: number;
}

/** What one attempt came to, ready to be written. */
export interface AttemptOutcome {
  request: repo.ClaimedRequest;
  update: repo.RequestUpdate;
  attempt: repo.NewAttempt | null;
  /** set when a 410 Gone turns the webhook off */
  disable?: { id: number; reason: string };
}

interface LoadedTarget {
  updatedAt: number;
  url: string;
  verb: string;
  enabled: boolean;
  secret: string;
  auth: { username: string; password: string } | null;
}

/** Decides what follows an answer (pure): success, a retry on the schedule, or failure for good. */
export function decide(
  request: repo.ClaimedRequest,
  result: AttemptResult,
  random: () => number,
  opts: { final?: boolean } = {},
) {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300)
    return { status: 'success' as const, next: null, step: request.retry_step, gone: false };
  if (code === 410) return { status: 'failed' as const, next: null, step: request.retry_step, gone: true };
  const retryAfter = code === 429 || code === 503 ? parseRetryAfter(result.retryAfter, result.at) : undefined;
  const next = opts.final ? null : nextRetryAt(request.retry_step, result.at, random, retryAfter);
  return next
    ? { status: 'pending' as const, next, step: request.retry_step + 1, gone: false }
    : { status: 'failed' as const, next: null, step: request.retry_step, gone: false };
}

/** Writes results, attempts and disables in one transaction (lease-guarded by the attempt number). */
export async function recordAttempts(ctx: AppContext, outcomes: AttemptOutcome[]): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const applied = await repo.recordResults(trx, outcomes);
    const disable = outcomes.filter((o) => applied.has(o.request.id)).flatMap((o) => (o.disable ? [o.disable] : []));
    if (disable.length > 0) {
      await repo.disableWebhooks(trx, disable);
      await invalidateLookups(ctx, trx); // the outbox stops adding rows for it at once
    }
  });
}

export class WebhookWorker {
  readonly #ctx: AppContext;
  readonly #sender: WebhookSender;
  readonly #now: () => Date;
  readonly #random: () => number;
  readonly #concurrency: number;
  readonly #perCustomer: number;
  readonly #writer: BatchWriter<AttemptOutcome>;
  readonly #targets = new Map<number, LoadedTarget>();
  readonly #inFlightByCustomer = new Map<number, number>();
  #inFlight = 0;
  // the last claim took all it asked for, so more may be due: finished requests wake the loop at once
  #backlog = false;
  readonly #loop: ClaimLoop<repo.ClaimedRequest>;

  constructor(ctx: AppContext, opts: WebhookWorkerOptions = {}) {
    this.#ctx = ctx;
    this.#now = opts.now ?? (() => new Date());
    this.#random = opts.random ?? Math.random;
    this.#concurrency = opts.concurrency ?? ctx.config.webhookConcurrency;
    this.#perCustomer = opts.perCustomer ?? ctx.config.webhookConcurrencyPerCustomer;
    this.#sender = new WebhookSender({
      allowedNetworks: ctx.config.webhookAllowedNetworks,
      timeoutMs: opts.timeoutMs,
      maxSocketsPerHost: this.#perCustomer,
    });
    this.#writer = new BatchWriter<AttemptOutcome>({
      what: 'webhook attempts',
      logger: ctx.logger,
      flushMs: FLUSH_MS,
      flushSize: FLUSH_SIZE,
      write: (batch) => recordAttempts(ctx, batch),
    });
    this.#loop = new ClaimLoop({
      what: 'webhook requests',
      logger: ctx.logger,
      pollMs: POLL_MS,
      room: () => {
        // while busy, wait for half the slots and claim them together: a claim's cost in the database
        // hardly depends on its size (bench:webhooks, PGlite: ~18 ms whether 16 or 32 rows), so
        // fewer, bigger claims leave more of the one database connection to the results
        const free = this.#concurrency - this.#inFlight;
        const enough = this.#inFlight === 0 ? 1 : Math.max(1, Math.floor(this.#concurrency / 2));
        return free >= enough ? free : 0;
      },
      claim: () => this.#claim(),
      process: (request) => this.#deliver(request),
      // a finished request wakes the loop only when more is due or its customer was at the limit (#deliver)
      wakeWhenDone: false,
    });
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
    while (this.#inFlight > 0) await new Promise((r) => setTimeout(r, 20)); // runOnce's, in tests
    await this.#writer.flush();
    this.#sender.close();
  }

  poke(): void {
    this.#loop.poke();
  }

  /** Claims what is due now, sends it all and records the results (tests drive the worker with this). */
  async runOnce(): Promise<number> {
    const claimed = await this.#claim();
    await Promise.all(claimed.map((c) => this.#deliver(c)));
    await this.#writer.flush();
    return claimed.length;
  }

  /** Deletes requests older than WEBHOOK_LOG_RETENTION_DAYS, in batches; returns how many. */
  async purge(): Promise<number> {
    const before = new Date(this.#now().getTime() - this.#ctx.config.webhookLogRetentionDays * 86_400_000);
    let total = 0;
    for (;;) {
      const n = await repo.purgeRequests(this.#ctx.db, before, PURGE_BATCH);
      total += n;
      if (n < PURGE_BATCH) return total;
    }
  }

  async #claim(): Promise<repo.ClaimedRequest[]> {
    const free = this.#concurrency - this.#inFlight;
    if (free <= 0) return [];
    const busy = [...this.#inFlightByCustomer].filter(([, n]) => n >= this.#perCustomer).map(([id]) => id);
    const opts = { now: this.#now(), limit: free, perCustomer: this.#perCustomer, busy, leaseSeconds: LEASE_SECONDS };
    const claimed = await claimAlongDueIndex(this.#ctx, (db) => repo.claimDueRequests(db, opts));
    for (const c of claimed) {
      this.#inFlight++;
      this.#inFlightByCustomer.set(c.customer_id, (this.#inFlightByCustomer.get(c.customer_id) ?? 0) + 1);
    }
    this.#backlog = claimed.length === free;
    if (claimed.length > 0) this.#prepare(claimed);
    return claimed;
  }

  /**
   * Turns the claim's joined rows into targets (decrypting secrets only when the webhook changed) and builds missing
   * payloads.
   */
  #prepare(claimed: repo.ClaimedWithContext[]): void {
    const secrets = this.#ctx.secrets;
    for (const c of claimed) {
      if (c.webhook_id === null || c.w_url === null) {
        if (c.webhook_id !== null) this.#targets.delete(c.webhook_id);
        continue;
      }
      const updatedAt = new Date(c.w_updated_at!).getTime();
      const known = this.#targets.get(c.webhook_id);
      if (known && known.updatedAt === updatedAt && known.enabled === (c.w_status === 'enabled')) continue;
      this.#targets.set(c.webhook_id, {
        updatedAt,
        url: c.w_url,
        verb: c.w_verb!,
        enabled: c.w_status === 'enabled',
        secret: c.w_secret_sealed ? secrets.decrypt(c.w_secret_sealed) : '',
        auth:
          c.w_auth_type === 'basic' && c.w_auth_details_sealed
            ? (JSON.parse(secrets.decrypt(c.w_auth_details_sealed)) as { username: string; password: string })
            : null,
      });
    }
    for (const c of claimed) {
      if (c.payload !== null) continue;
      const tx: PayloadTransaction | null =
        c.t_uuid === null
          ? null
          : {
              uuid: c.t_uuid,
              message_id_header: c.t_message_id_header!,
              group_uuid: c.t_group_uuid!,
              group_name: c.t_group_name!,
              from_email: c.t_from_email!,
              from_name: c.t_from_name,
              to_email: c.t_to_email!,
              to_name: c.t_to_name,
              subject: c.t_subject!,
              tags: c.t_tags,
              metadata: c.t_metadata,
              created_at: c.t_created_at === null ? undefined : new Date(c.t_created_at),
            };
      c.payload = buildPayload(c.field_set, { type: c.event_type, at: c.event_at, data: c.event_data }, tx);
    }
  }

  async #deliver(request: repo.ClaimedRequest): Promise<void> {
    try {
      this.#writer.add(
        await attempt(
          this.#sender,
          request,
          request.webhook_id === null ? undefined : this.#targets.get(request.webhook_id),
          this.#now(),
          this.#random,
        ),
      );
    } finally {
      this.#inFlight--;
      const n = (this.#inFlightByCustomer.get(request.customer_id) ?? 1) - 1;
      if (n <= 0) this.#inFlightByCustomer.delete(request.customer_id);
      else this.#inFlightByCustomer.set(request.customer_id, n);
      // otherwise the poll comes soon enough, and a claim per finished request would cost more
      if (this.#backlog || n === this.#perCustomer - 1) this.poke();
    }
  }
}

/** Sends one claimed request to its webhook as it is now, and turns the answer into an outcome. */
export async function attempt(
  sender: WebhookSender,
  request: repo.ClaimedRequest,
  target: LoadedTarget | undefined,
  now: Date,
  random: () => number,
  opts: { final?: boolean; evenIfDisabled?: boolean } = {},
): Promise<AttemptOutcome> {
  const base = { id: request.id, attempts: request.attempts, payload: request.payload, at: now };
  if (!target || (!target.enabled && !opts.evenIfDisabled)) {
    // deleted or switched off since the event: nothing is sent, the log says why
    const error = target ? 'webhook disabled: not sent' : 'webhook deleted: not sent';
    return {
      request,
      update: {
        ...base,
        status: 'failed',
        next_attempt_at: null,
        retry_step: request.retry_step,
        last_status_code: null,
        url: target?.url ?? '',
        verb: target?.verb ?? '',
      },
      attempt: {
        request_id: request.id,
        at: now,
        duration_ms: 0,
        status_code: null,
        error,
        response_body: null,
        next_retry_at: null,
      },
    };
  }
  const sendTarget: WebhookTarget = {
    url: target.url,
    verb: target.verb,
    msgId: request.msg_id,
    secret: target.secret,
    auth: target.auth,
    payload: request.payload ?? {},
  };
  const result = await sender.send(sendTarget, now);
  const d = decide(request, result, random, opts);
  return {
    request,
    update: {
      ...base,
      status: d.status,
      next_attempt_at: d.next,
      retry_step: d.step,
      last_status_code: result.statusCode,
      url: target.url,
      verb: target.verb,
    },
    attempt: {
      request_id: request.id,
      at: now,
      duration_ms: result.durationMs,
      status_code: result.statusCode,
      error: result.error,
      response_body: result.body,
      next_retry_at: d.next,
    },
    disable:
      d.gone && request.webhook_id !== null
        ? { id: request.webhook_id, reason: `Disabled on ${now.toISOString()}: ${target.url} answered 410 Gone.` }
        : undefined,
  };
}

export type { LoadedTarget };
