// Accepting mail (API and SMTP): each recipient becomes a transaction in its group, checked
// against quota and the suppression list, stored with its message and a `queued` event. Accepted
// means durable: callers answer 2xx / 250 only after the COMMIT that stores it (docs/architecture.md §5.1).
// Concurrent submissions share one database transaction (group commit), which is what lets one
// process accept thousands of messages a second on a single embedded database.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../core/context.ts';
import type { Database } from '../db/database.ts';
import type { Address, TransStatus } from '../db/schema.ts';
import {
  lockDueScheduled,
  type NewTransaction,
  recordAccepted,
  recordReleased,
} from '../lifecycle/lifecycle.service.ts';
import { POLICY } from '../lifecycle/policy.ts';
import { requireSendingDomain, type SendingDomain } from '../domains/domains.service.ts';
import { DomainError } from '../core/errors.ts';
import { inTransaction } from '../core/transaction.ts';
import { domainOf } from '../core/addresses.ts';
import type { Submission } from './mail.schema.ts';
import { notifyQueued } from '../core/queue-signal.ts';
import { requireFreeSpace } from '../core/free-space.ts';
import { findIdempotencyKey, insertIdempotencyKeys, pruneIdempotencyKeys } from './idempotency.repository.ts';
import * as repo from './sending.repository.ts';
import { attachmentGroupFor } from '../attachments/mail-block.ts';

export interface AcceptedRecipient {
  trans_uuid: string;
  to: string;
  status: TransStatus;
}

export interface PreparedMessage {
  submission: Submission;
  domain: SendingDomain;
  /** The raw message as received over SMTP (sent as is, DKIM-signed). */
  raw?: Buffer;
  /** Envelope recipients (SMTP); for the API these are to + cc + bcc. */
  recipients: Address[];
  /** The raw message's own Message-ID; API messages get one per recipient. */
  messageIdHeader?: string;
  /**
   * When the message was accepted (queued_at, its events, its day and quota month); default the
   * moment of the commit. Only the demo's history (src/server/demo) sets it.
   */
  queuedAt?: Date;
  /** The online attachment link named by the submission. */
  attachmentGroupId?: number;
}

/** Checks what needs no write (the sending domain) and prepares a submission for acceptance. */
export async function prepare(
  ctx: AppContext,
  customerId: number,
  submission: Submission,
  extra: { raw?: Buffer; recipients?: Address[]; messageIdHeader?: string } = {},
): Promise<PreparedMessage> {
  const domain = await requireSendingDomain(ctx, customerId, domainOf(submission.from.email));
  const attachmentGroupId = submission.onlineAttachmentId
    ? await attachmentGroupFor(ctx, customerId, submission.onlineAttachmentId)
    : undefined;
  return {
    submission,
    domain,
    attachmentGroupId,
    raw: extra.raw,
    messageIdHeader: extra.messageIdHeader,
    recipients: extra.recipients ?? [...submission.to, ...submission.cc, ...submission.bcc],
  };
}

/** An Idempotency-Key to store with the acceptance, and how to render the answer to store. */
export interface Idempotency {
  key: string;
  requestHash: string;
  render?: (accepted: AcceptedRecipient[][]) => { status: number; body: unknown };
}

/** A concurrent request with the same Idempotency-Key committed first: answer what it answered. */
export class IdempotencyReplay extends Error {
  constructor(
    readonly status: number,
    readonly response: unknown,
  ) {
    super('idempotent replay');
  }
}

interface Job {
  customerId: number;
  messages: PreparedMessage[];
  idempotency?: Idempotency;
  resolve(result: AcceptedRecipient[][]): void;
  reject(err: unknown): void;
}

const MAX_JOBS_PER_COMMIT = 256;
/** Recipients per commit; a bigger job (a 500-message batch) still commits alone. */
const MAX_RECIPIENTS_PER_COMMIT = 5000;

/** Takes jobs from the front of `pending` up to the per-commit limits (always at least one). */
function takeBatch(pending: Job[]): Job[] {
  let recipients = 0;
  let n = 0;
  while (n < pending.length && n < MAX_JOBS_PER_COMMIT) {
    const size = pending[n].messages.reduce((sum, m) => sum + m.recipients.length, 0);
    if (n > 0 && recipients + size > MAX_RECIPIENTS_PER_COMMIT) break;
    recipients += size;
    n++;
  }
  return pending.splice(0, n);
}

/** Runs `insert` over `rows` in slices, keeping each statement under PostgreSQL's 65,535 parameters. */
async function inChunks<T, R>(rows: T[], size: number, insert: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < rows.length; i += size) out.push(...(await insert(rows.slice(i, i + size))));
  return out;
}

/**
 * Group commit: jobs that arrive while a commit is running are written together by the next one.
 * An idle service commits at once (no added latency); a busy one amortises each COMMIT (and its
 * fsync) over many requests.
 */
export class AcceptQueue {
  #pending: Job[] = [];
  #running = false;

  readonly #notifyOthers: boolean;

  constructor(private readonly ctx: AppContext) {
    this.#notifyOthers = ctx.engine === 'postgres';
  }

  push(job: Job): void {
    this.#pending.push(job);
    if (!this.#running) {
      this.#running = true;
      setImmediate(() => void this.#drain());
    }
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const jobs = takeBatch(this.#pending);
      try {
        const results = await inTransaction(this.ctx.db, (trx) => writeJobs(trx, jobs, this.#notifyOthers, this.ctx));
        for (const [i, job] of jobs.entries()) job.resolve(results[i]);
      } catch (err) {
        if (jobs.length === 1) {
          jobs[0].reject(await this.#explain(jobs[0], err));
          continue;
        }
        // one bad job must not fail the others: retry each on its own
        for (const job of jobs) {
          try {
            const [result] = await inTransaction(this.ctx.db, (trx) =>
              writeJobs(trx, [job], this.#notifyOthers, this.ctx),
            );
            job.resolve(result);
          } catch (single) {
            job.reject(await this.#explain(job, single));
          }
        }
      }
      notifyQueued(this.ctx);
    }
    this.#running = false;
  }

  /**
   * A unique violation on the job's Idempotency-Key means a twin request won the race; a foreign-key
   * violation on the message's domain, that the domain was removed meanwhile.
   */
  async #explain(job: Job, err: unknown): Promise<unknown> {
    const e = err as { code?: string; constraint?: string };
    // the sending domain was removed (DELETE /resend/domains/{id}) while this job waited for the commit
    if (e.code === '23503' && e.constraint === 'messages_domain_id_fkey')
      return new DomainError('domain_not_verified', 'The sending domain was removed; add and verify it again to send');
    if (!job.idempotency || e.code !== '23505' || e.constraint !== 'idempotency_keys_pk') return err;
    const row = await findIdempotencyKey(this.ctx.db, job.customerId, job.idempotency.key);
    if (!row) return err;
    if (row.request_hash !== job.idempotency.requestHash)
      return new DomainError('conflict', 'This Idempotency-Key was already used with a different request');
    return new IdempotencyReplay(row.status, row.response);
  }
}

declare module '../core/context.ts' {
  interface AppContext {
    /** The group commit of accepted mail (create-context.ts). */
    readonly acceptQueue: AcceptQueue;
  }
}

/** The answer stored for a customer's Idempotency-Key in the last 24 hours, with its request's hash, or undefined. */
export function storedAnswer(ctx: AppContext, customerId: number, key: string) {
  return findIdempotencyKey(ctx.db, customerId, key);
}

/** Stores the messages durably and resolves with one list of recipients per message, after COMMIT. */
export async function accept(
  ctx: AppContext,
  customerId: number,
  messages: PreparedMessage[],
  idempotency?: Idempotency,
): Promise<AcceptedRecipient[][]> {
  await requireFreeSpace(ctx); // below MIN_FREE_SPACE_MB: 507, nothing stored
  return new Promise((resolve, reject) => ctx.acceptQueue.push({ customerId, messages, idempotency, resolve, reject }));
}

/** The quota_usage month of a moment: its first UTC day. */
export function firstOfMonth(at: Date): string {
  return `${at.toISOString().slice(0, 7)}-01`;
}

/** The messages of one commit, each with its job and the moment it is accepted at. */
type Batch = { job: Job; m: PreparedMessage; at: Date }[];

const customerKey = (customerId: number, name: string) => `${customerId}\u0000${name}`;

/** Writes a batch of jobs inside one transaction; returns the recipients of each job's messages. */
async function writeJobs(
  trx: Database,
  jobs: Job[],
  notifyOthers: boolean,
  ctx: AppContext,
): Promise<AcceptedRecipient[][][]> {
  const now = new Date();
  const batch: Batch = jobs.flatMap((job) => job.messages.map((m) => ({ job, m, at: m.queuedAt ?? now })));
  // a permissive batch with no valid message stores only its answer under its Idempotency-Key
  if (batch.length === 0) {
    const none = jobs.map((job) => job.messages.map(() => []));
    await storeIdempotencyKeys(trx, jobs, none);
    return none;
  }
  const customerIds = [...new Set(jobs.map((j) => j.customerId))].sort((a, b) => a - b);
  // customer settings and quota, locked in a stable order so concurrent commits cannot deadlock
  const settings = new Map((await repo.customerSettings(trx, customerIds)).map((c) => [c.id, c]));
  const quota = await lockQuota(
    trx,
    batch.map(({ job, at }) => ({ customerId: job.customerId, at })),
    settings,
  );
  const groupIds = await upsertGroupsOf(trx, batch, now);
  const suppressed = await suppressedRecipients(trx, batch, settings);
  const messageIds = await storeMessages(trx, batch);
  const planned = planTransactions(batch, { groupIds, messageIds, suppressed, quota });
  await recordAccepted(
    trx,
    ctx,
    planned.map((p) => p.transaction),
  );
  await addQuotaUsed(trx, quota);
  // workers in other processes wake at COMMIT (PostgreSQL); in-process ones get notifyQueued
  if (notifyOthers && quota.used.size > 0) await repo.notifyQueueListeners(trx);
  const answers = answersPerJob(jobs, planned);
  await storeIdempotencyKeys(trx, jobs, answers);
  return answers;
}

/** The quota_usage month of a customer's moment, as a key and as the row it names. */
function usageOf(customerId: number, at: Date) {
  const month = firstOfMonth(at);
  return { key: customerKey(customerId, month), customer_id: customerId, month };
}

/** Quota is counted per calendar month (the commit's, or a message's own queuedAt): each month's row locked. */
async function lockQuota(
  trx: Database,
  uses: { customerId: number; at: Date }[],
  settings: Map<number, { monthly_quota: number }>,
) {
  const months = new Map(uses.map(({ customerId, at }) => usageOf(customerId, at)).map((u) => [u.key, u]));
  // one statement: creates this month's row if needed and locks it (DO UPDATE takes the row lock)
  const rows = await repo.lockQuotaUsage(
    trx,
    [...months.values()]
      .sort((a, b) => a.customer_id - b.customer_id || a.month.localeCompare(b.month))
      .map(({ customer_id, month }) => ({ customer_id, month })),
  );
  const remaining = new Map(
    rows.map((u) => [
      customerKey(u.customer_id, u.month),
      Math.max(0, (settings.get(u.customer_id)?.monthly_quota ?? 0) - u.used),
    ]),
  );
  return { months, remaining, used: new Map<string, number>() };
}
type Quota = Awaited<ReturnType<typeof lockQuota>>;

/** Groups created on first use, their last send date moved forward; answers each one's id by customer and name. */
async function upsertGroupsOf(trx: Database, batch: Batch, now: Date): Promise<Map<string, number>> {
  const groupKeys = new Map<string, { customerId: number; name: string; first: Date; last: Date }>();
  for (const { job, m, at } of batch) {
    const key = customerKey(job.customerId, m.submission.group);
    const g = groupKeys.get(key);
    if (!g) groupKeys.set(key, { customerId: job.customerId, name: m.submission.group, first: at, last: at });
    else if (at > g.last) g.last = at;
    else if (at < g.first) g.first = at;
  }
  const groups = await repo.upsertGroups(
    trx,
    [...groupKeys.values()]
      .sort((a, b) => a.customerId - b.customerId || a.name.localeCompare(b.name))
      .map((g) => ({
        uuid: randomUUID(),
        customer_id: g.customerId,
        name: g.name,
        last_send_at: g.last,
        ...(g.first < now ? { created_at: g.first } : {}),
      })),
  );
  return new Map(groups.map((g) => [customerKey(g.customer_id, g.name), g.id]));
}

/**
 * The recipients on their customer's suppression list, by customer and lower-cased address (unless
 * the customer disabled suppression). System mail is never suppressed: a postmaster who
 * unsubscribed from one verification mail must get the next.
 */
async function suppressedRecipients(
  trx: Database,
  batch: Batch,
  settings: Map<number, { disable_suppression: boolean; is_system: boolean }>,
): Promise<Set<string>> {
  const suppressing = (customerId: number) =>
    !settings.get(customerId)?.disable_suppression && !settings.get(customerId)?.is_system;
  const emails = batch.flatMap(({ job, m }) =>
    suppressing(job.customerId) ? m.recipients.map((r) => r.email.toLowerCase()) : [],
  );
  const suppressed = new Set<string>();
  if (emails.length === 0) return suppressed;
  const customers = [...settings.keys()].filter(suppressing);
  for (const r of await repo.suppressedAmong(trx, customers, [...new Set(emails)]))
    suppressed.add(customerKey(r.customer_id, r.email.toLowerCase()));
  return suppressed;
}

/** The messages' rows (one per message, shared by its recipients); answers their ids in batch order. */
async function storeMessages(trx: Database, batch: Batch): Promise<number[]> {
  const rows = await inChunks(batch, 1000, (chunk) =>
    repo.insertMessages(
      trx,
      chunk.map(({ job, m }) => ({
        customer_id: job.customerId,
        domain_id: m.domain.id,
        from_email: m.submission.from.email,
        from_name: m.submission.from.name ?? null,
        reply_to: m.submission.replyTo.length ? JSON.stringify(m.submission.replyTo) : null,
        to_header: JSON.stringify(m.submission.to),
        cc_header: m.submission.cc.length ? JSON.stringify(m.submission.cc) : null,
        subject: m.submission.subject,
        headers: Object.keys(m.submission.headers).length ? JSON.stringify(m.submission.headers) : null,
        html: m.raw ? null : m.submission.html,
        text: m.raw ? null : m.submission.text,
        attachments: !m.raw && m.submission.attachments.length ? JSON.stringify(m.submission.attachments) : null,
        raw: m.raw ?? null,
        tags: m.submission.tags.length ? JSON.stringify(m.submission.tags) : null,
        metadata: m.submission.metadata ? JSON.stringify(m.submission.metadata) : null,
        attachment_group_id: m.attachmentGroupId ?? null,
        ...(m.queuedAt ? { created_at: m.queuedAt } : {}),
      })),
    ),
  );
  return rows.map((r) => r.id);
}

/** One recipient's transaction as planned, and the answer the caller gets for it. */
interface Planned {
  jobIndex: number;
  /** the message's index in the batch */
  messageIndex: number;
  transaction: NewTransaction;
  answer: AcceptedRecipient;
}

/**
 * A transaction per recipient: suppressed ones fail at once, scheduled ones wait for their moment,
 * those over the month's quota are no_quota, the rest are queued and count against the quota
 * (lifecycle/policy.ts names what each is).
 */
function planTransactions(
  batch: Batch,
  stored: { groupIds: Map<string, number>; messageIds: number[]; suppressed: Set<string>; quota: Quota },
): Planned[] {
  const { groupIds, messageIds, suppressed, quota } = stored;
  const jobIndex = new Map<Job, number>();
  return batch.flatMap(({ job, m, at }, i) => {
    if (!jobIndex.has(job)) jobIndex.set(job, jobIndex.size);
    const usage = usageOf(job.customerId, at).key;
    return m.recipients.map((r) => {
      const uuid = randomUUID();
      let outcome: NewTransaction['outcome'] = 'accepted';
      let reason: string | null = null;
      if (suppressed.has(customerKey(job.customerId, r.email.toLowerCase()))) {
        outcome = 'suppressed';
        reason = 'suppressed: the recipient is on the suppression list';
      } else if (m.submission.scheduledAt) {
        outcome = 'scheduled'; // the quota counts it when it is released (releaseScheduled)
      } else if ((quota.remaining.get(usage) ?? 0) <= 0) {
        outcome = 'over_quota';
        reason = 'no_quota: the monthly sending quota is used up';
      } else {
        quota.remaining.set(usage, quota.remaining.get(usage)! - 1);
        quota.used.set(usage, (quota.used.get(usage) ?? 0) + 1);
      }
      const transaction: NewTransaction = {
        outcome,
        at,
        reason,
        ...(outcome === 'scheduled' ? { scheduledAt: m.submission.scheduledAt } : {}),
        row: {
          uuid,
          customer_id: job.customerId,
          message_id: messageIds[i],
          group_id: groupIds.get(customerKey(job.customerId, m.submission.group))!,
          to_email: r.email,
          to_name: r.name ?? null,
          message_id_header: m.messageIdHeader ?? `<${uuid}@${m.domain.domain}>`,
        },
      };
      const answer = { trans_uuid: uuid, to: r.email, status: POLICY[outcome]({}).status! };
      return { jobIndex: jobIndex.get(job)!, messageIndex: i, transaction, answer };
    });
  });
}

/** Counts what will really be sent against each customer's month (its row locked by lockQuota). */
async function addQuotaUsed(trx: Database, quota: Quota): Promise<void> {
  for (const [key, n] of quota.used) {
    const { customer_id, month } = quota.months.get(key)!;
    await repo.addQuotaUsed(trx, customer_id, month, n);
  }
}

/** The answers split back per job, then per message. */
function answersPerJob(jobs: Job[], planned: Planned[]): AcceptedRecipient[][][] {
  const out: AcceptedRecipient[][][] = jobs.map((job) => job.messages.map(() => []));
  const firstMessage: number[] = [];
  let k = 0;
  for (const job of jobs) {
    firstMessage.push(k);
    k += job.messages.length;
  }
  for (const p of planned) out[p.jobIndex][p.messageIndex - firstMessage[p.jobIndex]].push(p.answer);
  return out;
}

/** Each job's Idempotency-Key with the answer it renders, in the same transaction. */
async function storeIdempotencyKeys(trx: Database, jobs: Job[], answers: AcceptedRecipient[][][]): Promise<void> {
  const keys = jobs.flatMap((job, i) => {
    if (!job.idempotency?.render) return [];
    const { status, body } = job.idempotency.render(answers[i]);
    return [
      {
        customer_id: job.customerId,
        key: job.idempotency.key,
        request_hash: job.idempotency.requestHash,
        status,
        response: body,
      },
    ];
  });
  await insertIdempotencyKeys(trx, keys);
}

/** Scheduled messages released per database transaction. */
const RELEASE_BATCH = 500;

/**
 * Releases scheduled messages whose moment came to the queue, due at once, counting each against
 * its customer's quota of the month it goes in (over it: no_quota), in one database transaction:
 * the delivery worker calls it about once a second. Answers how many it released.
 */
export async function releaseScheduled(ctx: AppContext): Promise<number> {
  const now = new Date();
  const released = await inTransaction(ctx.db, async (trx) => {
    const due = await lockDueScheduled(trx, RELEASE_BATCH);
    if (due.length === 0) return 0;
    const customerIds = [...new Set(due.map((t) => t.customer_id))].sort((a, b) => a - b);
    const settings = new Map((await repo.customerSettings(trx, customerIds)).map((c) => [c.id, c]));
    const quota = await lockQuota(
      trx,
      due.map((t) => ({ customerId: t.customer_id, at: now })),
      settings,
    );
    const outcomes = due.map((tx) => {
      const usage = usageOf(tx.customer_id, now).key;
      if ((quota.remaining.get(usage) ?? 0) <= 0)
        return {
          tx,
          at: now,
          outcome: 'over_quota' as const,
          reason: 'no_quota: the monthly sending quota is used up',
        };
      quota.remaining.set(usage, quota.remaining.get(usage)! - 1);
      quota.used.set(usage, (quota.used.get(usage) ?? 0) + 1);
      return { tx, at: now, outcome: 'released' as const, reason: null };
    });
    await recordReleased(trx, ctx, outcomes);
    await addQuotaUsed(trx, quota);
    if (ctx.engine === 'postgres' && quota.used.size > 0) await repo.notifyQueueListeners(trx);
    return due.length;
  });
  if (released > 0) notifyQueued(ctx);
  return released;
}

/** The hourly prune of Idempotency-Keys past their window (idempotency.repository.ts). */
export function pruneIdempotency(ctx: Pick<AppContext, 'db'>): Promise<void> {
  return pruneIdempotencyKeys(ctx.db);
}
