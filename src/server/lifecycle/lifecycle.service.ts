// One lifecycle per message: every change of a message's state is written here, from the policy
// table (policy.ts), inside the caller's database transaction: its status (transitions.repository.ts),
// its events and their webhook rows (events/), the daily counters (stats/) and the suppression it
// causes (suppressions/). Acceptance, the delivery worker, the bounce and complaint receiver,
// tracking, unsubscribe and downloads call the functions below; none writes those rows itself.
import type { AppContext } from '../core/context.ts';
import type { Database } from '../db/database.ts';
import type { CounterDelta } from '../db/counters.ts';
import type { Insertable } from 'kysely';
import type { TransactionsTable, TransStatus } from '../db/schema.ts';
import { hasEvent, insertEvents, type NewEvent } from '../events/events.repository.ts';
import { bumpDailyStats, statDay, type StatDelta } from '../stats/stats.repository.ts';
import { removeUnsubscribed, suppressRecipients } from '../suppressions/suppressions.repository.ts';
import { type Facts, type Outcome, POLICY, type Writes } from './policy.ts';
import {
  type AttemptUpdate,
  addHits,
  applyAttempts,
  insertTransactions,
  leaveSchedule,
  lockScheduledOfMessage,
  dueScheduledRows,
  markBounced,
  moveSchedule,
} from './transitions.repository.ts';

/** The message (one transaction: one recipient) something happened to. */
export interface Subject {
  id: number;
  customer_id: number;
  group_id: number;
  /** The recipient: needed where the outcome suppresses (a bounce, a complaint, an unsubscribe). */
  to_email?: string;
}

/** Something that happened to a message, with what the policy needs to know and the event's data. */
export interface Occurrence {
  tx: Subject;
  outcome: Outcome;
  at: Date;
  facts?: Facts;
  data?: Record<string, unknown> | null;
}

type Ctx = Pick<AppContext, 'config' | 'lookups'>;

/** The events of occurrences, in the policy's order; a `queued` event carries no data. */
function eventsOf(planned: { o: Occurrence; w: Writes }[]): NewEvent[] {
  return planned.flatMap(({ o, w }) =>
    w.events.map((type) => ({
      customer_id: o.tx.customer_id,
      transaction_id: o.tx.id,
      type,
      at: o.at,
      data: type === 'queued' ? null : (o.data ?? null),
    })),
  );
}

function countsOf(planned: { o: Occurrence; w: Writes }[]): StatDelta[] {
  return planned
    .filter(({ w }) => Object.keys(w.counts).length > 0)
    .map(({ o, w }) => ({
      customer_id: o.tx.customer_id,
      group_id: o.tx.group_id,
      day: statDay(o.at),
      counts: w.counts,
    }));
}

function recipientOf(o: Occurrence): string {
  if (o.tx.to_email === undefined) throw new Error(`a ${o.outcome} needs the recipient of transaction ${o.tx.id}`);
  return o.tx.to_email;
}

function suppressionsOf(planned: { o: Occurrence; w: Writes }[]) {
  return planned.flatMap(({ o, w }) =>
    w.suppress
      ? [{ customer_id: o.tx.customer_id, email: recipientOf(o), at: o.at, transaction_id: o.tx.id, ...w.suppress }]
      : [],
  );
}

/** Appends the occurrences' events (with their webhook rows), counts them and lists whom they suppress. */
async function write(trx: Database, ctx: Ctx, occurrences: Occurrence[]): Promise<void> {
  const planned = occurrences.map((o) => ({ o, w: POLICY[o.outcome](o.facts ?? {}) }));
  await insertEvents(trx, eventsOf(planned), ctx);
  await bumpDailyStats(trx, countsOf(planned));
  await suppressRecipients(trx, suppressionsOf(planned));
}

/**
 * Records what a guarded state change (already tried) stands for, only when it took, so a repeated
 * report is recorded once; answers whether it took.
 */
async function writeIfChanged(trx: Database, ctx: Ctx, changed: boolean, occurrence: Occurrence): Promise<boolean> {
  if (changed) await write(trx, ctx, [occurrence]);
  return changed;
}

/** A recipient's transaction as acceptance plans it: its row, and what acceptance made of it. */
export interface NewTransaction {
  outcome: 'accepted' | 'suppressed' | 'over_quota' | 'scheduled';
  at: Date;
  /** scheduled: when it is to be sent (it waits until then, due at that moment). */
  scheduledAt?: Date;
  /** Why it failed at once (the failed event's reason and the row's last reply); null when queued. */
  reason: string | null;
  row: Omit<
    Insertable<TransactionsTable>,
    'status' | 'delivered_status' | 'queued_at' | 'next_attempt_at' | 'last_reply'
  >;
}

/**
 * Acceptance: stores the transactions with the status the policy gives each outcome (a queued one
 * due at once) and records them. Chunked: one statement may carry at most 65,535 parameters.
 */
export async function recordAccepted(trx: Database, ctx: Ctx, accepted: NewTransaction[]): Promise<void> {
  for (let i = 0; i < accepted.length; i += 2000) {
    const chunk = accepted.slice(i, i + 2000);
    const stored = await insertTransactions(
      trx,
      chunk.map(({ outcome, at, reason, row, scheduledAt }) => {
        const w = POLICY[outcome]({});
        const due = w.status === 'queued' ? at : w.status === 'scheduled' ? (scheduledAt ?? at) : null;
        return {
          ...row,
          status: w.status!,
          delivered_status: w.delivered!,
          queued_at: at,
          next_attempt_at: due,
          scheduled_at: scheduledAt ?? null,
          last_reply: reason,
        };
      }),
    );
    const byUuid = new Map(stored.map((t) => [t.uuid, t]));
    await write(
      trx,
      ctx,
      chunk.map(({ outcome, at, reason, row, scheduledAt }) => ({
        tx: byUuid.get(row.uuid)!,
        outcome,
        at,
        data: reason ? { reason } : scheduledAt ? { scheduled_at: scheduledAt } : null,
      })),
    );
  }
}

/** One delivery attempt's outcome, as the worker judged it (retry schedule and remote answer). */
export interface Attempt extends Occurrence {
  outcome: 'delivered' | 'deferred' | 'bounced' | 'expired';
  attempts: number;
  reply: string;
  /** deferred: when the next attempt is due */
  nextAttemptAt?: Date;
}

/** The row update of one attempt, from the policy. */
function updateOf(a: Attempt): AttemptUpdate {
  const w = POLICY[a.outcome](a.facts ?? {});
  const ended = a.outcome === 'bounced' || a.outcome === 'expired';
  return {
    id: a.tx.id,
    attempts: a.attempts,
    status: w.status!,
    delivered_status: w.delivered!,
    sent_at: a.outcome === 'delivered' ? a.at : null,
    next_attempt_at: a.outcome === 'deferred' ? (a.nextAttemptAt ?? null) : null,
    last_reply: a.reply,
    bounce_type: w.bounce,
    bounce_reason: ended ? a.reply : null,
  };
}

/**
 * Delivery attempts: each still this attempt's (an expired lease writes nothing) moves to its
 * status and is recorded. Returns the ids that were.
 */
export async function recordAttempts(trx: Database, ctx: Ctx, attempts: Attempt[]): Promise<Set<number>> {
  const applied = await applyAttempts(trx, attempts.map(updateOf));
  await write(
    trx,
    ctx,
    attempts.filter((a) => applied.has(a.tx.id)),
  );
  return applied;
}

/**
 * A bounce report (DSN) on a message that is queued or was sent and not bounced yet; false when it
 * was in neither state (a repeated report counts once). The caller holds the row's lock.
 */
export async function recordBounceReport(
  trx: Database,
  ctx: Ctx,
  report: Omit<Occurrence, 'outcome'> & { tx: Subject & { status: TransStatus }; reason: string },
): Promise<boolean> {
  const facts = { ...report.facts, from: report.tx.status };
  const w = POLICY.bounce_report(facts);
  const marked = await markBounced(trx, report.tx.id, { status: w.status!, type: w.bounce!, reason: report.reason });
  return writeIfChanged(trx, ctx, marked, { ...report, outcome: 'bounce_report', facts });
}

/** A complaint (a feedback-loop report); false when the message has one already (recorded once). */
export async function recordComplaint(
  trx: Database,
  ctx: Ctx,
  complaint: Omit<Occurrence, 'outcome'>,
): Promise<boolean> {
  const first = !(await hasEvent(trx, complaint.tx.id, 'complaint'));
  return writeIfChanged(trx, ctx, first, { ...complaint, outcome: 'complaint' });
}

/** Opens and clicks, each judged a person's or a machine's by the caller (tracking/machine-rules.ts). */
export async function recordOpensAndClicks(
  trx: Database,
  ctx: Ctx,
  hits: (Occurrence & { outcome: 'open' | 'click'; facts: { machine: boolean } })[],
): Promise<void> {
  // people's hits move the transactions' counters; the first of each kind there is a unique one
  const deltas = (kind: 'open' | 'click') => {
    const byTx = new Map<number, CounterDelta>();
    for (const h of hits)
      if (h.outcome === kind && !h.facts.machine) {
        const d = byTx.get(h.tx.id) ?? { id: h.tx.id, count: 0, at: h.at };
        d.count += 1;
        if (h.at < d.at) d.at = h.at;
        byTx.set(h.tx.id, d);
      }
    return [...byTx.values()];
  };
  const firsts = {
    open: await addHits(trx, 'open', deltas('open')),
    click: await addHits(trx, 'click', deltas('click')),
  };
  await write(
    trx,
    ctx,
    hits.map((h) => ({ ...h, facts: { ...h.facts, first: !h.facts.machine && firsts[h.outcome].delete(h.tx.id) } })),
  );
}

/**
 * An unsubscribe: the recipient listed with origin unsubscribe and the event appended, only when
 * the address was not listed already (under any spelling or origin); false when nothing changed.
 */
export async function recordUnsubscribe(
  trx: Database,
  ctx: Ctx,
  unsubscribe: Omit<Occurrence, 'outcome'>,
): Promise<boolean> {
  const planned = [{ o: { ...unsubscribe, outcome: 'unsubscribe' as const }, w: POLICY.unsubscribe({}) }];
  if ((await suppressRecipients(trx, suppressionsOf(planned))).size === 0) return false;
  await insertEvents(trx, eventsOf(planned), ctx);
  return true;
}

/** A resubscribe takes off the entry an unsubscribe made, and only then appends its event. */
export async function recordResubscribe(
  trx: Database,
  ctx: Ctx,
  resubscribe: Omit<Occurrence, 'outcome'>,
): Promise<boolean> {
  const occurrence = { ...resubscribe, outcome: 'resubscribe' as const };
  const removed = await removeUnsubscribed(trx, resubscribe.tx.customer_id, recipientOf(occurrence));
  return writeIfChanged(trx, ctx, removed, occurrence);
}

/** A download of an online attachment from a link in the message. */
export async function recordDownload(trx: Database, ctx: Ctx, download: Omit<Occurrence, 'outcome'>): Promise<void> {
  await write(trx, ctx, [{ ...download, outcome: 'download' }]);
}

/** Scheduled transactions whose moment came, locked for their release (sending.service.ts decides each). */
export function lockDueScheduled(trx: Database, limit: number): Promise<Subject[]> {
  return dueScheduledRows(trx, limit);
}

/**
 * Scheduled messages whose moment came: each released to the queue (due at once), or no_quota when
 * the month's quota is used up then (acceptance decides which, sending.service.ts).
 */
export async function recordReleased(
  trx: Database,
  ctx: Ctx,
  released: (Omit<Occurrence, 'outcome' | 'data'> & { outcome: 'released' | 'over_quota'; reason: string | null })[],
): Promise<void> {
  const moved = await leaveSchedule(
    trx,
    released.map(({ tx, outcome, reason }) => {
      const w = POLICY[outcome]({ from: 'scheduled' });
      return { id: tx.id, status: w.status!, delivered_status: w.delivered!, last_reply: reason };
    }),
  );
  await write(
    trx,
    ctx,
    released
      .filter((r) => moved.has(r.tx.id))
      .map((r) => ({ ...r, facts: { from: 'scheduled' }, data: r.reason ? { reason: r.reason } : null })),
  );
}

/** A message's transactions still scheduled, locked, to move or cancel them. */
export function lockScheduled(trx: Database, customerId: number, messageId: number): Promise<Subject[]> {
  return lockScheduledOfMessage(trx, customerId, messageId);
}

/** Scheduled transactions canceled for good: nothing is sent. Answers how many were still scheduled. */
export async function recordCanceled(trx: Database, ctx: Ctx, txs: Subject[], at: Date): Promise<number> {
  const w = POLICY.canceled({});
  const moved = await leaveSchedule(
    trx,
    txs.map((tx) => ({ id: tx.id, status: w.status!, delivered_status: w.delivered!, last_reply: 'canceled' })),
  );
  await write(
    trx,
    ctx,
    txs.filter((tx) => moved.has(tx.id)).map((tx) => ({ tx, outcome: 'canceled' as const, at })),
  );
  return moved.size;
}

/** Scheduled transactions moved to another moment (the caller holds their locks). */
export async function recordRescheduled(trx: Database, ctx: Ctx, txs: Subject[], at: Date, to: Date): Promise<void> {
  await moveSchedule(
    trx,
    txs.map((tx) => tx.id),
    to,
  );
  await write(
    trx,
    ctx,
    txs.map((tx) => ({ tx, outcome: 'rescheduled' as const, at, data: { scheduled_at: to } })),
  );
}
