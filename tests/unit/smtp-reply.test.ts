import { describe, expect, it } from 'vitest';
import type { AnswerVerdict } from '../../src/server/delivery/remote-answer.ts';
import {
  classifyNetworkError,
  classifyReply,
  nextAttemptAt,
  refusalOf,
  retryHintSeconds,
} from '../../src/server/delivery/smtp-reply.ts';

const later: AnswerVerdict = { retry: true, address: 'ok', category: 'transient' };

// The verdicts themselves are tests/unit/remote-answer.test.ts's table; here, what the delivery path
// makes of a reply (RFC 5321 §4.2.1: 5yz is not retried except 503, 4yz is).
describe('classifyReply (RFC 5321 §4.2.1)', () => {
  it.each<[number | undefined, string, AnswerVerdict]>([
    [
      550,
      '5.1.1 <nobody@example.com>: Recipient address rejected: User unknown',
      { retry: false, address: 'bad', category: 'invalid_recipient' },
    ],
    // a full mailbox and a refusal as spam fail this message but say nothing against the address
    [552, '5.2.2 Mailbox full', { retry: false, address: 'ok', category: 'mailbox_full' }],
    [554, '5.7.1 Message rejected as spam', { retry: false, address: 'ok', category: 'spam_block' }],
    [503, '5.5.1 Error: need RCPT command', { retry: true, address: 'ok', category: 'protocol' }],
    [421, '4.7.0 Try again later, closing connection', later],
    [450, '4.2.0 Greylisted, please try again in 300 seconds', later],
    [451, '4.3.0 Local error in processing', later],
    [452, '4.5.3 Too many recipients', later],
    [undefined, '', later],
    // a failed command carrying a 2xx is no refusal the message can be held to: tried again
    [250, '2.0.0 OK queued as 12345', later],
  ])('%s %s', (code, text, verdict) => {
    expect(classifyReply(code, text)).toEqual(verdict);
  });
});

describe('refusalOf', () => {
  it('retries with the delay the server asked for', () => {
    const reply = '450 4.2.0 Greylisted, please try again in 300 seconds';
    expect(refusalOf(classifyReply(450, reply), reply)).toEqual({
      kind: 'temporary',
      reply,
      category: 'transient',
      retryAfterSeconds: 300,
    });
  });

  it('ends the message on a refusal for good, whatever delay it mentions', () => {
    const reply = '550 5.7.1 Blocked, try again in 300 seconds';
    expect(refusalOf(classifyReply(550, reply), reply)).toEqual({
      kind: 'permanent',
      reply,
      address: 'ok',
      category: 'policy_block',
    });
  });
});

describe('retryHintSeconds', () => {
  it.each([
    ['please try again in 90 seconds', 90],
    ['Try again in 5 minutes', 300],
    ['retry after 2 hours', 7200],
    ['try again in 30s', 30],
    ['temporarily deferred', undefined],
  ] as const)('%s → %s', (text, seconds) => {
    expect(retryHintSeconds(text)).toBe(seconds);
  });
});

describe('classifyNetworkError', () => {
  it.each<[string | undefined, AnswerVerdict]>([
    // the recipient's domain does not exist: as bad an address as a 5.1.2
    ['ENOTFOUND', { retry: false, address: 'bad', category: 'invalid_recipient' }],
    ['ECONNREFUSED', later],
    ['ETIMEDOUT', later],
    ['ECONNECTION', later],
    [undefined, later],
  ])('%s', (code, verdict) => {
    expect(classifyNetworkError(code)).toEqual(verdict);
  });
});

describe('nextAttemptAt (about 1, 5, 15, 30 min, then hourly, up to 48 h)', () => {
  const queuedAt = new Date('2026-01-01T00:00:00Z');
  const minutes = (d: Date | null, from: Date) => (d ? (d.getTime() - from.getTime()) / 60000 : null);

  it.each([
    [1, 1],
    [2, 5],
    [3, 15],
    [4, 30],
    [5, 60],
    [12, 60],
  ])('after attempt %i waits %i minutes', (attempts, expected) => {
    const now = new Date(queuedAt.getTime() + 3600_000);
    expect(minutes(nextAttemptAt({ attempts, queuedAt, now, maxHours: 48 }), now)).toBe(expected);
  });

  it('honours a longer delay asked by the server', () => {
    expect(
      minutes(nextAttemptAt({ attempts: 1, queuedAt, now: queuedAt, maxHours: 48, retryAfterSeconds: 600 }), queuedAt),
    ).toBe(10);
  });

  it('gives up when the next try would fall after the deadline', () => {
    const now = new Date(queuedAt.getTime() + 47.5 * 3600_000);
    expect(nextAttemptAt({ attempts: 40, queuedAt, now, maxHours: 48 })).toBeNull();
    const early = new Date(queuedAt.getTime() + 46 * 3600_000);
    expect(nextAttemptAt({ attempts: 40, queuedAt, now: early, maxHours: 48 })).not.toBeNull();
  });
});
