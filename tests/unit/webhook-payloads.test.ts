// The delayed and complaint webhooks as pure rules: which deferrals are reported (the first of each
// transaction, read from the log), and the payloads the server builds for both field sets, which are
// the examples the API reference and docs/webhooks.md show (both checked here).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { webhookDefinitions, webhookExamples } from '../../src/contract/webhook-payloads.ts';
import { webhookTypeOf, withoutRepeatedDeferrals } from '../../src/server/webhooks/outbox.ts';
import { buildPayload, type PayloadTransaction } from '../../src/server/webhooks/payload.ts';

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

// the message of the contract's examples, as the webhook worker reads it from the transaction
const TX: PayloadTransaction = {
  uuid: '5f0c1d2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
  message_id_header: '<5f0c1d2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f@shop.example>',
  group_uuid: '0b6f3c1e-2d4a-4e8b-9c7d-1a2b3c4d5e6f',
  group_name: 'Orders',
  from_email: 'orders@shop.example',
  from_name: 'Shop',
  to_email: 'ann@example.com',
  to_name: null,
  subject: 'Your order',
  tags: ['order'],
  metadata: { order: 42 },
};

// the events as they are recorded: the delivery worker's deferred event (its data as JSON text
// stores it, next_attempt_at a Date turned to text) and a complaint event of a feedback report
const EVENTS = {
  delayed: {
    type: 'delayed',
    at: new Date('2026-11-23T15:04:05.000Z'),
    data: JSON.parse(
      JSON.stringify({
        reply: '451 4.7.1 Greylisted, please try again later',
        attempt: 1,
        category: 'transient',
        site: 'example.com',
        mx_host: 'mx1.example.com',
        mx_address: '192.0.2.3',
        tls_version: 'TLSv1.3',
        tls_cipher: 'TLS_AES_256_GCM_SHA384',
        tried: [{ host: 'mx1.example.com', address: '192.0.2.3', reply: '451 4.7.1 Greylisted' }],
        next_attempt_at: new Date('2026-11-23T15:05:05.000Z'),
      }),
    ),
  },
  complaint: {
    type: 'complaint',
    at: new Date('2026-11-24T08:12:30.000Z'),
    data: { feedback_type: 'abuse', user_agent: 'Yahoo!-Mail-Feedback/2.0', arrival_date: '2026-11-23T15:05:06Z' },
  },
};

describe('the delayed and complaint payloads', () => {
  const definitions = new Map(webhookDefinitions().map((d) => [d.name, d]));

  it.each(['delayed', 'complaint'] as const)(
    '%s: the server builds the contract’s examples, both field sets',
    (type) => {
      const examples = webhookExamples(type)!;
      expect(buildPayload('standard', EVENTS[type], TX)).toEqual(examples.standard.value);
      expect(buildPayload('legacy', EVENTS[type], TX)).toEqual(examples.legacy.value);
    },
  );

  it.each(['delayed', 'complaint'] as const)('%s: the examples are what the schema describes', (type) => {
    const { schema, examples } = definitions.get(`email.${type}`)!;
    expect(schema.safeParse(examples!.standard.value).success).toBe(true);
    expect(schema.safeParse(examples!.legacy.value).success).toBe(true);
    // the legacy set stays flat: every value a string, number or null
    for (const value of Object.values(examples!.legacy.value))
      expect(value === null || typeof value !== 'object').toBe(true);
  });

  it('a complaint with no report fields still sends, its fields null', () => {
    expect(buildPayload('legacy', { type: 'complaint', at: new Date(0), data: null }, TX)).toMatchObject({
      event: 'complaint',
      feedback_type: null,
      user_agent: null,
      arrival_date: null,
    });
  });

  it.each(['delayed', 'complaint'] as const)('%s: docs/webhooks.md shows the same examples', (type) => {
    const blocks = [...readFileSync('docs/webhooks.md', 'utf8').matchAll(/```json\n([\s\S]*?)```/g)].map(
      (m) => JSON.parse(m[1]) as Record<string, unknown>,
    );
    const examples = webhookExamples(type)!;
    expect(blocks.filter((b) => b.type === `email.${type}`)).toEqual([examples.standard.value]);
    expect(blocks.filter((b) => b.event === type)).toEqual([examples.legacy.value]);
  });
});
