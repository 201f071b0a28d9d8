// Resend's event names for ours (src/server/webhooks/resend-events.ts): one row per event we record,
// a suppressed send as email.suppressed, a refusal at acceptance without its email.sent; and the
// payload's fields as the resend SDK types them.
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/contract/values.ts';
import { resendNameOf, resendNamesOf, resendPayload } from '../../src/server/webhooks/resend-events.ts';

describe('resendNameOf', () => {
  it.each([
    ['queued', 'email.sent'],
    ['scheduled', 'email.scheduled'],
    ['sent', null],
    ['delivered', 'email.delivered'],
    ['deferred', 'email.delivery_delayed'],
    ['failed', 'email.failed'],
    ['bounced', 'email.bounced'],
    ['complaint', 'email.complained'],
    ['open', 'email.opened'],
    ['click', 'email.clicked'],
    ['unsubscribe', null],
    ['resubscribe', null],
    ['download', null],
    ['canceled', null],
    ['suppressed', 'email.suppressed'],
    ['toString', null],
  ])('%s is %s', (ours, theirs) => {
    expect(resendNameOf(ours, null)).toBe(theirs);
  });

  it('names every event type we record (null included)', () => {
    for (const type of EVENT_TYPES) expect(() => resendNameOf(type, null)).not.toThrow();
  });

  it('a failure for a suppressed recipient is email.suppressed; over quota stays email.failed', () => {
    expect(resendNameOf('failed', { reason: 'suppressed: the recipient is on the suppression list' })).toBe(
      'email.suppressed',
    );
    expect(resendNameOf('failed', { reason: 'no_quota: the monthly sending quota is used up' })).toBe('email.failed');
  });
});

describe('resendNamesOf', () => {
  it('drops the email.sent of a message refused at acceptance in the same batch, and only its', () => {
    const suppressed = { reason: 'suppressed: the recipient is on the suppression list' };
    expect(
      resendNamesOf([
        { type: 'queued', transaction_id: 1 },
        { type: 'failed', transaction_id: 1, data: suppressed },
        { type: 'queued', transaction_id: 2 },
        { type: 'queued', transaction_id: 3 },
        { type: 'failed', transaction_id: 3, data: { reason: 'no_quota: …' } },
      ]),
    ).toEqual([null, 'email.suppressed', 'email.sent', null, 'email.failed']);
  });
});

describe('resendPayload', () => {
  const tx = {
    uuid: '5f0c1d2e-8a3b-4c6d-9e7f-0a1b2c3d4e5f',
    message_id_header: '<5f0c1d2e@shop.example>',
    created_at: new Date('2026-11-23T15:04:00Z'),
    from_email: 'orders@shop.example',
    from_name: 'Shop',
    to_email: 'ann@example.com',
    subject: 'Your order',
    tags: ['kind:order', 'vip'],
  };
  const at = new Date('2026-11-23T15:05:00Z');

  it('carries the message as Resend does', () => {
    expect(resendPayload({ type: 'email.delivered', at, data: { reply: '250 OK' } }, tx)).toEqual({
      type: 'email.delivered',
      created_at: '2026-11-23T15:05:00.000Z',
      data: {
        email_id: tx.uuid,
        message_id: tx.message_id_header,
        created_at: '2026-11-23T15:04:00.000Z',
        from: 'Shop <orders@shop.example>',
        to: ['ann@example.com'],
        subject: 'Your order',
        tags: { kind: 'order', vip: '' },
      },
    });
  });

  it.each([
    [
      'email.bounced',
      { bounce_type: 'hard', reply: '550 5.1.1 No such user', category: 'invalid_recipient' },
      { bounce: { type: 'Permanent', subType: 'invalid_recipient', message: '550 5.1.1 No such user' } },
    ],
    [
      'email.bounced',
      { type: 'soft', reason: '552 mailbox full', category: null },
      { bounce: { type: 'Transient', subType: 'Undetermined', message: '552 mailbox full' } },
    ],
    [
      'email.clicked',
      { url: 'https://shop.example/x', ip: '203.0.113.9', user_agent: 'Mail/1.0' },
      {
        click: {
          link: 'https://shop.example/x',
          ipAddress: '203.0.113.9',
          userAgent: 'Mail/1.0',
          timestamp: '2026-11-23T15:05:00.000Z',
        },
      },
    ],
    ['email.failed', { reply: '421 gave up' }, { failed: { reason: '421 gave up' } }],
    [
      'email.suppressed',
      { reason: 'suppressed: the recipient is on the suppression list' },
      {
        suppressed: {
          type: 'OnAccountSuppressionList',
          message: 'suppressed: the recipient is on the suppression list',
        },
      },
    ],
  ])('%s carries %j as %j', (type, data, own) => {
    expect(resendPayload({ type, at, data }, tx).data).toMatchObject(own);
  });
});
