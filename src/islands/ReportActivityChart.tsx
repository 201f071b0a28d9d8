import { useEffect, useMemo } from 'react';
import DailyLineChart from '../components/DailyLineChart.tsx';
import { ACTIVITY_SERIES, type ReportDayWire, type ReportType } from '../lib/group-report.ts';
import { SERIES_COLOURS } from '../lib/series-colours.ts';
import { activity, loadReport, openReport, startReport } from './stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/**
 * A report's 'Activity' line chart (spec part two §2): the dailyStats series that fit the page,
 * one point per UTC day of the range.
 */
export default function ReportActivityChart({ groupUuid, type }: { groupUuid: string; type: ReportType }) {
  const $activity = useIslandStore(activity);
  const series = useMemo(
    () => ACTIVITY_SERIES[type].map((s) => ({ name: s.name, value: (d: ReportDayWire) => d[s.key], colour: SERIES_COLOURS[s.tone] })),
    [type],
  );
  useEffect(() => {
    openReport(groupUuid, type);
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
