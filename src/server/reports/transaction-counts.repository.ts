// Reading the transaction_counts rollup (migration 007): how many of a customer's transactions a
// search selects, from per-day, per-group, per-state counts kept by triggers on transactions, so
// the total of a filtered search is exact and costs the same at any table size.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { rollupSlice } from '../stats/stats.repository.ts';
import type { TransactionFilter } from './transactions.repository.ts';

/**
 * What the rollup can narrow by: a transaction filter's group and states, with whole UTC days of acceptance (both
 * included; null: unbounded).
 */
export type CountedFilter = Pick<
  TransactionFilter,
  'groupId' | 'statuses' | 'deliveredStatuses' | 'opened' | 'clicked'
> & {
  firstDay: string | null;
  lastDay: string | null;
};

/** The number of the customer's transactions that `filter` selects. */
export async function sumTransactionCounts(db: Database, customerId: number, filter: CountedFilter): Promise<number> {
  let query = rollupSlice(db, 'transaction_counts', customerId, filter).select(
    sql<string | number>`coalesce(sum(n), 0)`.as('total'),
  );
  if (filter.statuses !== null) query = query.where('status', 'in', filter.statuses);
  if (filter.deliveredStatuses !== null) query = query.where('delivered_status', 'in', filter.deliveredStatuses);
  if (filter.opened) query = query.where('opened', '=', true);
  if (filter.clicked) query = query.where('clicked', '=', true);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.total);
}
