import { describe, expect, it } from 'vitest';
import { DARK_INK, LIGHT_INK, contrastRatio, inkFor } from '../../src/lib/contrast.ts';

describe('header ink on an enterprise colour', () => {
  it('computes WCAG contrast ratios', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#fff', '#fff')).toBe(1);
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
  });

  it.each([
    ['#243447', LIGHT_INK],
    ['#8a2be2', LIGHT_INK],
    ['#1f4e99', LIGHT_INK],
    ['#f5a623', DARK_INK],
    ['#ffdd57', DARK_INK],
    ['#23d160', DARK_INK],
    ['#fff', DARK_INK],
  ])('%s → %s, at least 4.5:1', (background, ink) => {
    expect(inkFor(background)).toBe(ink);
  });

  it('always reaches 4.5:1 (WCAG 1.4.3) on any grey', () => {
    for (let v = 0; v < 256; v += 5) {
      const hex = `#${v.toString(16).padStart(2, '0').repeat(3)}`;
      expect(contrastRatio(hex, inkFor(hex)), hex).toBeGreaterThanOrEqual(4.5);
    }
  });
});
