import { useEffect, useRef } from 'react';
import { formatDay, shortDay } from '../lib/dates.ts';
import { type DailyStatWire, ensureOverview, loadOverview, overview } from './stores/dashboard.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

const SERIES: { key: keyof DailyStatWire & ('sent' | 'delivered' | 'bounced' | 'failed' | 'opens' | 'link_clicks'); name: string; colour: 'sent' | 'delivered' | 'bounced' | 'failed' | 'opens' | 'clicks' }[] = [
  { key: 'sent', name: 'Sent', colour: 'sent' },
  { key: 'delivered', name: 'Delivered', colour: 'delivered' },
  { key: 'bounced', name: 'Bounced', colour: 'bounced' },
  { key: 'failed', name: 'Failed', colour: 'failed' },
  { key: 'opens', name: 'Opens', colour: 'opens' },
  { key: 'link_clicks', name: 'Clicks', colour: 'clicks' },
];

/**
 * The Dashboard's overview chart (spec core §2): per day of the range, sent, delivered, bounced,
 * failed, opens and clicks from POST /v1/dashboard/overview, drawn by frappe-charts.
 */
export default function DashboardOverviewChart() {
  const $overview = useIslandStore(overview);
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => ensureOverview(), []);

  useEffect(() => {
    const days = $overview.days;
    if ($overview.status !== 'loaded' || days.length === 0 || !holder.current) return;
    const parent = holder.current;
    let chart: { destroy(): void } | null = null;
    let cancelled = false;
    void import('../lib/charts.ts').then(({ CountChart, SERIES_COLOURS }) => {
      if (cancelled) return;
      // short axis labels ('Mar 1'; with the year beyond a year of days), the full date in the tooltip
      const long = days.length > 366;
      const labels = days.map((d) => (long ? formatDay(d.tstat_day) : shortDay(d.tstat_day)));
      const fullDay = new Map(labels.map((label, i) => [label, formatDay(days[i].tstat_day)]));
      chart = new CountChart(parent, {
        type: 'line',
        height: 320,
        data: { labels, datasets: SERIES.map((s) => ({ name: s.name, values: days.map((d) => d[s.key]) })) },
        colors: SERIES.map((s) => SERIES_COLOURS[s.colour]),
        axisOptions: { xIsSeries: 1, xAxisMode: 'tick' },
        lineOptions: { dotSize: 3, regionFill: 0 },
        tooltipOptions: { formatTooltipX: (label) => fullDay.get(label) ?? label },
      });
      parent.dataset.drawn = 'true';
    });
    return () => {
      cancelled = true;
      chart?.destroy();
      parent.replaceChildren();
      delete parent.dataset.drawn;
    };
  }, [$overview]);

  const empty = $overview.status === 'failed' || ($overview.status === 'loaded' && $overview.days.length === 0);
  return (
    <div className="overview-chart" aria-busy={$overview.status === 'loading' || $overview.status === 'idle'}>
      <div ref={holder} className="chart-holder" data-testid="overview-chart" role="img" aria-label="Daily sent, delivered, bounced, failed, opens and clicks" />
      <ul className="chart-legend-list" aria-hidden="true">
        {SERIES.map((s) => (
          <li key={s.key}><span className={`legend-swatch is-${s.colour}`} />{s.name}</li>
        ))}
      </ul>
      {empty && (
        <p className="has-text-centered has-text-grey chart-empty">
          No data.{' '}
          <button type="button" className="button is-small is-light" onClick={() => void loadOverview()} data-testid="overview-retry">Retry</button>
        </p>
      )}
    </div>
  );
}
