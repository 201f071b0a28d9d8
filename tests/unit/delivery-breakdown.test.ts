// The Dashboard's delivery breakdown (its second chart panel): a range's outcomes from the
// daily series, each message counted once although the worker counts a refused recipient as both
// failed and bounced.
import { describe, expect, it } from 'vitest';
import { breakdownOf, complaintRateOf, percentOf } from '../../src/lib/delivery-breakdown.ts';
import type { DailyStatWire } from '../../src/server/reports/daily-stats.ts';

function day(tstat_day: string, counts: Partial<DailyStatWire>): DailyStatWire {
  return {
    tstat_day,
    requests: 0,
    sent: 0,
    failed: 0,
    delivered: 0,
    bounced: 0,
    bounces_hard: 0,
    bounces_soft: 0,
    opens: 0,
    unique_opens: 0,
    link_clicks: 0,
    unique_clicks: 0,
    machine_opens: 0,
    machine_clicks: 0,
    complaints: 0,
    ...counts,
  };
}

describe('breakdownOf', () => {
  it('is all zeros for a range with nothing in it', () => {
    expect(breakdownOf([day('2025-03-01', {}), day('2025-03-02', {})])).toEqual({
      delivered: 0,
      bounced: 0,
      failed: 0,
      sent: 0,
      requests: 0,
      complaints: 0,
    });
  });

  it('sums the days, taking the bounces out of the failures', () => {
    const days = [
      // 11 delivered, 2 refused with 550 (failed and bounced), 1 refused at acceptance
      day('2025-03-01', { requests: 10, sent: 8, delivered: 8, failed: 2, bounced: 2, bounces_hard: 2 }),
      day('2025-03-02', { requests: 4, sent: 3, delivered: 3, failed: 1 }),
    ];
    const totals = breakdownOf(days);
    expect(totals).toEqual({ delivered: 11, bounced: 2, failed: 1, sent: 11, requests: 14, complaints: 0 });
    expect([
      percentOf(totals.delivered, totals),
      percentOf(totals.bounced, totals),
      percentOf(totals.failed, totals),
    ]).toEqual(['79%', '14%', '7%']);
  });

  it('never counts fewer than no failures (a DSN bounce after delivery is not a failure)', () => {
    expect(breakdownOf([day('2025-03-01', { sent: 1, delivered: 1, bounced: 1 })]).failed).toBe(0);
  });

  it('gives 0% of nothing', () => {
    expect(percentOf(0, breakdownOf([]))).toBe('0%');
  });
});

describe('complaintRateOf', () => {
  it('is the complaints as a share of the delivered, two decimals', () => {
    const days = [
      day('2025-03-01', { sent: 2000, delivered: 1990, complaints: 2 }),
      day('2025-03-02', { sent: 1000, delivered: 1000, complaints: 1 }),
    ];
    expect(breakdownOf(days).complaints).toBe(3);
    expect(complaintRateOf(breakdownOf(days))).toBe('0.1%');
    expect(complaintRateOf(breakdownOf([day('2025-03-01', { delivered: 3, complaints: 1 })]))).toBe('33.33%');
  });

  it('gives 0% when nothing was delivered', () => {
    expect(complaintRateOf(breakdownOf([day('2025-03-01', { complaints: 1 })]))).toBe('0%');
  });
});
