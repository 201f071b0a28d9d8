// The lifecycle's policy table (src/server/lifecycle/policy.ts): state × outcome → what is written. The
// counts are daily_stats' (what happens on a day); the states are counted from the rows (stats/figures.ts).
import { describe, expect, it } from 'vitest';
import { type Facts, type Outcome, POLICY } from '../../src/server/lifecycle/policy.ts';

const row = (outcome: Outcome, facts: Facts = {}) => {
  const w = POLICY[outcome](facts);
  return [w.status, w.delivered, w.bounce, w.events.join(','), w.counts, w.suppress?.origin ?? null];
};

describe('the lifecycle policy', () => {
  it.each<[Outcome, Facts, unknown[]]>([
    ['accepted', {}, ['queued', 'pending', null, 'queued', {}, null]],
    ['suppressed', {}, ['failed', 'failed', null, 'queued,failed', {}, null]],
    ['over_quota', {}, ['no_quota', 'failed', null, 'queued,failed', {}, null]],
    ['delivered', {}, ['sent', 'delivered', null, 'sent,delivered', {}, null]],
    ['deferred', {}, ['queued', 'pending', null, 'deferred', {}, null]],
    ['bounced', { addressBad: true }, ['failed', 'bounced', 'hard', 'bounced', {}, 'bounce']],
    ['bounced', { addressBad: false }, ['failed', 'bounced', 'soft', 'bounced', {}, null]],
    ['expired', {}, ['failed', 'failed', 'soft', 'failed', {}, null]],
    ['bounce_report', { from: 'queued', addressBad: true }, ['failed', 'bounced', 'hard', 'bounced', {}, 'bounce']],
    ['bounce_report', { from: 'sent', addressBad: false }, ['sent', 'bounced', 'soft', 'bounced', {}, null]],
    ['complaint', {}, [null, null, null, 'complaint', { complaints: 1 }, 'complaint']],
    ['open', { first: true }, [null, null, null, 'open', { opens: 1 }, null]],
    ['open', { first: false }, [null, null, null, 'open', { opens: 1 }, null]],
    ['open', { machine: true, first: true }, [null, null, null, 'open', { machine_opens: 1 }, null]],
    ['click', { first: true }, [null, null, null, 'click', { clicks: 1 }, null]],
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
