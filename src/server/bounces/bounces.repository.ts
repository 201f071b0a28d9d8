// The queries of the bounce receiver: find the transaction a VERP token or a feedback report names
// (locked, so two copies of one report arriving together count once) and mark it bounced.
import type { Database } from '../db/database.ts';
import type { DeliveredStatus, TransStatus } from '../db/schema.ts';

export interface BounceTarget {
  id: number;
  customer_id: number;
  group_id: number;
  to_email: string;
  message_id_header: string;
  status: TransStatus;
  delivered_status: DeliveredStatus;
}

const selectTarget = (db: Database, uuid: string) =>
  db
    .selectFrom('transactions')
    .select(['id', 'customer_id', 'group_id', 'to_email', 'message_id_header', 'status', 'delivered_status'])
    .where('uuid', '=', uuid);

/** The transaction with this uuid, locked FOR UPDATE until the surrounding transaction ends. */
export async function lockTransactionByUuid(db: Database, uuid: string): Promise<BounceTarget | undefined> {
  return selectTarget(db, uuid).forUpdate().executeTakeFirst();
}

/** The transaction with this uuid, read without a lock. */
export async function findTransactionByUuid(db: Database, uuid: string): Promise<BounceTarget | undefined> {
  return selectTarget(db, uuid).executeTakeFirst();
}

/**
 * Records a bounce on a transaction that is still queued (it becomes failed: no further attempts)
 * or was sent (it stays sent; docs/architecture.md §5.3). Returns false
 * when the row was in neither state, so nothing was changed.
 */
export async function markBounced(
  db: Database,
  id: number,
  bounce: { type: 'hard' | 'soft'; reason: string },
): Promise<boolean> {
  const result = await db
    .updateTable('transactions')
    .set((eb) => ({
      status: eb
        .case()
        .when('status', '=', 'queued')
        .then('failed' as const)
        .else(eb.ref('status'))
        .end(),
      delivered_status: 'bounced',
      next_attempt_at: null,
      locked_until: null,
      bounce_type: bounce.type,
      bounce_reason: bounce.reason,
    }))
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([eb('status', '=', 'sent'), eb('delivered_status', 'in', ['pending', 'delivered'])]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Puts the address on the customer's suppression list (origin 'bounce', listed at `at`) unless it is there already. */
export async function suppressBounced(db: Database, customerId: number, email: string, at = new Date()): Promise<void> {
  await db
    .insertInto('suppressions')
    .values({ customer_id: customerId, email, origin: 'bounce', created_at: at })
    .onConflict((oc) => oc.columns(['customer_id', 'email']).doNothing())
    .execute();
}

/** Whether the customer has switched suppression off (then bounces do not add to the list). */
export async function suppressionDisabled(db: Database, customerId: number): Promise<boolean> {
  const row = await db
    .selectFrom('customers')
    .select('disable_suppression')
    .where('id', '=', customerId)
    .executeTakeFirst();
  return row?.disable_suppression ?? false;
}
