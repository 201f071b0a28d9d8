// The webhook retry schedule and Retry-After parsing, and the query-string flattening
// of payloads for GET and DELETE webhooks.
import { describe, expect, it } from 'vitest';
import { nextRetryAt, parseRetryAfter, RETRY_DELAYS_SECONDS } from '../../src/server/webhooks/schedule.ts';
import { flatten } from '../../src/server/webhooks/payload.ts';

const now = new Date('2026-11-23T12:00:00Z');
const after = (d: Date | null) => (d ? (d.getTime() - now.getTime()) / 1000 : null);

describe('nextRetryAt', () => {
  it('walks 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h (about three days), then stops', () => {
    expect(RETRY_DELAYS_SECONDS.map((_, step) => after(nextRetryAt(step, now, () => 0.5)))).toEqual([
      5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400,
    ]);
    expect(RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0) / 86400).toBeCloseTo(3.0, 0);
    expect(nextRetryAt(RETRY_DELAYS_SECONDS.length, now, () => 0.5)).toBeNull();
  });

  it('jitters by ±10 %', () => {
    expect(after(nextRetryAt(1, now, () => 0))).toBe(270);
    expect(after(nextRetryAt(1, now, () => 0.999999))).toBeCloseTo(330, 0);
  });

  it('takes Retry-After, capped at twice the step', () => {
    expect(after(nextRetryAt(1, now, () => 0.5, 120))).toBe(120);
    expect(after(nextRetryAt(1, now, () => 0.5, 100_000))).toBe(600);
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates, and ignores nonsense', () => {
    expect(parseRetryAfter('30', now)).toBe(30);
    expect(parseRetryAfter('Mon, 23 Nov 2026 12:01:00 GMT', now)).toBe(60);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('flatten', () => {
  it('joins nested keys with dots, arrays with commas, null as empty', () => {
    expect(
      flatten({ type: 'email.sent', data: { to: { email: 'a@b.c', name: null }, tags: ['x', 'y'], n: 3 } }),
    ).toEqual([
      ['type', 'email.sent'],
      ['data.to.email', 'a@b.c'],
      ['data.to.name', ''],
      ['data.tags', 'x,y'],
      ['data.n', '3'],
    ]);
  });
});
