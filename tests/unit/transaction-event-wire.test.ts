// The one event row → wire mapping of GET /v1/transactions/{trans_uuid}/events: what each writer
// stores (sending, delivery worker, bounce receiver, tracking, unsubscribe) in one shape.
import { describe, expect, it } from 'vitest';
import { eventToWire } from '../../src/server/reports/transaction-events.service.ts';

const at = new Date('2025-03-01T10:00:00.750Z');
const seconds = Date.parse('2025-03-01T10:00:00Z') / 1000;

describe('eventToWire', () => {
  it.each([
    ['queued (no data)', { type: 'queued' as const, data: null }, {}],
    ['refused at acceptance', { type: 'failed' as const, data: { reason: 'suppressed' } }, { reason: 'suppressed' }],
    [
      'delivered',
      { type: 'delivered' as const, data: { reply: '250 Ok', attempt: 1 } },
      { reply: '250 Ok', attempt: 1 },
    ],
    [
      "the worker's bounce",
      { type: 'bounced' as const, data: { reply: '550 No', attempt: 1, bounce_type: 'hard' } },
      { reply: '550 No', attempt: 1, bounce_type: 'hard' },
    ],
    [
      "the worker's bounce with its category",
      {
        type: 'bounced' as const,
        data: { reply: '554 5.7.1 blocked', attempt: 1, bounce_type: 'soft', category: 'policy_block' },
      },
      { reply: '554 5.7.1 blocked', attempt: 1, bounce_type: 'soft', category: 'policy_block' },
    ],
    [
      "the bounce receiver's bounce",
      {
        type: 'bounced' as const,
        data: { type: 'soft', status: '4.2.2', reason: 'Mailbox full', category: 'transient' },
      },
      { bounce_type: 'soft', status: '4.2.2', reason: 'Mailbox full', category: 'transient' },
    ],
    ['a category that is not one', { type: 'failed' as const, data: { category: 'nonsense' } }, {}],
    [
      'a deferral',
      {
        type: 'deferred' as const,
        data: { reply: '421 Busy', attempt: 2, next_attempt_at: '2025-03-01T10:05:00.000Z' },
      },
      { reply: '421 Busy', attempt: 2, next_attempt_at: seconds + 300 },
    ],
    [
      'an open',
      { type: 'open' as const, data: { user_agent: 'Mozilla/5.0', ip: null } },
      { user_agent: 'Mozilla/5.0' },
    ],
    [
      'a click',
      { type: 'click' as const, data: { url: 'https://a.example/', user_agent: null, ip: '203.0.113.9' } },
      { url: 'https://a.example/', ip: '203.0.113.9' },
    ],
    [
      'an unsubscribe',
      { type: 'unsubscribe' as const, data: { email: 'ann@example.org', via: 'page' } },
      { via: 'page' },
    ],
    ['unknown keys and wrong types', { type: 'sent' as const, data: { attempt: '1', reply: 5, secret: 'x' } }, {}],
  ])('%s', (_name, row, data) => {
    expect(eventToWire({ ...row, at })).toEqual({ type: row.type, time: seconds, data });
  });
});
