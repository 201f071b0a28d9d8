// A scheduled message moved to another moment or canceled, by the id of any of its recipients
// (Resend's PATCH /emails/{id} and POST /emails/{id}/cancel, and the console's Cancel): every
// recipient still scheduled changes together, through the lifecycle. A message already released,
// sent or canceled is refused with its state.
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { inTransaction } from '../core/transaction.ts';
import type { Database } from '../db/database.ts';
import { lockScheduled, recordCanceled, recordRescheduled, type Subject } from './lifecycle.service.ts';
import { readScheduledAt } from './scheduled-at.ts';
import { findMessageOf } from './transitions.repository.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The message's recipients still scheduled, locked; 404 for another account's id, 422 when none waits. */
async function scheduledOf(trx: Database, customerId: number, id: string, doing: string): Promise<Subject[]> {
  const found = UUID.test(id) ? await findMessageOf(trx, customerId, id.toLowerCase()) : undefined;
  if (!found) throw new DomainError('not_found', 'No email with this id in this account');
  const waiting = await lockScheduled(trx, customerId, Number(found.message_id));
  if (waiting.length === 0) {
    const why = found.status === 'canceled' ? 'it was canceled' : 'it has been released for sending';
    throw new DomainError('unprocessable', `This email cannot be ${doing}: it is no longer scheduled (${why})`);
  }
  return waiting;
}

/** Moves a scheduled message to `text` (ISO 8601 or words, as at sending). */
export async function rescheduleEmail(ctx: AppContext, customerId: number, id: string, text: string): Promise<void> {
  const now = new Date();
  const read = readScheduledAt(text, now);
  if ('problem' in read)
    throw new DomainError('validation_failed', `Invalid request: scheduled_at: ${read.problem}`, {
      details: [{ path: 'scheduled_at', message: read.problem }],
    });
  await inTransaction(ctx.db, async (trx) => {
    const waiting = await scheduledOf(trx, customerId, id, 'moved');
    await recordRescheduled(trx, ctx, waiting, now, read.at);
  });
}

/** Cancels a scheduled message for good: nothing is sent, and a later change is refused. */
export async function cancelEmail(ctx: AppContext, customerId: number, id: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const waiting = await scheduledOf(trx, customerId, id, 'canceled');
    await recordCanceled(trx, ctx, waiting, new Date());
  });
}
