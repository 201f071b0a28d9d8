// The Dashboard's second panel, the delivery breakdown (docs/console.md §2 leaves its contents open; the
// issue asks for a donut in the status colours of §9): the outcomes of a range's daily series, and the
// spam complaints feedback loops reported with their rate.
import type { DailyStatWire } from './wire.ts';

export interface Breakdown {
  delivered: number;
  bounced: number;
  /** Failures that were not bounces: refused at acceptance (suppressed, over quota), retries exhausted. */
  failed: number;
  sent: number;
  /** Transactions accepted in the range. */
  requests: number;
  /** Spam complaints received in the range (feedback-loop reports). */
  complaints: number;
}

/**
 * Sums the series. The delivery worker counts a recipient the remote server refused as failed and
 * bounced at once, so bounces are taken out of the failures to count such a message once. (A
 * later DSN bounce counts as delivered and bounced, and is not a failure: the subtraction can
 * then hide as many other failures; never below zero.)
 */
export function breakdownOf(days: readonly DailyStatWire[]): Breakdown {
  const sum = (pick: (d: DailyStatWire) => number) => days.reduce((n, d) => n + pick(d), 0);
  const bounced = sum((d) => d.bounced);
  return {
    delivered: sum((d) => d.delivered),
    bounced,
    failed: Math.max(0, sum((d) => d.failed) - bounced),
    sent: sum((d) => d.sent),
    requests: sum((d) => d.requests),
    complaints: sum((d) => d.complaints),
  };
}

/** A share of the outcomes as a whole percentage ('0%' when there are none). */
export function percentOf(part: number, breakdown: Breakdown): string {
  const whole = breakdown.delivered + breakdown.bounced + breakdown.failed;
  return whole === 0 ? '0%' : `${Math.round((part / whole) * 100)}%`;
}

/**
 * The complaint rate: complaints as a share of the delivered, with two decimals (a rate worth
 * watching is a fraction of a per cent); '0%' when nothing was delivered.
 */
export function complaintRateOf(breakdown: Breakdown): string {
  if (breakdown.delivered === 0) return '0%';
  return `${Math.round((breakdown.complaints / breakdown.delivered) * 10_000) / 100}%`;
}
