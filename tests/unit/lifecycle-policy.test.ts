// The lifecycle's policy table (src/server/lifecycle/policy.ts): state × outcome → what is written.
import { describe, expect, it } from 'vitest';
import { type Facts, type Outcome, POLICY } from '../../src/server/lifecycle/policy.ts';

const row = (outcome: Outcome, facts: Facts = {}) => {
  const w = POLICY[outcome](facts);
  return [w.status, w.delivered, w.bounce, w.events.join(','), w.counts, w.suppress?.origin ?? null];
};

describe('the lifecycle policy', () => {
  it.each<[Outcome, Facts, unknown[]]>([
    ['accepted', {}, ['queued', 'pending', null, 'queued', { requests: 1 }, null]],
    ['suppressed', {}, ['failed', 'failed', null, 'queued,failed', { requests: 1, failed: 1 }, null]],
    ['over_quota', {}, ['no_quota', 'failed', null, 'queued,failed', { requests: 1, failed: 1 }, null]],
    ['delivered', {}, ['sent', 'delivered', null, 'sent,delivered', { sent: 1, delivered: 1 }, null]],
    ['deferred', {}, ['queued', 'pending', null, 'deferred', {}, null]],
    [
      'bounced',
      { addressBad: true },
      ['failed', 'bounced', 'hard', 'bounced', { failed: 1, bounced: 1, bounces_hard: 1 }, 'bounce'],
    ],
    [
      'bounced',
      { addressBad: false },
      ['failed', 'bounced', 'soft', 'bounced', { failed: 1, bounced: 1, bounces_soft: 1 }, null],
    ],
    ['expired', {}, ['failed', 'failed', 'soft', 'failed', { failed: 1, bounces_soft: 1 }, null]],
    [
      'bounce_report',
      { from: 'queued', addressBad: true },
      ['failed', 'bounced', 'hard', 'bounced', { failed: 1, bounced: 1, bounces_hard: 1 }, 'bounce'],
    ],
    [
      'bounce_report',
      { from: 'sent', addressBad: false },
      ['sent', 'bounced', 'soft', 'bounced', { bounced: 1, bounces_soft: 1 }, null],
    ],
    ['complaint', {}, [null, null, null, 'complaint', { complaints: 1 }, 'complaint']],
    ['open', { first: true }, [null, null, null, 'open', { opens: 1, unique_opens: 1 }, null]],
    ['open', { first: false }, [null, null, null, 'open', { opens: 1, unique_opens: 0 }, null]],
    ['open', { machine: true, first: true }, [null, null, null, 'open', { machine_opens: 1 }, null]],
    ['click', { first: true }, [null, null, null, 'click', { clicks: 1, unique_clicks: 1 }, null]],
    ['click', { machine: true }, [null, null, null, 'click', { machine_clicks: 1 }, null]],
    ['unsubscribe', {}, [null, null, null, 'unsubscribe', {}, 'unsubscribe']],
    ['resubscribe', {}, [null, null, null, 'resubscribe', {}, null]],
    ['download', {}, [null, null, null, 'download', {}, null]],
  ])('%s %o writes status, delivered, bounce, events, counts and suppression as listed', (outcome, facts, expected) => {
    expect(row(outcome, facts)).toEqual(expected);
  });

  it("lists a recipient's own word even when the customer disabled suppression, a bounce never", () => {
    expect(POLICY.complaint({}).suppress).toEqual({ origin: 'complaint', evenWhenDisabled: true });
    expect(POLICY.unsubscribe({}).suppress).toEqual({ origin: 'unsubscribe', evenWhenDisabled: true });
    expect(POLICY.bounced({ addressBad: true }).suppress).toEqual({ origin: 'bounce', evenWhenDisabled: false });
    expect(POLICY.bounce_report({ addressBad: true, from: 'sent' }).suppress?.evenWhenDisabled).toBe(false);
  });

  it('suppresses only for a bad address, a complaint or an unsubscribe', () => {
    const facts: Facts[] = [{}, { addressBad: false }, { from: 'queued' }, { from: 'sent' }, { machine: true }];
    const suppressing = (Object.keys(POLICY) as Outcome[]).filter((o) => facts.some((f) => POLICY[o](f).suppress));
    expect(suppressing.sort()).toEqual(['complaint', 'unsubscribe']);
  });
});
