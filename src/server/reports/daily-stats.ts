// One day of the daily_stats rollup on the wire: the dashboard's overview chart and a group report's
// Activity chart read the same shape (docs/console-reports.md §3).
import type { StatTotals } from '../stats/stats.repository.ts';

/**
 * One day of the overview chart; named like the dailyStats entry of docs/console-reports.md §3 so both charts read one
 * shape.
 */
export interface DailyStatWire {
  /** The UTC day, YYYY-MM-DD. */
  tstat_day: string;
  /** Transactions accepted that day. */
  requests: number;
  sent: number;
  failed: number;
  delivered: number;
  bounced: number;
  bounces_hard: number;
  bounces_soft: number;
  /** People's opens and clicks (tracking/machine-rules.ts tells machines' apart). */
  opens: number;
  unique_opens: number;
  link_clicks: number;
  unique_clicks: number;
  /** Machines' opens and clicks, beside the people's. */
  machine_opens: number;
  machine_clicks: number;
  /** Spam complaints from feedback loops received that day. */
  complaints: number;
}

/** One day of the rollup's totals as both charts read it. */
export function dailyStatToWire(day: string, t: StatTotals): DailyStatWire {
  return {
    tstat_day: day,
    requests: t.requests,
    sent: t.sent,
    failed: t.failed,
    delivered: t.delivered,
    bounced: t.bounced,
    bounces_hard: t.bounces_hard,
    bounces_soft: t.bounces_soft,
    opens: t.opens,
    unique_opens: t.unique_opens,
    link_clicks: t.clicks,
    unique_clicks: t.unique_clicks,
    machine_opens: t.machine_opens,
    machine_clicks: t.machine_clicks,
    complaints: t.complaints,
  };
}
