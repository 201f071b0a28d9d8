// How a transaction row reads in the console's transaction table (docs/console.md §2, §4, §9): its status
// with the colour of its dot, its date, its clicks. Pure, so the display rules have table-driven tests.
import type { TransactionWire } from './wire.ts';

export type StatusTone = 'delivered' | 'bounced' | 'failed';

export interface StatusView {
  label: string;
  /** docs/console.md §9: delivered green, bounced amber, others red. */
  tone: StatusTone;
}

/**
 * The delivery status column. docs/console.md §4: trans_status failed or no_quota is displayed as
 * failed — unless the failure is a bounce (the remote server refused the recipient: failed,
 * bounced), which shows as bounced in amber. A message taken and bounced later by a DSN is
 * bounced too; one still waiting for delivery is Queued, one waiting for its scheduled moment
 * Scheduled, one canceled before it Canceled, red as every other status (§9).
 */
export function statusOf(tx: Pick<TransactionWire, 'trans_status' | 'trans_delivered_status'>): StatusView {
  if (tx.trans_delivered_status === 'bounced') return { label: 'Bounced', tone: 'bounced' };
  if (tx.trans_status === 'failed' || tx.trans_status === 'no_quota') return { label: 'Failed', tone: 'failed' };
  if (tx.trans_delivered_status === 'delivered') return { label: 'Delivered', tone: 'delivered' };
  // sent with scheduled_at: waiting for its moment, or canceled before it (nothing was sent)
  if (tx.trans_status === 'scheduled') return { label: 'Scheduled', tone: 'failed' };
  if (tx.trans_status === 'canceled') return { label: 'Canceled', tone: 'failed' };
  return { label: 'Queued', tone: 'failed' };
}

/** The date column (docs/console.md §2): the sent date, or the queued date when the sent date is 0. */
export function shownDate(tx: Pick<TransactionWire, 'trans_date_sent' | 'trans_date_queued'>): number {
  return tx.trans_date_sent !== 0 ? tx.trans_date_sent : tx.trans_date_queued;
}

/** docs/console.md §2: clicks as 'N link(s)'. */
export function clicksText(count: number): string {
  return `${count} link(s)`;
}
