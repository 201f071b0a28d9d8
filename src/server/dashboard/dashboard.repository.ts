// The dashboard's reads that are not transaction searches: the monthly quota (docs/console.md §2 "Monthly
// Quota progress bar"), from the customer's limit and the quota_usage row sending keeps.
import type { Database } from '../db/database.ts';

/** The customer's monthly limit and what was used in `month` (its first day, YYYY-MM-01); undefined for no customer. */
export async function quotaOf(
  db: Database,
  customerId: number,
  month: string,
): Promise<{ used: number; maximum: number } | undefined> {
  const row = await db
    .selectFrom('customers as c')
    .leftJoin('quota_usage as q', (join) => join.onRef('q.customer_id', '=', 'c.id').on('q.month', '=', month))
    .select(['c.monthly_quota', 'q.used'])
    .where('c.id', '=', customerId)
    .executeTakeFirst();
  return row ? { used: Number(row.used ?? 0), maximum: Number(row.monthly_quota) } : undefined;
}
