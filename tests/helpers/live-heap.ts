// The JavaScript heap a piece of work keeps alive, measured after a full collection each time, so
// the figure is what the code holds, not how far the collector has fallen behind: with the machine's
// cores busy, V8's concurrent marking lags and the heap (and the process's RSS) grows with garbage
// that a later collection frees, which makes an RSS bound depend on the load beside the test.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// `gc` is exposed to contexts made after the flag is set (the test process is not started with
// --expose-gc)
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

function liveHeap(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

/**
 * Runs `work` while sampling the live heap every `everyMs`; answers its result and the peak growth
 * of the live heap over the one before it started, in MB. A full collection of the test process's
 * heap is not free (a tenth of a second or more on a loaded machine), so samples are a second apart:
 * at four a second the 200,000-row export on PostgreSQL took ten minutes in CI instead of four.
 */
export async function peakLiveHeapGrowth<T>(
  work: () => Promise<T>,
  everyMs = 1_000,
): Promise<{ result: T; mb: number }> {
  const before = liveHeap();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, liveHeap())), everyMs);
  try {
    const result = await work();
    peak = Math.max(peak, liveHeap());
    return { result, mb: (peak - before) / 1024 / 1024 };
  } finally {
    clearInterval(sampler);
  }
}
