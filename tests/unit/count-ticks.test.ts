import { describe, expect, it } from 'vitest';
import { countTicks } from '../../src/components/charts/count-ticks.ts';

describe('countTicks', () => {
  it.each([
    [0, [0, 1]],
    [1, [0, 1]],
    [2, [0, 1, 2]],
    [3, [0, 1, 2, 3]],
    [5, [0, 1, 2, 3, 4, 5]],
    [6, [0, 2, 4, 6]],
    [7, [0, 2, 4, 6, 8]],
    [11, [0, 5, 10, 15]],
    [48, [0, 10, 20, 30, 40, 50]],
    [1234, [0, 500, 1000, 1500]],
    [30000, [0, 10000, 20000, 30000]],
  ])('max %d → %j', (max, ticks) => {
    expect(countTicks(max)).toEqual(ticks);
  });

  it('gives whole numbers only, covering the maximum with at most five intervals', () => {
    for (let max = 0; max <= 2000; max += 7) {
      const ticks = countTicks(max);
      expect(ticks.every(Number.isInteger), String(max)).toBe(true);
      expect(ticks.at(-1)!, String(max)).toBeGreaterThanOrEqual(max);
      expect(ticks.length - 1, String(max)).toBeLessThanOrEqual(5);
    }
  });
});
