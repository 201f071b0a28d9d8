// A daily chart's x-axis keeps the last day labelled when frappe-charts thins its labels.
import { describe, expect, it } from 'vitest';
import { keepLastLabel } from '../../src/components/charts/axis-labels.ts';

const days = Array.from({ length: 7 }, (_, i) => `Nov ${24 + i}`);

describe('keepLastLabel', () => {
  it('keeps every label when none was dropped', () => {
    expect(keepLastLabel(days, days)).toEqual(days);
  });

  it('counts frappe’s step back from the last day, so today keeps its label', () => {
    // frappe kept every third label from the first; the last day, Nov 30, had none
    const everyThird = days.map((d, i) => (i % 3 === 0 ? d : ''));
    expect(keepLastLabel(days, everyThird)).toEqual(['Nov 24', '', '', 'Nov 27', '', '', 'Nov 30']);
    const everySecond = [...days, 'Dec 1'].map((d, i) => (i % 2 === 0 ? d : ''));
    expect(keepLastLabel([...days, 'Dec 1'], everySecond)).toEqual([
      '',
      'Nov 25',
      '',
      'Nov 27',
      '',
      'Nov 29',
      '',
      'Dec 1',
    ]);
  });

  it('labels only the last day when frappe kept only the first', () => {
    expect(keepLastLabel(days, [days[0], '', '', '', '', '', ''])).toEqual(['', '', '', '', '', '', 'Nov 30']);
  });
});
