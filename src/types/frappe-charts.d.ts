// The part of frappe-charts 1.6 the Dashboard uses, imported from its ES sources so that only the
// chart type it draws is bundled (the package's entry carries every type and no typings).
// BaseChart: what every chart type inherits; the fields src/lib/chart-redraw-guard.ts patches
declare module 'frappe-charts/src/js/charts/BaseChart' {
  export default class BaseChart {
    /** The chart's <svg>; during an update animation an animated copy stands in its place. */
    svg: SVGSVGElement | null;
    container: HTMLElement;
    /** Makes a fresh <svg> and replaces the current one (every redraw). */
    makeChartArea(): void;
  }
}
declare module 'frappe-charts/src/js/charts/AxisChart' {
  import BaseChart from 'frappe-charts/src/js/charts/BaseChart';
  export interface AxisChartData {
    labels: string[];
    datasets: { name: string; values: number[]; chartType?: 'line' | 'bar' }[];
  }
  export interface AxisChartOptions {
    type?: 'line' | 'bar' | 'axis-mixed';
    data: AxisChartData;
    title?: string;
    height?: number;
    colors?: string[];
    animate?: 0 | 1;
    axisOptions?: {
      xIsSeries?: 0 | 1;
      xAxisMode?: 'span' | 'tick';
      yAxisMode?: 'span' | 'tick';
      shortenYAxisNumbers?: 0 | 1;
    };
    lineOptions?: { hideDots?: 0 | 1; dotSize?: number; regionFill?: 0 | 1; spline?: 0 | 1; heatline?: 0 | 1 };
    tooltipOptions?: { formatTooltipX?(label: string): string; formatTooltipY?(value: number): string };
  }
  export default class AxisChart extends BaseChart {
    constructor(parent: HTMLElement, options: AxisChartOptions);
    /** The drawing height; the y-axis state and the steps that follow it (overridden by CountChart). */
    protected height: number;
    protected state: {
      yAxis: { labels: number[]; positions: number[]; scaleMultiplier: number; zeroLine: number };
      /** calcLabels: the labels shown, thinned to fit (set on every draw of the axis). */
      xAxis: { labels: string[]; positions: number[]; calcLabels?: string[] };
    };
    /** The x positions and labels of the points (every draw). */
    protected calcXPositions(): void;
    protected calcYAxisParameters(values: number[], withMinimum?: boolean): void;
    /** The data of the first frame, which the chart then animates to the real data. */
    protected prepareFirstData(data: AxisChartData): AxisChartData;
    protected calcDatasetPoints(): void;
    protected calcYExtremes(): void;
    protected calcYRegions(): void;
    update(data: AxisChartData): void;
    destroy(): void;
  }
}
