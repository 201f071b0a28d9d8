// frappe-charts' pie chart for the Overview report's open and click pies (docs/console-reports.md §2), from
// its ES sources like the line chart in charts.ts, and loaded the same way: dynamically, by the
// island that draws it, so no other page pays for it.
import 'frappe-charts/src/css/charts.scss';
import FrappePieChart, { type PieChartOptions } from 'frappe-charts/src/js/charts/PieChart';
import { guardRedraw } from './chart-redraw-guard.ts';

/** frappe's pie chart whose redraws during its update animation do not throw (chart-redraw-guard.ts). */
export class PieChart extends FrappePieChart {
  constructor(parent: HTMLElement, options: PieChartOptions) {
    super(parent, options);
    guardRedraw(this);
  }
}
