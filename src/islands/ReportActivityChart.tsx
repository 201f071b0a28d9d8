import { useEffect, useRef } from 'react';
import { formatDay, shortDay } from '../lib/dates.ts';
import { ACTIVITY_SERIES, type ReportType, SERIES_TONE_COLOURS } from '../lib/group-report.ts';
import { activity, loadReport, openReport, startReport } from './stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/**
 * A report's 'Activity' line chart (spec part two §2): the dailyStats series that fit the page,
 * one point per UTC day of the range, drawn by frappe-charts (loaded when there is data to draw).
 */
export default function ReportActivityChart({ groupUuid, type }: { groupUuid: string; type: ReportType }) {
  const $activity = useIslandStore(activity);
  const holder = useRef<HTMLDivElement>(null);
  const series = ACTIVITY_SERIES[type];
  useEffect(() => {
    openReport(groupUuid, type);
    startReport();
  }, []);

  useEffect(() => {
    const days = $activity.days;
    if ($activity.status !== 'loaded' || days.length === 0 || !holder.current) return;
    const parent = holder.current;
    let chart: { destroy(): void } | null = null;
    let cancelled = false;
    void import('../lib/charts.ts').then(({ CountChart }) => {
      if (cancelled) return;
      const long = days.length > 366;
      const labels = days.map((d) => (long ? formatDay(d.tstat_day) : shortDay(d.tstat_day)));
      const fullDay = new Map(labels.map((label, i) => [label, formatDay(days[i].tstat_day)]));
      chart = new CountChart(parent, {
        type: 'line',
        height: 280,
        data: { labels, datasets: series.map((s) => ({ name: s.name, values: days.map((d) => d[s.key]) })) },
        colors: series.map((s) => SERIES_TONE_COLOURS[s.tone]),
        axisOptions: { xIsSeries: 1, xAxisMode: 'tick' },
        lineOptions: { dotSize: 3, regionFill: 0 },
        tooltipOptions: { formatTooltipX: (label: string) => fullDay.get(label) ?? label },
      });
      parent.dataset.drawn = 'true';
    });
    return () => {
      cancelled = true;
      chart?.destroy();
      parent.replaceChildren();
      delete parent.dataset.drawn;
    };
  }, [$activity, series]);

  const empty = $activity.status === 'failed' || ($activity.status === 'loaded' && $activity.days.length === 0);
  return (
    <div className="overview-chart activity-chart" aria-busy={$activity.status === 'loading'}>
      <div ref={holder} className="chart-holder" data-testid="activity-chart" role="img" aria-label={`Daily ${series.map((s) => s.name.toLowerCase()).join(', ')}`} />
      <ul className="chart-legend-list" aria-hidden="true">
        {series.map((s) => (
          <li key={s.key}><span className="legend-swatch" style={{ background: SERIES_TONE_COLOURS[s.tone] }} />{s.name}</li>
        ))}
      </ul>
      {empty && (
        <p className="has-text-centered has-text-grey chart-empty">
          No data.{' '}
          <button type="button" className="button is-small is-light" onClick={() => void loadReport()} data-testid="activity-retry">Retry</button>
        </p>
      )}
    </div>
  );
}
