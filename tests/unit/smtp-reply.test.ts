import { describe, expect, it } from 'vitest';
import {
  classifyNetworkError,
  classifyReply,
  nextAttemptAt,
  retryHintSeconds,
} from '../../src/server/delivery/smtp-reply.ts';

describe('classifyReply (RFC 5321 §4.2.1)', () => {
  it.each([
    [250, '2.0.0 OK queued as 12345', 'delivered'],
    [251, 'User not local; will forward', 'delivered'],
    [550, '5.1.1 <nobody@example.com>: Recipient address rejected: User unknown', 'permanent'],
    [552, '5.2.2 Mailbox full', 'permanent'],
    [554, '5.7.1 Message rejected as spam', 'permanent'],
    [503, '5.5.1 Error: need RCPT command', 'temporary'],
    [421, '4.7.0 Try again later, closing connection', 'temporary'],
    [450, '4.2.0 Greylisted, please try again in 300 seconds', 'temporary'],
    [451, '4.3.0 Local error in processing', 'temporary'],
    [452, '4.5.3 Too many recipients', 'temporary'],
    [undefined, '', 'temporary'],
  ] as const)('%s %s → %s', (code, text, kind) => {
    expect(classifyReply(code, text).kind).toBe(kind);
  });

  it('carries the delay a server asked for', () => {
    expect(classifyReply(450, '4.2.0 Greylisted, please try again in 300 seconds')).toEqual({
      kind: 'temporary',
      retryAfterSeconds: 300,
    });
    expect(classifyReply(550, 'try again in 300 seconds').retryAfterSeconds).toBeUndefined();
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
  it.each([
    ['ENOTFOUND', 'permanent'],
    ['ECONNREFUSED', 'temporary'],
    ['ETIMEDOUT', 'temporary'],
    ['ECONNECTION', 'temporary'],
    [undefined, 'temporary'],
  ] as const)('%s → %s', (code, kind) => {
    expect(classifyNetworkError(code)).toBe(kind);
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
