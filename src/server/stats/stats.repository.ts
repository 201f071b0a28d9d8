// The daily_stats rollups (docs/architecture.md §4.2), written and read here only: updated in the same database
// transaction as the change they count, in one statement per batch — never by scanning transactions at read
// time, and never one upsert per message; read by the figures (figures.ts). They count what happens on a day
// (people's and machines' opens and clicks, complaints received); the states of transactions are counted by
// transaction_counts. Days are UTC days, as the rollup is keyed.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { hasRow } from '../db/has-row.ts';
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
  const verified = await hasRow(
    db.selectFrom('domains').select('id').where('customer_id', '=', customerId).where('sending_verified', '=', true),
  );
  if (!verified) return false;
  // any accepted transaction: the first rollup row with one, not the all-time sum
  return hasRow(
    db.selectFrom('transaction_counts').select('day').where('customer_id', '=', customerId).where('n', '>', 0),
  );
}

/** Sums of one day (or one group) across the rollup's columns. */
export type StatTotals = Record<StatColumn, number>;

/** The totals of a day or group without rollup rows. */
export const NO_TOTALS: Readonly<StatTotals> = Object.freeze(
  Object.fromEntries(STAT_COLUMNS.map((column) => [column, 0])) as StatTotals,
);

// sum(integer) is bigint and may come back as text on some drivers; coalesce makes an empty sum 0
const sums = STAT_COLUMNS.map((column) => sql<string | number>`coalesce(sum(${sql.ref(column)}), 0)`.as(column));

function totalsOf(row: Record<StatColumn, string | number>): StatTotals {
  return Object.fromEntries(STAT_COLUMNS.map((column) => [column, Number(row[column])])) as StatTotals;
}

/**
 * Which rows of a per-day, per-group rollup: optionally one group's, between two UTC days (both
 * included; null: unbounded).
 */
export interface RollupSlice {
  groupId: number | null;
  firstDay: string | null;
  lastDay: string | null;
}

/** The customer's slice of a per-day, per-group rollup: daily_stats, or transaction_counts (reports/). */
export function rollupSlice(
  db: Database,
  table: 'daily_stats' | 'transaction_counts',
  customerId: number,
  slice: RollupSlice,
) {
  let query = db.selectFrom(table).where('customer_id', '=', customerId);
  if (slice.groupId !== null) query = query.where('group_id', '=', slice.groupId);
  if (slice.firstDay !== null) query = query.where('day', '>=', slice.firstDay);
  if (slice.lastDay !== null) query = query.where('day', '<=', slice.lastDay);
  return query;
}

/** The totals of the customer's slice. */
export async function totalsOfSlice(db: Database, customerId: number, slice: RollupSlice): Promise<StatTotals> {
  return totalsOf(await rollupSlice(db, 'daily_stats', customerId, slice).select(sums).executeTakeFirstOrThrow());
}

/**
 * The customer's totals per UTC day from `first` to `last` (both included), of the group `groupId` or of all
 * groups together (null: the dashboard); days without rows are absent (group reports, docs/console-reports.md §7).
 */
export async function totalsPerDay(
  db: Database,
  customerId: number,
  first: string,
  last: string,
  groupId: number | null = null,
): Promise<Map<string, StatTotals>> {
  const rows = await rollupSlice(db, 'daily_stats', customerId, { groupId, firstDay: first, lastDay: last })
    .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), ...sums])
    .groupBy('day')
    .execute();
  return new Map(rows.map((row) => [row.day, totalsOf(row)]));
}

/** All-time totals of each of the customer's groups in `groupIds`; groups without rows are absent. */
export async function totalsPerGroup(
  db: Database,
  customerId: number,
  groupIds: readonly number[],
): Promise<Map<number, StatTotals>> {
  if (groupIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('daily_stats')
    .select(['group_id', ...sums])
    .where('customer_id', '=', customerId)
    .where('group_id', 'in', groupIds)
    .groupBy('group_id')
    .execute();
  return new Map(rows.map((row) => [Number(row.group_id), totalsOf(row)]));
}

/** Deletes the rollups of these customers (the demo account's removal). */
export async function deleteDailyStats(db: Database, customerIds: number[]): Promise<void> {
  if (customerIds.length > 0) await db.deleteFrom('daily_stats').where('customer_id', 'in', customerIds).execute();
}
