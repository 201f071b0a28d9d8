// How a transaction row reads in the console's transaction table (docs/console.md §2, §4, §9): its status
// with the colour of its dot, its date, its clicks. Pure, so the display rules have table-driven tests.
import type { TransactionWire } from './wire.ts';

export type StatusTone = 'delivered' | 'bounced' | 'failed' | 'pending';

export interface StatusView {
  label: string;
  /**
   * The colour of its state (src/lib/figures.ts): delivered green, bounced amber, failed red
   * (docs/console.md §9), pending grey: not handed over yet is no failure.
   */
  tone: StatusTone;
}

/**
 * The delivery status column: the state the figures count the transaction in (its delivered
 * status), named more closely where that helps. docs/console.md §4: trans_status failed or no_quota
 * is displayed as failed — unless the failure is a bounce (the remote server refused the recipient),
 * which shows as bounced in amber, as does a message bounced later by a DSN. Failed also names one
 * canceled before its time. Pending is Queued, Deferred (tried, a retry due) or Scheduled.
 */
export function statusOf(
  tx: Pick<TransactionWire, 'trans_status' | 'trans_delivered_status'> & { trans_attempts?: number },
): StatusView {
  switch (tx.trans_delivered_status) {
    case 'delivered':
      return { label: 'Delivered', tone: 'delivered' };
    case 'bounced':
      return { label: 'Bounced', tone: 'bounced' };
    case 'failed':
      return { label: tx.trans_status === 'canceled' ? 'Canceled' : 'Failed', tone: 'failed' };
    default:
      if (tx.trans_status === 'scheduled') return { label: 'Scheduled', tone: 'pending' };
      return { label: (tx.trans_attempts ?? 0) > 0 ? 'Deferred' : 'Queued', tone: 'pending' };
  }
}

/** The date column (docs/console.md §2): the sent date, or the queued date when the sent date is 0. */
export function shownDate(tx: Pick<TransactionWire, 'trans_date_sent' | 'trans_date_queued'>): number {
  return tx.trans_date_sent !== 0 ? tx.trans_date_sent : tx.trans_date_queued;
}

/** docs/console.md §2: clicks as 'N link(s)'. */
export function clicksText(count: number): string {
  return `${count} link(s)`;
}
