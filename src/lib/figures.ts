// The console's figures, each defined once (docs/console-reports.md "Figures"): what a number on a
// page counts and what its percentage is a share of. The server computes them from the rollups
// (src/server/stats/figures.ts); every page, chart, donut, export and the demo's summary reads them
// through this module, so no two surfaces can disagree. Pure: the islands use it too.
import type { DeliveredStatus } from '../contract/values.ts';
import type { DailyStatWire } from './wire.ts';

/**
 * A range's figures (or one day's). The states are those of the transactions accepted in the range,
 * as they are now: delivered + bounced + failed + pending = transactions, always.
 */
export interface Figures {
  /** Transactions accepted in the range (one per recipient). */
  transactions: number;
  /** Handed to the recipient's server, which took them. */
  delivered: number;
  /** Handed over and refused, at once or by a bounce report later (one that was delivered before counts here). */
  bounced: number;
  /** Bounced because the address does not exist; the rest are soft. hard + soft = bounced. */
  bouncesHard: number;
  bouncesSoft: number;
  /** Never handed over, and never will be: suppressed, over the quota, given up after retrying, canceled. */
  failed: number;
  /** Not handed over yet: queued, deferred (a retry is due), or scheduled for later. */
  pending: number;
  /** Transactions delivered that a person opened, or clicked a link in (machines' are not counted). */
  uniqueOpens: number;
  uniqueClicks: number;
  /** People's opens and clicks on the days they happened, of messages accepted on any day. */
  opens: number;
  clicks: number;
  /** Machines' opens and clicks (mail privacy proxies, link scanners), beside the people's. */
  machineOpens: number;
  machineClicks: number;
  /** Spam complaints (feedback-loop reports) received in the range. */
  complaints: number;
}

export const NO_FIGURES: Readonly<Figures> = Object.freeze({
  transactions: 0,
  delivered: 0,
  bounced: 0,
  bouncesHard: 0,
  bouncesSoft: 0,
  failed: 0,
  pending: 0,
  uniqueOpens: 0,
  uniqueClicks: 0,
  opens: 0,
  clicks: 0,
  machineOpens: 0,
  machineClicks: 0,
  complaints: 0,
});

const KEYS = Object.keys(NO_FIGURES) as (keyof Figures)[];

/** Sent: handed over and answered by the recipient's server (delivered or bounced). */
export function sentOf(f: Figures): number {
  return f.delivered + f.bounced;
}

/** The figures of several ranges (days) together. */
export function addFigures(parts: Iterable<Figures>): Figures {
  const total = { ...NO_FIGURES };
  for (const part of parts) for (const key of KEYS) total[key] += part[key];
  return total;
}

/** A share in per cent with two decimals; 0 when the whole is 0. */
export function percentOf(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 10_000) / 100 : 0;
}

/** What each share is a share of (its label says so where it is not the transactions). */
export type Base = 'transactions' | 'delivered';

/** The figures that have a share, each with its base. */
export const SHARE_BASE = {
  delivered: 'transactions',
  bounced: 'transactions',
  failed: 'transactions',
  pending: 'transactions',
  sent: 'transactions',
  bouncesHard: 'transactions',
  bouncesSoft: 'transactions',
  uniqueOpens: 'delivered',
  notOpened: 'delivered',
  uniqueClicks: 'delivered',
  notClicked: 'delivered',
  complaints: 'delivered',
} as const satisfies Record<string, Base>;

export type ShareKey = keyof typeof SHARE_BASE;

/** A share's value. */
export function shareValue(f: Figures, key: ShareKey): number {
  switch (key) {
    case 'sent':
      return sentOf(f);
    case 'notOpened':
      return f.delivered - f.uniqueOpens;
    case 'notClicked':
      return f.delivered - f.uniqueClicks;
    default:
      return f[key];
  }
}

/** A share's value and its percentage of its base. */
export function shareOf(f: Figures, key: ShareKey): { value: number; percentage: number } {
  const value = shareValue(f, key);
  return { value, percentage: percentOf(value, f[SHARE_BASE[key]]) };
}

/** The four states a transaction is in, in the order pages list them, with their status colours (console.scss). */
export const STATES = [
  { key: 'delivered', label: 'Delivered', tone: 'delivered' },
  { key: 'bounced', label: 'Bounced', tone: 'bounced' },
  { key: 'failed', label: 'Failed', tone: 'failed' },
  { key: 'pending', label: 'Pending', tone: 'pending' },
] as const;

/**
 * The delivered statuses (transactions.delivered_status) a figure of state counts: the one rule the
 * figures, the report tables and the status filters select transactions by.
 */
export const DELIVERED_STATUSES_OF = {
  sent: ['delivered', 'bounced'],
  delivered: ['delivered'],
  bounced: ['bounced'],
  failed: ['failed'],
  pending: ['pending'],
} as const satisfies Record<string, readonly DeliveredStatus[]>;

/** A chart day's figures (the islands sum a range's days into its figures). */
export function figuresOfDay(d: DailyStatWire): Figures {
  return {
    transactions: d.requests,
    delivered: d.delivered,
    bounced: d.bounced,
    bouncesHard: d.bounces_hard,
    bouncesSoft: d.bounces_soft,
    failed: d.failed,
    pending: d.pending,
    uniqueOpens: d.unique_opens,
    uniqueClicks: d.unique_clicks,
    opens: d.opens,
    clicks: d.link_clicks,
    machineOpens: d.machine_opens,
    machineClicks: d.machine_clicks,
    complaints: d.complaints,
  };
}
