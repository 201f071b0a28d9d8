import { formatDay, shortDay } from '../lib/dates.ts';
import RetryButton from './RetryButton.tsx';
import { useFrappeChart } from './charts/use-frappe-chart.ts';

export interface DailySeries<Day> {
  name: string;
  /** The series' value on one day. */
  value: (day: Day) => number;
  colour: string;
}

interface Props<Day> {
  status: 'idle' | 'loading' | 'loaded' | 'failed';
  days: readonly Day[];
  series: readonly DailySeries<Day>[];
  height: number;
  className?: string;
  testId: string;
  label: string;
  onRetry: () => void;
  retryTestId: string;
}

/**
 * A line chart of daily counts (the Dashboard's overview, a report's Activity): one point per UTC
 * day, drawn by frappe-charts (its module loads only when there is data to draw), with an HTML
 * legend and 'No data.' + Retry when the call failed or the range is empty. Short axis labels
 * ('Mar 1'; with the year beyond a year of days), the full date in the tooltip.
 */
export default function DailyLineChart<Day extends { tstat_day: string }>({
  status,
  days,
  series,
  height,
  className = '',
  testId,
  label,
  onRetry,
  retryTestId,
}: Props<Day>) {
  const drawn = status === 'loaded' && days.length > 0;
  const holder = useFrappeChart(
    () => import('./charts/charts.ts'),
    drawn
      ? ({ CountChart }, mount) => {
          const long = days.length > 366;
          const labels = days.map((d) => (long ? formatDay(d.tstat_day) : shortDay(d.tstat_day)));
          const fullDay = new Map(labels.map((text, i) => [text, formatDay(days[i].tstat_day)]));
          return new CountChart(mount, {
            type: 'line',
            height,
            data: { labels, datasets: series.map((s) => ({ name: s.name, values: days.map(s.value) })) },
            colors: series.map((s) => s.colour),
            axisOptions: { xIsSeries: 1, xAxisMode: 'tick' },
            lineOptions: { dotSize: 3, regionFill: 0 },
            tooltipOptions: { formatTooltipX: (x: string) => fullDay.get(x) ?? x },
          });
        }
      : null,
    [status, days, series, height],
  );

  const empty = status === 'failed' || (status === 'loaded' && days.length === 0);
  return (
    <div className={`overview-chart ${className}`.trim()} aria-busy={status === 'loading' || status === 'idle'}>
      <div ref={holder} className="chart-holder" data-testid={testId} role="img" aria-label={label} />
      <ul className="chart-legend-list" aria-hidden="true">
        {series.map((s) => (
          <li key={s.name}>
            <span className="legend-swatch" style={{ background: s.colour }} />
            {s.name}
          </li>
        ))}
      </ul>
      {empty && (
        <p className="has-text-centered has-text-grey chart-empty">
          No data. <RetryButton onRetry={onRetry} testId={retryTestId} />
        </p>
      )}
    </div>
  );
}
