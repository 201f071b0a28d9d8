// One day of the figures on the wire: the dashboard's overview chart and a group report's Activity
// chart read the same shape (docs/console-reports.md §3), named as the spec's dailyStats entry.
import { type Figures, sentOf } from '../../lib/figures.ts';

/** One day of a chart; each figure as src/lib/figures.ts defines it. */
export interface DailyStatWire {
  /** The UTC day, YYYY-MM-DD. */
  tstat_day: string;
  /** Transactions accepted that day; the states below are theirs, as they are now. */
  requests: number;
  /** Delivered or bounced: handed over and answered. */
  sent: number;
  failed: number;
  delivered: number;
  bounced: number;
  bounces_hard: number;
  bounces_soft: number;
  /** Queued, deferred or scheduled: not handed over yet. */
  pending: number;
  /** People's opens and clicks on that day (tracking/machine-rules.ts tells machines' apart). */
  opens: number;
  link_clicks: number;
  /** Transactions accepted that day and delivered that a person opened, or clicked in. */
  unique_opens: number;
  unique_clicks: number;
  /** Machines' opens and clicks, beside the people's. */
  machine_opens: number;
  machine_clicks: number;
  /** Spam complaints from feedback loops received that day. */
  complaints: number;
}

/** One day's figures as both charts read them. */
export function dailyStatToWire(day: string, f: Figures): DailyStatWire {
  return {
    tstat_day: day,
    requests: f.transactions,
    sent: sentOf(f),
    failed: f.failed,
    delivered: f.delivered,
    bounced: f.bounced,
    bounces_hard: f.bouncesHard,
    bounces_soft: f.bouncesSoft,
    pending: f.pending,
    opens: f.opens,
    link_clicks: f.clicks,
    unique_opens: f.uniqueOpens,
    unique_clicks: f.uniqueClicks,
    machine_opens: f.machineOpens,
    machine_clicks: f.machineClicks,
    complaints: f.complaints,
  };
}
