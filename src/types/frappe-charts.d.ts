// The part of frappe-charts 1.6 the Dashboard uses, imported from its ES sources so that only the
// chart type it draws is bundled (the package's entry carries every type and no typings).
declare module 'frappe-charts/src/js/charts/AxisChart' {
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
  export default class AxisChart {
    constructor(parent: HTMLElement, options: AxisChartOptions);
    /** The drawing height; the y-axis state and the steps that follow it (overridden by CountChart). */
    protected height: number;
    protected state: { yAxis: { labels: number[]; positions: number[]; scaleMultiplier: number; zeroLine: number } };
    protected calcYAxisParameters(values: number[], withMinimum?: boolean): void;
    protected calcDatasetPoints(): void;
    protected calcYExtremes(): void;
    protected calcYRegions(): void;
    update(data: AxisChartData): void;
    destroy(): void;
  }
}
