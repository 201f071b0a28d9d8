// Reading the daily_stats rollup for the console (docs/architecture.md §4.2: charts and totals come from
// rollups, never from counting transactions). Days are UTC days, as the rollup is keyed.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { STAT_COLUMNS, type StatColumn } from '../db/schema.ts';

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
 * Transactions accepted (the `requests` rollup, bumped on the day of acceptance) for the customer,
 * optionally in one group and between two UTC days (both included; null: unbounded).
 */
export async function sumRequests(
  db: Database,
  customerId: number,
  opts: { groupId: number | null; firstDay: string | null; lastDay: string | null },
): Promise<number> {
  let query = db
    .selectFrom('daily_stats')
    .select(sql<string | number>`coalesce(sum(requests), 0)`.as('total'))
    .where('customer_id', '=', customerId);
  if (opts.groupId !== null) query = query.where('group_id', '=', opts.groupId);
  if (opts.firstDay !== null) query = query.where('day', '>=', opts.firstDay);
  if (opts.lastDay !== null) query = query.where('day', '<=', opts.lastDay);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.total);
}

/**
 * The customer's totals per UTC day from `first` to `last` (both included), all groups together; days without rows are
 * absent.
 */
export async function totalsPerDay(
  db: Database,
  customerId: number,
  first: string,
  last: string,
): Promise<Map<string, StatTotals>> {
  const rows = await db
    .selectFrom('daily_stats')
    .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), ...sums])
    .where('customer_id', '=', customerId)
    .where('day', '>=', first)
    .where('day', '<=', last)
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

/**
 * One group's totals per UTC day from `first` to `last` (both included); days without rows are absent (group reports,
 * docs/console-reports.md §7).
 */
export async function groupTotalsPerDay(
  db: Database,
  customerId: number,
  groupId: number,
  first: string,
  last: string,
): Promise<Map<string, StatTotals>> {
  const rows = await db
    .selectFrom('daily_stats')
    .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), ...sums])
    .where('customer_id', '=', customerId)
    .where('group_id', '=', groupId)
    .where('day', '>=', first)
    .where('day', '<=', last)
    .groupBy('day')
    .execute();
  return new Map(rows.map((row) => [row.day, totalsOf(row)]));
}

/**
 * The totals of the customer's group with this uuid (lower case) over the days from `first` to
 * `last`, found and summed in one query (the overview widget's whole read); undefined when the
 * customer has no such group.
 */
export async function groupTotalsByUuid(
  db: Database,
  customerId: number,
  uuid: string,
  first: string,
  last: string,
): Promise<StatTotals | undefined> {
  const dailySums = STAT_COLUMNS.map((column) =>
    sql<string | number>`coalesce(sum(d.${sql.ref(column)}), 0)`.as(column),
  );
  const row = await db
    .selectFrom('transaction_groups as g')
    .leftJoin('daily_stats as d', (join) =>
      join
        .onRef('d.customer_id', '=', 'g.customer_id')
        .onRef('d.group_id', '=', 'g.id')
        .on('d.day', '>=', first)
        .on('d.day', '<=', last),
    )
    .select(['g.id', ...dailySums])
    .where('g.customer_id', '=', customerId)
    .where('g.uuid', '=', uuid)
    .groupBy('g.id')
    .executeTakeFirst();
  return row && totalsOf(row);
}
