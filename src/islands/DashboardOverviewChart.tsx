import { useEffect } from 'react';
import DailyLineChart, { type DailySeries } from '../components/DailyLineChart.tsx';
import { SERIES_COLOURS } from '../lib/series-colours.ts';
import { type DailyStatWire, ensureOverview, loadOverview, overview } from '../stores/dashboard.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

const SERIES: DailySeries<DailyStatWire>[] = [
  { name: 'Sent', value: (d) => d.sent, colour: SERIES_COLOURS.sent },
  { name: 'Delivered', value: (d) => d.delivered, colour: SERIES_COLOURS.delivered },
  { name: 'Bounced', value: (d) => d.bounced, colour: SERIES_COLOURS.bounced },
  { name: 'Failed', value: (d) => d.failed, colour: SERIES_COLOURS.failed },
  { name: 'Opens', value: (d) => d.opens, colour: SERIES_COLOURS.opens },
  { name: 'Clicks', value: (d) => d.link_clicks, colour: SERIES_COLOURS.clicks },
];

/**
 * The Dashboard's overview chart (docs/console.md §2): per day of the range, sent, delivered, bounced,
 * failed, opens and clicks from POST /v1/dashboard/overview.
 */
export default function DashboardOverviewChart() {
  const $overview = useIslandStore(overview);
  useEffect(() => ensureOverview(), []);
  return (
    <DailyLineChart
      status={$overview.status}
      days={$overview.days}
      series={SERIES}
      height={320}
      testId="overview-chart"
      label="Daily sent, delivered, bounced, failed, opens and clicks"
      onRetry={() => void loadOverview()}
      retryTestId="overview-retry"
    />
  );
}
