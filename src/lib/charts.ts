// frappe-charts for the Dashboard's overview chart (DESIGN.md: frappe-charts for charts): only its
// line chart, with the library's stylesheet. The island imports this module dynamically, so the
// chart code loads only where a chart is drawn and never runs on the server.
import 'frappe-charts/src/css/charts.scss';
export { default as AxisChart } from 'frappe-charts/src/js/charts/AxisChart';

/** Spec core §9: delivered green, bounced amber, others red; the rest of the series in calm tones. */
export const SERIES_COLOURS = {
  sent: '#3273dc',
  delivered: '#23a26d',
  bounced: '#f2a900',
  failed: '#e0403f',
  opens: '#8e6ad8',
  clicks: '#1fa3b8',
} as const;
