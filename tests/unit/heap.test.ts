import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/server/core/config.ts';

const churn = path.resolve(import.meta.dirname, '../fixtures/heap-churn.ts');

/** The old generation's peak in a fresh process making the same garbage with HEAP_GROWTH_PERCENT = percent. */
function peakMb(percent: number): number {
  const out = execFileSync(process.execPath, [churn, String(percent)], { encoding: 'utf8' });
  return (JSON.parse(out.trim().split('\n').at(-1) as string) as { peakMb: number }).peakMb;
}

describe('limitHeapGrowth', () => {
  it('keeps the old generation near what is live, where V8 alone lets it grow far past it', () => {
    const own = peakMb(0);
    const limited = peakMb(Number(SETTINGS.heapGrowthPercent.default));
    // at the default of 60 %, about 145 MB against 250 on Node 22: the margin leaves room for V8's own choices
    expect(limited).toBeLessThan(own * 0.75);
    // a bound for a hang: two processes that each churn a heap take over vitest's 5 s on two busy cores
  }, 60_000);
});
