// The console's figures (src/lib/figures.ts): each share has the base its label names, the sent are the
// delivered and the bounced, and days add up.
import { describe, expect, it } from 'vitest';
import { NO_FIGURES, STATES, addFigures, percentOf, sentOf, shareOf } from '../../src/lib/figures.ts';

// a group of 5: 2 delivered (one opened), 2 bounced (one hard), 1 still deferred
const GROUP = {
  ...NO_FIGURES,
  transactions: 5,
  delivered: 2,
  bounced: 2,
  bouncesHard: 1,
  bouncesSoft: 1,
  pending: 1,
  uniqueOpens: 1,
  opens: 3,
};

describe('figures', () => {
  it('count the delivered and the bounced as sent', () => {
    expect(sentOf(GROUP)).toBe(4);
  });

  it('give the four states shares of the transactions that add up to 100 %', () => {
    const shares = STATES.map(({ key }) => shareOf(GROUP, key));
    expect(shares).toEqual([
      { value: 2, percentage: 40 },
      { value: 2, percentage: 40 },
      { value: 0, percentage: 0 },
      { value: 1, percentage: 20 },
    ]);
    expect(shares.reduce((n, s) => n + s.value, 0)).toBe(GROUP.transactions);
    expect(shares.reduce((n, s) => n + s.percentage, 0)).toBe(100);
    expect(shareOf(GROUP, 'sent')).toEqual({ value: 4, percentage: 80 });
  });

  it('give opens, clicks and complaints shares of the delivered', () => {
    expect(shareOf(GROUP, 'uniqueOpens')).toEqual({ value: 1, percentage: 50 });
    expect(shareOf(GROUP, 'notOpened')).toEqual({ value: 1, percentage: 50 });
    expect(shareOf(GROUP, 'notClicked')).toEqual({ value: 2, percentage: 100 });
    expect(shareOf({ ...GROUP, complaints: 1 }, 'complaints')).toEqual({ value: 1, percentage: 50 });
  });

  it('are 0 % of nothing, and add up over days', () => {
    expect(shareOf(NO_FIGURES, 'delivered')).toEqual({ value: 0, percentage: 0 });
    expect(percentOf(1, 3)).toBe(33.33);
    expect(addFigures([GROUP, GROUP, NO_FIGURES])).toEqual(
      Object.fromEntries(Object.entries(GROUP).map(([k, v]) => [k, v * 2])),
    );
  });
});
