// The queries only the demo needs: finding and deleting the demo account, and claiming its own
// freshly accepted transactions for their recorded delivery (as claimDue does for the worker, but
// by id, so no other customer's queued mail is ever touched).
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { ClaimedTransaction } from '../delivery/queue.repository.ts';
import { deleteDailyStats } from '../stats/stats.repository.ts';

export interface DemoAccount {
  enterpriseId: number;
  customerId: number;
}

/** The demo customer (`customerName` under an enterprise named `enterpriseName`), if there is one. */
export async function findDemoAccount(
  db: Database,
  enterpriseName: string,
  customerName: string,
): Promise<DemoAccount | undefined> {
  const row = await db
    .selectFrom('customers as c')
    .innerJoin('enterprises as e', 'e.id', 'c.enterprise_id')
    .select(['e.id as enterpriseId', 'c.id as customerId'])
    .where('e.name', '=', enterpriseName)
    .where('c.name', '=', customerName)
    .orderBy('c.id')
    .executeTakeFirst();
  return row && { enterpriseId: Number(row.enterpriseId), customerId: Number(row.customerId) };
}

/**
 * Deletes the demo enterprise and everything under it; the caller runs it in one transaction
 * (demo.ts). The rollups and keys without a foreign key go too; the rest cascades from the
 * enterprise (customers, users, domains, groups, messages, transactions, events, links,
 * suppressions, credentials, webhooks). transaction_counts goes last: the cascade's deletes of
 * transactions update it (migration 007).
 */
export async function deleteDemoAccount(trx: Database, account: DemoAccount): Promise<void> {
  const customerIds = (
    await trx.selectFrom('customers').select('id').where('enterprise_id', '=', account.enterpriseId).execute()
  ).map((c) => Number(c.id));
  if (customerIds.length > 0) {
    await deleteDailyStats(trx, customerIds);
    await trx.deleteFrom('quota_usage').where('customer_id', 'in', customerIds).execute();
    await trx.deleteFrom('idempotency_keys').where('customer_id', 'in', customerIds).execute();
  }
  await trx.deleteFrom('enterprises').where('id', '=', account.enterpriseId).execute();
  if (customerIds.length > 0)
    await trx.deleteFrom('transaction_counts').where('customer_id', 'in', customerIds).execute();
}

/**
 * Claims the still-queued transactions among `uuids` for one attempt, as claimDue does (attempts + 1,
 * a lease in locked_until), and returns them as the worker sees them.
 */
export async function claimByUuids(
  db: Database,
  uuids: readonly string[],
  leaseSeconds: number,
): Promise<ClaimedTransaction[]> {
  const out: ClaimedTransaction[] = [];
  // in slices: one statement may carry at most 65,535 parameters
  for (let i = 0; i < uuids.length; i += 5000) {
    const slice = uuids.slice(i, i + 5000);
    const result = await sql<ClaimedTransaction>`
      update transactions
         set locked_until = now() + make_interval(secs => ${leaseSeconds}),
             attempts = attempts + 1
       where uuid in (${sql.join(slice.map((uuid) => sql`${uuid}::uuid`))}) and status = 'queued'
      returning id, uuid, customer_id, message_id, group_id, to_email, to_name, message_id_header, attempts,
        queued_at`.execute(db);
    out.push(
      ...result.rows.map((r) => ({
        ...r,
        id: Number(r.id),
        message_id: Number(r.message_id),
        group_id: Number(r.group_id),
        queued_at: new Date(r.queued_at),
      })),
    );
  }
  return out;
}
