// frappe-charts (1.6) animates an update by swapping its <svg> for an animated copy for 400 ms; a
// redraw in that window (its ResizeObserver fires when the page's layout shifts, as on a phone while
// the islands below hydrate) calls container.removeChild(svg) on an svg that is not there and
// throws NotFoundError as an uncaught page error (the hydration check on the report pages caught it).
import type BaseChart from 'frappe-charts/src/js/charts/BaseChart';

/** Makes `chart`'s later redraws drop the animated copy instead of throwing. Returns the chart. */
export function guardRedraw<T extends BaseChart>(chart: T): T {
  const c: BaseChart = chart;
  const makeChartArea = c.makeChartArea.bind(c);
  c.makeChartArea = () => {
    if (c.svg && c.svg.parentNode !== c.container) {
      // the animated copy stands in the svg's place: remove it; the animation's own swap-back then finds nothing to do
      for (const el of [...c.container.children]) if (el instanceof SVGSVGElement) el.remove();
      c.svg = null;
    }
    makeChartArea();
  };
  return chart;
}
