// Unsubscribe and resubscribe (docs/console-reports.md §2 "Unsubscribe pages", §7 POST /v1/unsubscribe
// and /v1/resubscribe): a recipient, named by one of their transactions, leaves or rejoins the
// sending customer's list. Each effective change appends one event in the same database
// transaction; repeating either changes nothing and appends nothing.
import type { AppContext } from '../core/context.ts';
import { recordResubscribe, recordUnsubscribe } from '../lifecycle/lifecycle.service.ts';
import { DomainError, isRefusal } from '../core/errors.ts';
import { findTransactionByUuid, type UnsubscribeTarget } from './unsubscribe.repository.ts';
import { inTransaction } from '../core/transaction.ts';
// where the request came from, recorded in the event's data
import type { UnsubscribeChannel } from '../../contract/values.ts';

/** The "Unsubscribe response" of docs/console-reports.md §3: message, redirect. */
export interface UnsubscribeAnswer {
  message: string;
  /** Where the page goes next; we have no per-customer landing page, so always null for now. */
  redirect: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const UNSUBSCRIBED_MESSAGE = 'You have been unsubscribed.';
export const RESUBSCRIBED_MESSAGE = 'You have been resubscribed.';
export const INVALID_LINK_MESSAGE = 'This unsubscribe link is not valid.';

/** The transaction an id names; a malformed id is treated like a missing one (never a 500 from the uuid column). */
async function target(db: AppContext['db'], transactionId: string): Promise<UnsubscribeTarget> {
  const found = UUID.test(transactionId) ? await findTransactionByUuid(db, transactionId.toLowerCase()) : undefined;
  if (!found) throw new DomainError('not_found', INVALID_LINK_MESSAGE);
  return found;
}

/** Whether an unsubscribe link names a real transaction (pages show the Error state otherwise); changes nothing. */
export async function isKnownTransaction(ctx: AppContext, transactionId: string): Promise<boolean> {
  return UUID.test(transactionId) && (await findTransactionByUuid(ctx.db, transactionId.toLowerCase())) !== undefined;
}

/**
 * Puts the transaction's recipient on its customer's suppression list (origin 'unsubscribe') and
 * appends an `unsubscribe` event, unless the address is listed already (under any origin).
 * Throws DomainError('not_found') for an unknown or malformed id. `at` is set only by the demo's history.
 */
export async function unsubscribe(
  ctx: AppContext,
  transactionId: string,
  via: UnsubscribeChannel,
  at = new Date(),
): Promise<UnsubscribeAnswer> {
  await inTransaction(ctx.db, async (trx) => {
    const tx = await target(trx, transactionId);
    // of two clicks racing here, one lists the address and records the event (lifecycle/policy.ts)
    await recordUnsubscribe(trx, ctx, { tx, at, data: { email: tx.to_email, via } });
  });
  return { message: UNSUBSCRIBED_MESSAGE, redirect: null };
}

/**
 * Takes the recipient off the list again, but only an entry an unsubscribe made (a hard bounce or
 * the customer's own entry stays), and appends a `resubscribe` event when one was removed.
 */
export async function resubscribe(
  ctx: AppContext,
  transactionId: string,
  via: UnsubscribeChannel,
): Promise<UnsubscribeAnswer> {
  await inTransaction(ctx.db, async (trx) => {
    const tx = await target(trx, transactionId);
    await recordResubscribe(trx, ctx, { tx, at: new Date(), data: { email: tx.to_email, via } });
  });
  return { message: RESUBSCRIBED_MESSAGE, redirect: null };
}

/**
 * An unsubscribe the bounce receiver got by mail: the mailto: form of List-Unsubscribe (RFC 2369 §3.2),
 * where any message to the address unsubscribes, or a feedback loop's report of type unsubscribe.
 * False when the transaction is gone, so the sender is not told to retry.
 */
export async function unsubscribeByMail(
  ctx: AppContext,
  transactionUuid: string,
  via: Extract<UnsubscribeChannel, 'mailto' | 'feedback_report'> = 'mailto',
): Promise<boolean> {
  try {
    await unsubscribe(ctx, transactionUuid, via);
    return true;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'not_found') return false;
    throw err;
  }
}

/** What the unsubscribe pages render after a form POST (JavaScript off): the answer, or the Error state's message. */
export type SubscriptionOutcome = ({ ok: true } & UnsubscribeAnswer) | { ok: false; message: string };

/** The pages' form POST: the same change as the JSON calls, with an expected failure as a value. */
export async function changeSubscription(
  ctx: AppContext,
  transactionId: string,
  action: 'unsubscribe' | 'resubscribe',
): Promise<SubscriptionOutcome> {
  try {
    const answer =
      action === 'unsubscribe'
        ? await unsubscribe(ctx, transactionId, 'page')
        : await resubscribe(ctx, transactionId, 'page');
    return { ok: true, ...answer };
  } catch (err) {
    if (isRefusal(err)) return { ok: false, message: err.message };
    throw err;
  }
}
