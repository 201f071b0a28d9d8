// The one event row → wire mapping of GET /v1/transactions/{trans_uuid}/events: what each writer
// stores (sending, delivery worker, bounce receiver, tracking, unsubscribe) in one shape; and the
// machine fields tracking's events give the open and click webhooks.
import { describe, expect, it } from 'vitest';
import { eventToWire } from '../../src/server/reports/transaction-events.service.ts';
import { legacyPayload, standardPayload } from '../../src/server/webhooks/payload.ts';

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
      'an open (a person’s: recorded without machine)',
      { type: 'open' as const, data: { user_agent: 'Mozilla/5.0', ip: null } },
      { user_agent: 'Mozilla/5.0', machine: false },
    ],
    [
      'a click',
      { type: 'click' as const, data: { url: 'https://a.example/', user_agent: null, ip: '203.0.113.9' } },
      { url: 'https://a.example/', ip: '203.0.113.9', machine: false },
    ],
    [
      'a machine’s open, with its rule',
      {
        type: 'open' as const,
        data: { user_agent: 'Mozilla/5.0', ip: '17.58.63.1', machine: true, machine_rule: 'apple_mail_proxy' },
      },
      { user_agent: 'Mozilla/5.0', ip: '17.58.63.1', machine: true, machine_rule: 'apple_mail_proxy' },
    ],
    [
      'a rule that is not one',
      { type: 'click' as const, data: { machine: true, machine_rule: 'x' } },
      { machine: true },
    ],
    [
      'an unsubscribe',
      { type: 'unsubscribe' as const, data: { email: 'ann@example.org', via: 'page' } },
      { via: 'page' },
    ],
    ['unknown keys and wrong types', { type: 'sent' as const, data: { attempt: '1', reply: 5, secret: 'x' } }, {}],
    ['machine on an event that is no open or click', { type: 'sent' as const, data: { machine: true } }, {}],
  ])('%s', (_name, row, data) => {
    expect(eventToWire({ ...row, at })).toEqual({ type: row.type, time: seconds, data });
  });
});

describe('the machine fields of open and click webhooks', () => {
  const tx = {
    uuid: '5f0c1d2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
    message_id_header: '<x@shop.example>',
    group_uuid: 'g',
    group_name: 'Orders',
    from_email: 'orders@shop.example',
    from_name: null,
    to_email: 'ann@example.com',
    to_name: null,
    subject: 'Your order',
    tags: null,
    metadata: null,
  };
  const machine = { url: 'https://a.example/', ip: '40.107.1.1', machine: true, machine_rule: 'link_scanner_network' };

  it('says machine and its rule in both field sets, false and null for a person’s', () => {
    expect(standardPayload({ type: 'click', at, data: machine }, tx).data).toMatchObject({
      machine: true,
      machine_rule: 'link_scanner_network',
    });
    expect(legacyPayload({ type: 'click', at, data: machine }, tx)).toMatchObject({
      machine: true,
      machine_rule: 'link_scanner_network',
    });
    expect(standardPayload({ type: 'open', at, data: { ip: '203.0.113.9' } }, tx).data).toMatchObject({
      machine: false,
      machine_rule: null,
    });
    expect(legacyPayload({ type: 'open', at, data: { ip: '203.0.113.9' } }, tx)).toMatchObject({
      machine: false,
      machine_rule: null,
    });
    expect(legacyPayload({ type: 'sent', at, data: {} }, tx)).not.toHaveProperty('machine');
  });
});
