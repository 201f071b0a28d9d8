// The writes of accepting mail (sending.service.ts's group commit): each function is one statement
// run inside the commit's transaction, in the order the service takes locks, so concurrent commits
// cannot deadlock (docs/architecture.md §5.1). The transactions themselves are the lifecycle's
// (lifecycle/transitions.repository.ts).
import { sql, type Insertable } from 'kysely';
import type { Database } from '../db/database.ts';
import type { MessagesTable } from '../db/schema.ts';

/** The settings acceptance reads of each customer. */
export function customerSettings(trx: Database, customerIds: number[]) {
  return trx
    .selectFrom('customers')
    .select(['id', 'monthly_quota', 'disable_suppression', 'is_system'])
    .where('id', 'in', customerIds)
    .execute();
}

/**
 * One statement that creates each quota_usage month row if needed and locks it (DO UPDATE takes
 * the row lock); answers the used count of each. `keys` come sorted, for a stable lock order.
 */
export function lockQuotaUsage(trx: Database, keys: { customer_id: number; month: string }[]) {
  return trx
    .insertInto('quota_usage')
    .values(keys.map((u) => ({ ...u, used: 0 })))
    .onConflict((oc) => oc.columns(['customer_id', 'month']).doUpdateSet({ used: sql`quota_usage.used` }))
    .returning(['customer_id', 'used', sql<string>`to_char(quota_usage.month, 'YYYY-MM-DD')`.as('month')])
    .execute();
}

export interface GroupUse {
  uuid: string;
  customer_id: number;
  name: string;
  last_send_at: Date;
  created_at?: Date;
}

/** Groups created on first use, their last send date moved forward; answers each one's id. */
export function upsertGroups(trx: Database, groups: GroupUse[]) {
  return trx
    .insertInto('transaction_groups')
    .values(groups)
    .onConflict((oc) =>
      oc.columns(['customer_id', 'name']).doUpdateSet({ last_send_at: (eb) => eb.ref('excluded.last_send_at') }),
    )
    .returning(['id', 'customer_id', 'name'])
    .execute();
}

/** The customers' suppression-list entries among `emails` (lower case), compared case-insensitively. */
export function suppressedAmong(trx: Database, customerIds: number[], emails: string[]) {
  return trx
    .selectFrom('suppressions')
    .select(['customer_id', 'email'])
    .where('customer_id', 'in', customerIds)
    .where(sql<string>`lower(email)`, 'in', emails)
    .execute();
}

export function insertMessages(trx: Database, rows: Insertable<MessagesTable>[]) {
  return trx.insertInto('messages').values(rows).returning('id').execute();
}

/** Counts `n` more sent against a customer's month (its row was locked by lockQuotaUsage). */
export async function addQuotaUsed(trx: Database, customerId: number, month: string, n: number): Promise<void> {
  await trx
    .updateTable('quota_usage')
    .set({ used: sql`used + ${n}` })
    .where('customer_id', '=', customerId)
    .where('month', '=', month)
    .execute();
}

/** Wakes delivery workers in other processes at COMMIT (PostgreSQL's LISTEN/NOTIFY). */
export async function notifyQueueListeners(trx: Database): Promise<void> {
  await sql`select pg_notify('transact_queue', '')`.execute(trx);
}
