// The figures of src/lib/figures.ts for a customer's slice (a group or all, a range of UTC days),
// computed here only: the dashboard, the groups table, the group reports, their charts and donuts,
// the exports' totals, the API and the demo's summary all call these functions.
// - A transaction's state (delivered, bounced hard or soft, failed, pending, opened, clicked) is read
//   from transaction_counts: per day of acceptance, how many transactions are in each state now,
//   kept by triggers on transactions (migrations 007, 029), so the states of a range always add up
//   to its transactions.
// - What happens on a day to messages of any day (people's opens and clicks, machines', complaints)
//   is read from daily_stats (stats.repository.ts).
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Figures } from '../../lib/figures.ts';
import {
  NO_TOTALS,
  type RollupSlice,
  type StatTotals,
  rollupSlice,
  totalsOfSlice,
  totalsPerDay,
  totalsPerGroup,
} from './stats.repository.ts';

/** The sums of transaction_counts that the states are; bigint sums may come back as text. */
const STATE_SUMS = [
  sql<string | number>`coalesce(sum(n), 0)`.as('transactions'),
  sql<string | number>`coalesce(sum(n) filter (where delivered_status = 'delivered'), 0)`.as('delivered'),
  sql<string | number>`coalesce(sum(n) filter (where delivered_status = 'bounced'), 0)`.as('bounced'),
  sql<string | number>`coalesce(sum(n) filter (where delivered_status = 'bounced' and bounce = 'hard'), 0)`.as('hard'),
  sql<string | number>`coalesce(sum(n) filter (where delivered_status = 'failed'), 0)`.as('failed'),
  sql<string | number>`coalesce(sum(n) filter (where delivered_status = 'pending'), 0)`.as('pending'),
  sql<string | number>`coalesce(sum(n) filter (where delivered_status = 'delivered' and opened), 0)`.as('opened'),
  sql<string | number>`coalesce(sum(n) filter (where delivered_status = 'delivered' and clicked), 0)`.as('clicked'),
];

type StateRow = Record<
  'transactions' | 'delivered' | 'bounced' | 'hard' | 'failed' | 'pending' | 'opened' | 'clicked',
  string | number
>;

/** One slice's figures from its state sums and its day totals. */
function figuresOf(states: StateRow | undefined, events: StatTotals): Figures {
  const n = (key: keyof StateRow) => Number(states?.[key] ?? 0);
  return {
    transactions: n('transactions'),
    delivered: n('delivered'),
    bounced: n('bounced'),
    bouncesHard: n('hard'),
    bouncesSoft: n('bounced') - n('hard'),
    failed: n('failed'),
    pending: n('pending'),
    uniqueOpens: n('opened'),
    uniqueClicks: n('clicked'),
    opens: events.opens,
    clicks: events.clicks,
    machineOpens: events.machine_opens,
    machineClicks: events.machine_clicks,
    complaints: events.complaints,
  };
}

/**
 * The figures of each UTC day from `first` to `last` (both included), of one group or all
 * (null): the charts' series. Days where nothing happened are absent.
 */
export async function figuresPerDay(
  db: Database,
  customerId: number,
  first: string,
  last: string,
  groupId: number | null = null,
): Promise<Map<string, Figures>> {
  const [states, events] = await Promise.all([
    rollupSlice(db, 'transaction_counts', customerId, { groupId, firstDay: first, lastDay: last })
      .select([sql<string>`to_char(day, 'YYYY-MM-DD')`.as('day'), ...STATE_SUMS])
      .groupBy('day')
      .execute(),
    totalsPerDay(db, customerId, first, last, groupId),
  ]);
  const byDay = new Map(states.map((row) => [row.day, row as StateRow]));
  const days = new Set([...byDay.keys(), ...events.keys()]);
  return new Map([...days].map((day) => [day, figuresOf(byDay.get(day), events.get(day) ?? NO_TOTALS)]));
}

/** The transactions accepted in the customer's slice (the figures' `transactions` alone). */
export async function transactionsIn(db: Database, customerId: number, slice: RollupSlice): Promise<number> {
  const row = await rollupSlice(db, 'transaction_counts', customerId, slice)
    .select(sql<string | number>`coalesce(sum(n), 0)`.as('total'))
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** The all-time figures of each of the customer's groups in `groupIds`; a group with none has NO_FIGURES. */
export async function figuresPerGroup(
  db: Database,
  customerId: number,
  groupIds: readonly number[],
): Promise<Map<number, Figures>> {
  if (groupIds.length === 0) return new Map();
  const [states, events] = await Promise.all([
    db
      .selectFrom('transaction_counts')
      .select(['group_id', ...STATE_SUMS])
      .where('customer_id', '=', customerId)
      .where('group_id', 'in', groupIds)
      .groupBy('group_id')
      .execute(),
    totalsPerGroup(db, customerId, groupIds),
  ]);
  const byGroup = new Map(states.map((row) => [Number(row.group_id), row as StateRow]));
  return new Map(groupIds.map((id) => [id, figuresOf(byGroup.get(id), events.get(id) ?? NO_TOTALS)]));
}

/** The figures of the customer's slice: one group or all, over a range of days or all time. */
export async function figuresOfSlice(db: Database, customerId: number, slice: RollupSlice): Promise<Figures> {
  const [states, events] = await Promise.all([
    rollupSlice(db, 'transaction_counts', customerId, slice).select(STATE_SUMS).executeTakeFirstOrThrow(),
    totalsOfSlice(db, customerId, slice),
  ]);
  return figuresOf(states, events);
}

/** What the groups table sorts by: a figure of each group, all time. */
export type GroupFigure = 'transactions' | 'sent' | 'failed' | 'delivered' | 'bounced' | 'opens' | 'clicks';

/** Every group's all-time value of `figure`, a subquery to join on `group_id` (the Groups tab's sort). */
export function groupFigureSubquery(db: Database, customerId: number, figure: GroupFigure) {
  if (figure === 'opens' || figure === 'clicks')
    return db
      .selectFrom('daily_stats')
      .select(['group_id', sql<number>`sum(${sql.ref(figure)})`.as('total')])
      .where('customer_id', '=', customerId)
      .groupBy('group_id')
      .as('s');
  const states: Record<Exclude<GroupFigure, 'opens' | 'clicks'>, string> = {
    transactions: 'true',
    sent: `delivered_status in ('delivered', 'bounced')`,
    failed: `delivered_status = 'failed'`,
    delivered: `delivered_status = 'delivered'`,
    bounced: `delivered_status = 'bounced'`,
  };
  return db
    .selectFrom('transaction_counts')
    .select(['group_id', sql<number>`coalesce(sum(n) filter (where ${sql.raw(states[figure])}), 0)`.as('total')])
    .where('customer_id', '=', customerId)
    .groupBy('group_id')
    .as('s');
}
