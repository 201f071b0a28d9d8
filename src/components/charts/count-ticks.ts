// The y-axis of a chart of counts (with one message the overview chart counted in 0.25
// steps). frappe-charts splits a range of 1 or 2 into quarters; counts have whole ticks only.

/** Whole-number ticks from 0 covering `max`: a step of 1, 2 or 5 × 10^n, at most `maxIntervals` intervals. */
export function countTicks(max: number, maxIntervals = 5): number[] {
  const top = Math.max(1, Math.ceil(Number.isFinite(max) ? max : 0));
  let step = 1;
  for (let magnitude = 1; Math.ceil(top / step) > maxIntervals; ) {
    const next = [1, 2, 5].map((m) => m * magnitude).find((s) => s > step && Math.ceil(top / s) <= maxIntervals);
    if (next) step = next;
    else {
      magnitude *= 10;
      step = Math.max(step, magnitude);
    }
  }
  const intervals = Math.max(1, Math.ceil(top / step));
  return Array.from({ length: intervals + 1 }, (_, i) => i * step);
}
