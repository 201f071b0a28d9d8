// frappe-charts for the Dashboard's overview chart (docs/architecture.md §9: frappe-charts for charts): only its
// line chart, with the library's stylesheet. The island imports this module dynamically, so the
// chart code loads only where a chart is drawn and never runs on the server.
import 'frappe-charts/src/css/charts.scss';
import AxisChart, { type AxisChartData, type AxisChartOptions } from 'frappe-charts/src/js/charts/AxisChart';
import { guardRedraw } from './chart-redraw-guard.ts';
import { countTicks } from './count-ticks.ts';
import { keepLastLabel } from './axis-labels.ts';

/**
 * A line chart of counts: frappe-charts' AxisChart with whole-number y ticks from 0, in
 * place of the library's quarter steps for small maxima. Mirrors AxisChart.calcYAxisParameters.
 */
export class CountChart extends AxisChart {
  constructor(parent: HTMLElement, options: AxisChartOptions) {
    super(parent, options);
    // a redraw during the update animation must not throw (chart-redraw-guard.ts)
    guardRedraw(this);
  }

  /** The x-axis labels frappe thins are kept counted back from the last day (axis-labels.ts). */
  calcXPositions(): void {
    super.calcXPositions();
    const axis = this.state.xAxis;
    let shown: string[] = [];
    Object.defineProperty(axis, 'calcLabels', {
      configurable: true,
      enumerable: true,
      get: () => shown,
      set: (thinned: string[]) => {
        shown = keepLastLabel(axis.labels, thinned);
      },
    });
  }

  /**
   * The first frame: every point at 0, rising to the data. frappe's own first frame drops the last
   * point, which for a range of one day leaves a line of no points: `<path d="M">`, a console error.
   */
  prepareFirstData(data: AxisChartData): AxisChartData {
    return {
      labels: data.labels,
      datasets: data.datasets.map((d) => ({ name: '', values: d.values.map(() => 0), chartType: d.chartType })),
    };
  }

  calcYAxisParameters(values: number[]): void {
    const ticks = countTicks(Math.max(0, ...values));
    const scaleMultiplier = this.height / ticks[ticks.length - 1];
    const zeroLine = this.height;
    this.state.yAxis = {
      labels: ticks,
      positions: ticks.map((t) => zeroLine - t * scaleMultiplier),
      scaleMultiplier,
      zeroLine,
    };
    this.calcDatasetPoints();
    this.calcYExtremes();
    this.calcYRegions();
  }
}
