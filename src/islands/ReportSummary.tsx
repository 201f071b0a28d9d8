import { useEffect } from 'react';
import type { GroupReportType } from '../contract/values.ts';
import { abbreviateCount } from '../lib/abbreviate.ts';
import { PAGE_SUMMARY, SUMMARY_KEYS, SUMMARY_LABELS, machinesOf, percentText, summaryOf } from '../lib/group-report.ts';
import { openReport, overviewStats, startOverviewStats } from '../stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import { formatCount } from '../lib/numbers.ts';

/**
 * The stats summary band of every report page (docs/console-reports.md §2): the range's transactions, sent,
 * delivered, bounced, complaints, failed, opened and clicked from the overview stats, abbreviated (k, M, G…)
 * with the exact figure in the tooltip; the page's own figure stands out. Opened and Clicked count
 * people; machines' opens and clicks stand under them ('+ 1,204 by machines') so none is hidden.
 */
export default function ReportSummary({ groupUuid, type }: { groupUuid: string; type: GroupReportType }) {
  const $overview = useIslandStore(overviewStats);
  useEffect(() => {
    openReport(groupUuid, type);
    startOverviewStats();
  }, []);
  const stats = $overview.stats;
  return (
    <dl className="report-summary" aria-busy={$overview.status === 'waiting'} data-testid="report-summary">
      {SUMMARY_KEYS.map((key) => {
        const entry = stats ? summaryOf(stats, key) : null;
        const machines = stats ? machinesOf(stats, key) : null;
        return (
          <div
            key={key}
            className={`summary-item${PAGE_SUMMARY[type] === key ? ' is-current' : ''}`}
            data-testid={`summary-${key}`}
          >
            <dt>{SUMMARY_LABELS[key]}</dt>
            <dd>
              <span
                className="summary-value"
                title={entry ? formatCount(entry.value) : undefined}
                data-testid={`summary-${key}-value`}
              >
                {entry ? abbreviateCount(entry.value) : '–'}
              </span>
              {entry && entry.percentage !== null && (
                <span className="summary-share" data-testid={`summary-${key}-share`}>
                  {percentText(entry.percentage, key)}
                </span>
              )}
            </dd>
            {machines !== null && (
              <dd className="summary-machines" data-testid={`summary-${key}-machines`}>
                + {formatCount(machines)} by machines
              </dd>
            )}
          </div>
        );
      })}
    </dl>
  );
}
