// Feedback-loop reports (RFC 5965) received at the return path. A complaint — the recipient
// pressed "Report spam" — is recorded on the transaction the report is about: a `complaint` event
// (and its webhook row), the recipient suppressed with origin complaint, and daily_stats, all in one
// database transaction. A report of type unsubscribe unsubscribes as the List-Unsubscribe mailto:
// would; not-spam and unknown types, and reports about no transaction of ours, change nothing.
import type { AppContext } from '../core/context.ts';
import type { Database } from '../db/database.ts';
import { inTransaction } from '../core/transaction.ts';
import { recordComplaint } from '../lifecycle/lifecycle.service.ts';
import { unsubscribeByMail } from '../unsubscribe/unsubscribe.service.ts';
import { type FeedbackReport, feedbackActionOf, type ReturnPathKeys, reportedTransactions } from './arf.ts';
import { type BounceTarget, findTransactionByUuid, lockTransactionByUuid } from './bounces.repository.ts';
import type { ParsedBounce } from './parse-dsn.ts';

/** What a feedback report did to one transaction it may be about. */
export type FeedbackOutcome =
  | 'complaint_recorded'
  | 'already_recorded'
  | 'unsubscribed'
  | 'not_a_complaint'
  | 'unknown_transaction'
  | 'other_message';

/** What of a parsed report the recorders need. */
export type ReceivedReport = Pick<ParsedBounce, 'originalMessageId'> & { feedback: FeedbackReport };

/**
 * The VERP address is visible to every recipient, and anyone may write to the feedback address: a
 * report whose original carries another Message-ID than the transaction's is not about it.
 */
function isAbout(tx: BounceTarget, report: ReceivedReport): boolean {
  return report.originalMessageId === null || report.originalMessageId === tx.message_id_header;
}

/**
 * Runs `apply` in one database transaction with the transaction `uuid` locked, so two reports about
 * it (DSNs, complaints) apply one after the other; 'unknown_transaction' when there is no such one.
 */
export async function applyToTransaction<T>(
  ctx: AppContext,
  uuid: string,
  apply: (trx: Database, tx: BounceTarget) => Promise<T>,
): Promise<T | 'unknown_transaction'> {
  return inTransaction(ctx.db, async (trx) => {
    const tx = await lockTransactionByUuid(trx, uuid);
    if (!tx) return 'unknown_transaction';
    return apply(trx, tx);
  });
}

/**
 * Records a complaint on the transaction `uuid` in one database transaction, through the lifecycle
 * (lifecycle/policy.ts): the `complaint` event (with its webhook row), daily_stats' complaints, and
 * the recipient on the suppression list with origin complaint unless listed already under any
 * spelling or origin. The recipient's own word, like an unsubscribe: added even when the customer
 * disabled suppression (sending then ignores the list). A second report about the same transaction
 * changes nothing.
 */
export async function receiveComplaint(
  ctx: AppContext,
  uuid: string,
  report: ReceivedReport,
  at = new Date(),
): Promise<FeedbackOutcome> {
  return applyToTransaction(ctx, uuid, async (trx, tx) => {
    if (!isAbout(tx, report)) return 'other_message';
    const { feedbackType, userAgent, arrivalDate } = report.feedback;
    // the keys the complaint webhook carries (webhooks/payload.ts) and the timeline reads
    const data = { feedback_type: feedbackType, user_agent: userAgent, arrival_date: arrivalDate };
    return (await recordComplaint(trx, ctx, { tx, at, data })) ? 'complaint_recorded' : 'already_recorded';
  });
}

/** A report of type unsubscribe: the unsubscribe a List-Unsubscribe mailto: makes (unsubscribe.service.ts). */
async function unsubscribeByReport(ctx: AppContext, uuid: string, report: ReceivedReport): Promise<FeedbackOutcome> {
  const tx = await findTransactionByUuid(ctx.db, uuid);
  if (!tx) return 'unknown_transaction';
  if (!isAbout(tx, report)) return 'other_message';
  return (await unsubscribeByMail(ctx, uuid, 'feedback_report')) ? 'unsubscribed' : 'unknown_transaction';
}

/**
 * Acts on a feedback report. `targets` are the transactions the envelope's VERP recipients name;
 * without one (the report came to the feedback address) the report's own references name them
 * (arf.ts). A report is about one message (RFC 5965 §2), so the first transaction it matches takes
 * it. Answers each transaction tried with its outcome; an empty list when the report names none.
 */
export async function receiveFeedback(
  ctx: AppContext,
  keys: ReturnPathKeys,
  targets: string[],
  report: ReceivedReport & Pick<ParsedBounce, 'original'>,
  at = new Date(),
): Promise<{ uuid: string; outcome: FeedbackOutcome }[]> {
  const candidates =
    targets.length > 0
      ? targets
      : reportedTransactions(keys, report.feedback, report.original, report.originalMessageId);
  const action = feedbackActionOf(report.feedback.feedbackType);
  if (action === 'none') return candidates.map((uuid) => ({ uuid, outcome: 'not_a_complaint' }));
  const tried: { uuid: string; outcome: FeedbackOutcome }[] = [];
  for (const uuid of candidates) {
    const outcome =
      action === 'complaint'
        ? await receiveComplaint(ctx, uuid, report, at)
        : await unsubscribeByReport(ctx, uuid, report);
    tried.push({ uuid, outcome });
    if (outcome !== 'unknown_transaction' && outcome !== 'other_message') break;
  }
  return tried;
}
