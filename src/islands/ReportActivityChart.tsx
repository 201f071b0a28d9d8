import { useEffect, useMemo } from 'react';
import DailyLineChart from '../components/DailyLineChart.tsx';
import type { GroupReportType } from '../contract/values.ts';
import { ACTIVITY_SERIES, type ReportDayWire } from '../lib/group-report.ts';
import type { DayRange } from '../lib/dates.ts';
import { SERIES_COLOURS } from '../lib/series-colours.ts';
import { activity, loadReport, openReport, reportRendered, startReport } from '../stores/group-report.ts';
import { useSeededStore } from '../lib/island-hooks.ts';

/**
 * A report's 'Activity' line chart (docs/console-reports.md §2): the dailyStats series that fit the page,
 * one point per UTC day of the range. `first`: the series and its range from the call the server
 * made for the page's table, so the chart draws without calling again.
 */
export default function ReportActivityChart({
  groupUuid,
  type,
  first = null,
}: {
  groupUuid: string;
  type: GroupReportType;
  first?: { days: ReportDayWire[]; range: DayRange } | null;
}) {
  const $activity = useSeededStore(activity, first && { status: 'loaded' as const, days: first.days });
  const series = useMemo(
    () =>
      ACTIVITY_SERIES[type].map((s) => ({
        name: s.name,
        value: (d: ReportDayWire) => d[s.key],
        colour: SERIES_COLOURS[s.tone],
      })),
    [type],
  );
  useEffect(() => {
    openReport(groupUuid, type);
    if (first) reportRendered(first.range);
    startReport();
  }, []);
  return (
    <DailyLineChart
      status={$activity.status}
      days={$activity.days}
      series={series}
      height={280}
      className="activity-chart"
      testId="activity-chart"
      label={`Daily ${series.map((s) => s.name.toLowerCase()).join(', ')}`}
      onRetry={() => void loadReport()}
      retryTestId="activity-retry"
    />
  );
}
