// scheduled_at as Resend takes it (src/server/lifecycle/scheduled-at.ts): ISO 8601 with an offset or a
// few words in UTC, in the future and at most 30 days ahead; anything else refused with a reason.
import { describe, expect, it } from 'vitest';
import { readScheduledAt } from '../../src/server/lifecycle/scheduled-at.ts';

const NOW = new Date('2026-11-27T17:50:00Z');
const at = (text: string) => {
  const read = readScheduledAt(text, NOW);
  return 'at' in read ? read.at.toISOString() : read.problem;
};

describe('readScheduledAt', () => {
  it.each([
    ['2026-11-28T09:00:00Z', '2026-11-28T09:00:00.000Z'],
    ['2026-11-28T09:00:00+01:00', '2026-11-28T08:00:00.000Z'],
    ['2026-11-28T09:00:00.250-05:00', '2026-11-28T14:00:00.250Z'],
    ['2026-11-28 09:00Z', '2026-11-28T09:00:00.000Z'],
    ['in 1 hour', '2026-11-27T18:50:00.000Z'],
    ['in 1 min', '2026-11-27T17:51:00.000Z'],
    ['tomorrow at 9am', '2026-11-28T09:00:00.000Z'],
    ['  Tomorrow at 9am ', '2026-11-28T09:00:00.000Z'],
    ['next monday 10:00', '2026-11-30T10:00:00.000Z'],
    ['in 30 days', '2026-12-27T17:50:00.000Z'],
  ])('reads %j as %s', (text, expected) => {
    expect(at(text)).toBe(expected);
  });

  it.each([
    ['2026-11-28T09:00:00', /needs its offset/],
    ['2026-11-28', /needs its offset/],
    ['banana', /could not read "banana"/],
    ['tomorrow or so', /could not read/],
    ['', /could not read/],
    ['yesterday', /must be in the future/],
    ['now', /must be in the future/],
    ['2026-11-27T17:50:00Z', /must be in the future/],
    ['in 31 days', /at most 30 days ahead/],
    ['2027-06-01T00:00:00Z', /at most 30 days ahead/],
  ])('refuses %j', (text, problem) => {
    expect(at(text)).toMatch(problem);
  });
});
