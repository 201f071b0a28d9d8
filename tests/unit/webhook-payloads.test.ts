// The delayed and complaint webhooks as pure rules: which recorded events are webhook events, and
// which deferrals are reported (the first of each transaction, read from the log).
import { describe, expect, it } from 'vitest';
import { webhookTypeOf, withoutRepeatedDeferrals } from '../../src/server/webhooks/outbox.ts';

describe('which recorded events are webhook events', () => {
  it.each([
    ['deferred', 'delayed'],
    ['complaint', 'complaint'],
    ['bounced', 'bounce'],
    ['sent', 'sent'],
    ['delivered', null],
    ['queued', null],
    ['download', null],
  ] as const)('%s → %s', (event, webhook) => {
    expect(webhookTypeOf(event)).toBe(webhook);
  });
});

describe('withoutRepeatedDeferrals', () => {
  const deferred = (transaction_id: number) => ({ type: 'deferred' as const, transaction_id });
  const sent = (transaction_id: number) => ({ type: 'sent' as const, transaction_id });

  it('keeps the first deferral of a transaction and drops the ones after it in the same batch', () => {
    expect(withoutRepeatedDeferrals([deferred(1), deferred(2), deferred(1)], new Set())).toEqual([
      deferred(1),
      deferred(2),
    ]);
  });

  it('drops the deferral of a transaction deferred before, whatever its attempt number', () => {
    expect(withoutRepeatedDeferrals([deferred(1), deferred(2)], new Set([1]))).toEqual([deferred(2)]);
  });

  it('keeps every other event, a delivery after deferrals included', () => {
    expect(withoutRepeatedDeferrals([sent(1), deferred(3), sent(3)], new Set([1, 3]))).toEqual([sent(1), sent(3)]);
  });

  it('does not change the set it was given', () => {
    const earlier = new Set<number>();
    withoutRepeatedDeferrals([deferred(1)], earlier);
    expect(earlier.size).toBe(0);
  });
});
