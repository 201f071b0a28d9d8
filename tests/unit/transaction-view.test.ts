// How a transaction reads in the console (docs/console.md §2, §4, §9): the status column and the colour
// of its dot, the date column, clicks, and the Transaction Info modal's Custom Headers rule and
// timeline entries.
import { describe, expect, it } from 'vitest';
import { addressText, customHeaders, eventView, timelineEntries } from '../../src/lib/transaction-info-view.ts';
import { clicksText, shownDate, statusOf } from '../../src/lib/transaction-view.ts';
import type { TransactionEventWire } from '../../src/server/reports/transaction-events.service.ts';
import type { TransactionWire } from '../../src/server/reports/transactions.service.ts';

type Status = Pick<TransactionWire, 'trans_status' | 'trans_delivered_status' | 'trans_attempts'>;

describe('statusOf', () => {
  it.each<[Status['trans_status'], Status['trans_delivered_status'], number, string, string]>([
    ['sent', 'delivered', 1, 'Delivered', 'delivered'],
    // docs/console.md §4: failed and no_quota display as failed
    ['failed', 'failed', 0, 'Failed', 'failed'],
    ['no_quota', 'failed', 0, 'Failed', 'failed'],
    // given up after retrying: failed, whatever the last answer was
    ['failed', 'failed', 9, 'Failed', 'failed'],
    // refused by the remote server (the worker's hard bounce) and bounced later by a DSN: amber
    ['failed', 'bounced', 1, 'Bounced', 'bounced'],
    ['sent', 'bounced', 1, 'Bounced', 'bounced'],
    // not handed over yet: pending, grey — queued, deferred after an attempt, scheduled
    ['queued', 'pending', 0, 'Queued', 'pending'],
    ['queued', 'pending', 2, 'Deferred', 'pending'],
    ['scheduled', 'pending', 0, 'Scheduled', 'pending'],
    // canceled before its moment: never handed over, so failed in the figures
    ['canceled', 'failed', 0, 'Canceled', 'failed'],
  ])('%s / %s after %i attempt(s) reads %s with a %s dot', (status, delivered, attempts, label, tone) => {
    expect(statusOf({ trans_status: status, trans_delivered_status: delivered, trans_attempts: attempts })).toEqual({
      label,
      tone,
    });
  });
});

describe("the table's date and clicks", () => {
  it('shows the sent date, or the queued date when the sent date is 0 (docs/console.md §2)', () => {
    expect(shownDate({ trans_date_sent: 1_700_000_100, trans_date_queued: 1_700_000_000 })).toBe(1_700_000_100);
    expect(shownDate({ trans_date_sent: 0, trans_date_queued: 1_700_000_000 })).toBe(1_700_000_000);
  });

  it.each([
    [0, '0 link(s)'],
    [1, '1 link(s)'],
    [12, '12 link(s)'],
  ])('%i clicks read %j', (n, text) => {
    expect(clicksText(n)).toBe(text);
  });

  it('writes an address with its name when it has one', () => {
    expect(addressText('ann@example.org', 'Ann Lee')).toBe('Ann Lee <ann@example.org>');
    expect(addressText('ann@example.org', '')).toBe('ann@example.org');
  });
});

describe('customHeaders (the modal shows them only for a non-empty object)', () => {
  it.each([
    [
      '{"X-Campaign":"spring","X-Id":"7"}',
      [
        ['X-Campaign', 'spring'],
        ['X-Id', '7'],
      ],
    ],
    ['{"X-Count":3}', [['X-Count', '3']]],
    ['{}', null],
    ['', null],
    ['null', null],
    ['[]', null],
    ['["X-Campaign"]', null],
    ['"text"', null],
    ['{not json', null],
  ])('%j → %j', (json, expected) => {
    expect(customHeaders(json)).toEqual(expected);
  });
});

describe('eventView', () => {
  const event = (
    type: TransactionEventWire['type'],
    data: TransactionEventWire['data'] = {},
  ): TransactionEventWire => ({ type, time: 1_700_000_000, data });

  it.each<[TransactionEventWire, string, string, string[]]>([
    [event('queued'), 'Queued', 'neutral', ['Accepted for delivery']],
    [
      event('scheduled', { scheduled_at: 1_700_003_600 }),
      'Scheduled',
      'neutral',
      [expect.stringMatching(/^To be sent /)],
    ],
    [event('canceled'), 'Canceled', 'failed', ['Canceled before its time: nothing was sent']],
    [event('sent', { attempt: 2, reply: '250 Ok' }), 'Sent', 'neutral', ['Attempt 2']],
    [
      event('delivered', { attempt: 1, reply: '250 2.0.0 Ok: queued as 1234' }),
      'Delivered',
      'delivered',
      ['Remote server: 250 2.0.0 Ok: queued as 1234'],
    ],
    [
      event('bounced', { bounce_type: 'hard', reply: '550 5.1.1 User unknown', attempt: 1 }),
      'Bounced (hard)',
      'bounced',
      ['Remote server: 550 5.1.1 User unknown'],
    ],
    // a DSN: its status and diagnostic, no SMTP reply
    [
      event('bounced', { bounce_type: 'soft', status: '4.2.2', reason: 'Mailbox full' }),
      'Bounced (soft)',
      'bounced',
      ['Status 4.2.2', 'Mailbox full'],
    ],
    // what the remote's answer was about (the event's category)
    [
      event('bounced', {
        bounce_type: 'soft',
        reply: '554 5.7.1 blocked using zen.spamhaus.org',
        category: 'policy_block',
      }),
      'Bounced (soft)',
      'bounced',
      [
        'Remote server: 554 5.7.1 blocked using zen.spamhaus.org',
        'Cause: refused by the receiver’s policy (blocklist, reputation, not authorised)',
      ],
    ],
    [
      event('deferred', { reply: '452 4.2.2 Mailbox full', category: 'transient' }),
      'Deferred',
      'neutral',
      ['Remote server: 452 4.2.2 Mailbox full', 'Cause: a temporary failure'],
    ],
    [
      event('failed', { reason: 'Recipient is on the suppression list' }),
      'Failed',
      'failed',
      ['Recipient is on the suppression list'],
    ],
    [
      event('failed', { reply: '451 Try later', bounce_type: 'soft', attempt: 9 }),
      'Failed',
      'failed',
      ['Remote server: 451 Try later'],
    ],
    [event('open', { user_agent: 'Mozilla/5.0', ip: '203.0.113.9' }), 'Opened', 'neutral', ['Mozilla/5.0']],
    [
      event('click', { url: 'https://shop.example/a', user_agent: 'Mozilla/5.0' }),
      'Clicked',
      'neutral',
      ['https://shop.example/a'],
    ],
    [
      event('open', { user_agent: 'Mozilla/5.0', ip: '17.58.63.1', machine: true, machine_rule: 'apple_mail_proxy' }),
      'Opened by a machine',
      'machine',
      ['By Apple Mail Privacy Protection, fetching the images at delivery; not counted as a person’s', 'Mozilla/5.0'],
    ],
    [
      event('click', { url: 'https://shop.example/a', machine: true, machine_rule: 'click_at_delivery' }),
      'Clicked by a machine',
      'machine',
      ['By a link scanner (clicked within 5 s of delivery); not counted as a person’s', 'https://shop.example/a'],
    ],
    [
      event('click', { url: 'https://shop.example/a', machine: false }),
      'Clicked',
      'neutral',
      ['https://shop.example/a'],
    ],
    [event('unsubscribe', { via: 'one_click' }), 'Unsubscribed', 'neutral', ['with the one-click header']],
    [event('resubscribe', { via: 'page' }), 'Resubscribed', 'neutral', ['on the unsubscribe page']],
  ])('%j reads %s', (e, title, tone, details) => {
    expect(eventView(e)).toEqual({ title, tone, details });
  });

  it('tells when a deferred message is tried next', () => {
    const view = eventView(
      event('deferred', { reply: '421 Busy', next_attempt_at: Date.UTC(2025, 2, 1, 10, 0, 0) / 1000 }),
    );
    expect(view.details).toEqual(['Remote server: 421 Busy', 'Next attempt March 1, 2025 10:00:00']);
  });
});

describe('timelineEntries (the replies received among the events)', () => {
  const event = (type: TransactionEventWire['type'], time: number): TransactionEventWire => ({ type, time, data: {} });
  const reply = (id: string, time: number) => ({ id, from: `${id}@sender.example`, time });
  const kinds = (entries: ReturnType<typeof timelineEntries>) =>
    entries.map((e) => (e.kind === 'event' ? e.event.type : e.reply.id));

  it('places each reply after the events of its second and before later ones', () => {
    const events = [event('queued', 100), event('sent', 101), event('delivered', 105), event('open', 300)];
    expect(kinds(timelineEntries(events, [reply('r1', 105), reply('r2', 400)]))).toEqual([
      'queued',
      'sent',
      'delivered',
      'r1',
      'open',
      'r2',
    ]);
  });

  it('keeps the replies in their order, and shows them with no events', () => {
    expect(kinds(timelineEntries([], [reply('r1', 5), reply('r2', 5)]))).toEqual(['r1', 'r2']);
    expect(timelineEntries([event('queued', 1)], [])).toEqual([{ kind: 'event', time: 1, event: event('queued', 1) }]);
  });
});
