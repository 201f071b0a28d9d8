// V8 collects the old generation when it outgrows a limit set from what survived the last full
// collection. By its own heuristics a busy service may grow to about four times that before the next
// one (it weighs collection time against the memory it has, and this process has a whole machine's
// worth): under the delivery load of docs/benchmarks.md, 200 MB of old space for 50 MB live. A fixed
// growth factor keeps the peak near what is live, at the price of more frequent, smaller
// collections. V8 reads the factor at each collection, so setting it once the process runs is
// enough.
import v8 from 'node:v8';

/** Caps the old generation's growth between full collections at `percent` (0 leaves V8's own). */
export function limitHeapGrowth(percent: number): void {
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
