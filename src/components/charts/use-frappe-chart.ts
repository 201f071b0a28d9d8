// Draws a frappe-charts chart in a holder element React renders and keeps it in step with its data:
// the chart's module loads (dynamically: only where a chart is drawn), the chart goes into an element
// of its own inside the holder, and is destroyed when the data changes or the holder unmounts.
import { type DependencyList, type RefObject, useEffect, useRef } from 'react';

/**
 * A chart in the returned holder ref while `draw` is not null: `load` imports the chart's module,
 * `draw` makes the chart on the element it is given. The holder has `data-drawn` while a chart is in it.
 * Redrawn when `deps` change.
 */
export function useFrappeChart<M>(
  load: () => Promise<M>,
  draw: ((module: M, mount: HTMLElement) => { destroy(): void }) | null,
  deps: DependencyList,
): RefObject<HTMLDivElement | null> {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!draw || !holder.current) return;
    const parent = holder.current;
    let chart: { destroy(): void } | null = null;
    let cancelled = false;
    // each chart gets an element of its own: frappe keeps observing its element after destroy()'s
    // last callback is queued, and must not find the next chart's drawing there
    const mount = document.createElement('div');
    void load().then((module) => {
      if (cancelled) return;
      parent.append(mount);
      chart = draw(module, mount);
      parent.dataset.drawn = 'true';
    });
    return () => {
      cancelled = true;
      chart?.destroy();
      mount.remove();
      delete parent.dataset.drawn;
    };
  }, deps);
  return holder;
}
