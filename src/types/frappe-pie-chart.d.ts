// frappe-charts 1.6's pie chart, imported from its ES sources (src/components/charts/pie-charts.ts); the package ships
// no typings.
declare module 'frappe-charts/src/js/charts/PieChart' {
  import BaseChart from 'frappe-charts/src/js/charts/BaseChart';
  export interface PieChartOptions {
    type?: 'pie';
    data: { labels: string[]; datasets: { name?: string; values: number[] }[] };
    title?: string;
    height?: number;
    colors?: string[];
    animate?: 0 | 1;
    maxSlices?: number;
    tooltipOptions?: { formatTooltipY?(value: number): string };
  }
  export default class PieChart extends BaseChart {
    constructor(parent: HTMLElement, options: PieChartOptions);
    destroy(): void;
  }
}
