// The Overview widget's abbreviated counts (docs/console-reports.md §2: suffixes k, M, G, T, P, E).
import { describe, expect, it } from 'vitest';
import { abbreviateCount } from '../../src/lib/abbreviate.ts';

describe('abbreviateCount', () => {
  it.each([
    [0, '0'],
    [7, '7'],
    [999, '999'],
    [1000, '1k'],
    [1049, '1k'],
    [1050, '1.1k'],
    [1500, '1.5k'],
    [12_345, '12.3k'],
    [99_949, '99.9k'],
    [99_950, '100k'],
    [123_456, '123k'],
    [999_499, '999k'],
    [999_500, '1M'],
    [1_000_000, '1M'],
    [2_340_000, '2.3M'],
    [7_000_000_000, '7G'],
    [1.2e12, '1.2T'],
    [3e15, '3P'],
    [2.5e18, '2.5E'],
    [4.2e21, '4200E'],
    [-1500, '-1.5k'],
  ])('%d → %s', (count, text) => {
    expect(abbreviateCount(count)).toBe(text);
  });

  it('reads anything that is not a number as 0', () => {
    expect(abbreviateCount(Number.NaN)).toBe('0');
  });
});
