// daily_stats rollups (docs/architecture.md §4.2): updated in the same database transaction as the change they
// count, in one statement per batch — never by scanning transactions at read time, and never one
// upsert per message.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { STAT_COLUMNS, type StatColumn } from '../db/schema.ts';

export interface StatDelta {
  customer_id: number;
  group_id: number;
  /** UTC day, YYYY-MM-DD */
  day: string;
  counts: Partial<Record<StatColumn, number>>;
}

/** The UTC day of a moment, as daily_stats keys it. */
export function statDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Adds the deltas (merged per customer, group and day) to daily_stats in one upsert. */
export async function bumpDailyStats(db: Database, deltas: StatDelta[]): Promise<void> {
  const merged = new Map<string, StatDelta>();
  for (const d of deltas) {
    const key = `${d.customer_id}:${d.group_id}:${d.day}`;
    const into = merged.get(key) ?? { customer_id: d.customer_id, group_id: d.group_id, day: d.day, counts: {} };
    for (const [col, n] of Object.entries(d.counts) as [StatColumn, number][])
      into.counts[col] = (into.counts[col] ?? 0) + n;
    merged.set(key, into);
  }
  if (merged.size === 0) return;
  // a stable order keeps concurrent batches from deadlocking on the same rows
  const rows = [...merged.values()].sort(
    (a, b) => a.customer_id - b.customer_id || a.group_id - b.group_id || a.day.localeCompare(b.day),
  );
  await db
    .insertInto('daily_stats')
    .values(
      rows.map((r) => ({
        customer_id: r.customer_id,
        group_id: r.group_id,
        day: r.day,
        ...Object.fromEntries(STAT_COLUMNS.map((c) => [c, r.counts[c] ?? 0])),
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['customer_id', 'group_id', 'day'])
        .doUpdateSet(
          Object.fromEntries(STAT_COLUMNS.map((c) => [c, sql`daily_stats.${sql.ref(c)} + excluded.${sql.ref(c)}`])),
        ),
    )
    .execute();
}

/**
 * Whether the customer has a sending-verified domain and at least one transaction: the home rule (docs/console.md §4).
 */
export async function hasVerifiedDomainAndTraffic(db: Database, customerId: number): Promise<boolean> {
  const verified = await db
    .selectFrom('domains')
    .select('id')
    .where('customer_id', '=', customerId)
    .where('sending_verified', '=', true)
    .limit(1)
    .executeTakeFirst();
  if (verified === undefined) return false;
  // any accepted transaction: the first rollup row with one, not the all-time sum
  const traffic = await db
    .selectFrom('daily_stats')
    .select('day')
    .where('customer_id', '=', customerId)
    .where('requests', '>', 0)
    .limit(1)
    .executeTakeFirst();
  return traffic !== undefined;
}
