import { useEffect } from 'react';
import DonutChart from '../components/DonutChart.tsx';
import { abbreviateCount } from '../lib/abbreviate.ts';
import type { Timers } from '../lib/answer-watch.ts';
import { type OverviewStatsWire, percentText } from '../lib/group-report.ts';
import { STATES } from '../lib/figures.ts';
import { loadOverviewStats, openReport, overviewStats, startOverviewStats } from '../stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import { formatCount } from '../lib/numbers.ts';
import RetryButton from '../components/RetryButton.tsx';

type Outcome = 'delivered' | 'bounced' | 'complaints' | 'failed' | 'pending' | 'sent';
const STATS: { key: Outcome; label: string }[] = [
  { key: 'delivered', label: 'Delivered' },
  { key: 'bounced', label: 'Bounced' },
  // spam complaints from feedback loops, their share of the delivered: the complaint rate
  { key: 'complaints', label: 'Complaints' },
  { key: 'failed', label: 'Failed' },
  { key: 'pending', label: 'Pending' },
  { key: 'sent', label: 'Sent' },
];
/** The entries without a slice of the donut, so without its colour's dot. */
const UNCOLOURED: ReadonlySet<Outcome> = new Set(['complaints', 'sent']);

function Count({ value, testId }: { value: number; testId: string }) {
  return (
    <span title={formatCount(value)} data-testid={testId}>
      {abbreviateCount(value)}
    </span>
  );
}

/**
 * The Overview donut widget (docs/console-reports.md §2, §4, §9): the range's figures (src/lib/figures.ts): the
 * four states, delivered, bounced, failed and pending, as shares of a donut in green, yellow, red and grey;
 * Delivered, Bounced, Complaints (their share of the delivered), Failed, Pending and Sent with value and
 * percentage (of the transactions); the Transactions total. 'No Data' while there is no
 * answer or the total is missing or 0; a Retry button once 45 s passed without an answer (or the
 * call failed). `timers`: tests move the clock.
 */
export default function OverviewDelivery({ groupUuid, timers }: { groupUuid: string; timers?: Timers }) {
  const $overview = useIslandStore(overviewStats);
  useEffect(() => {
    openReport(groupUuid, 'overview');
    startOverviewStats(timers);
  }, []);
  const stats: OverviewStatsWire | null = $overview.stats;
  const hasData = stats !== null && typeof stats.total === 'number' && stats.total > 0;
  return (
    <div
      className="breakdown overview-delivery"
      aria-busy={$overview.status === 'waiting'}
      data-testid="overview-delivery"
    >
      <div className="donut-holder">
        {hasData ? (
          <DonutChart
            parts={STATES.map(({ key, label, tone }) => ({ label, value: stats[key].value, tone: `is-${tone}` }))}
            centre={percentText(stats.delivered.percentage)}
            caption="delivered"
            testId="delivery-donut"
          />
        ) : (
          <p className="has-text-centered has-text-grey chart-empty" data-testid="delivery-empty">
            No Data
            {($overview.status === 'late' || $overview.status === 'failed') && (
              <RetryButton onRetry={() => void loadOverviewStats()} testId="delivery-retry" />
            )}
          </p>
        )}
      </div>
      <dl className="breakdown-stats" data-testid="delivery-stats">
        {STATS.map(({ key, label }) => (
          <div key={key} className="breakdown-stat">
            <dt>
              {!UNCOLOURED.has(key) && <span className={`status-dot is-${key}`} aria-hidden="true" />}
              {label}
            </dt>
            <dd>
              {stats ? (
                <Count value={stats[key].value} testId={`delivery-${key}`} />
              ) : (
                <span data-testid={`delivery-${key}`}>–</span>
              )}{' '}
              <span className="has-text-grey" data-testid={`delivery-${key}-share`}>
                {stats ? percentText(stats[key].percentage, key) : ''}
              </span>
            </dd>
          </div>
        ))}
        <div className="breakdown-stat">
          <dt>Transactions</dt>
          <dd>
            {stats ? (
              <Count value={stats.total} testId="delivery-total" />
            ) : (
              <span data-testid="delivery-total">–</span>
            )}
          </dd>
        </div>
      </dl>
    </div>
  );
}
