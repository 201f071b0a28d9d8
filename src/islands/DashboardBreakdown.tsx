import { Fragment, useEffect } from 'react';
import DonutChart from '../components/DonutChart.tsx';
import { STATES, type ShareKey, addFigures, figuresOfDay, shareOf } from '../lib/figures.ts';
import { percentText } from '../lib/group-report.ts';
import { ensureOverview, loadOverview, overview } from '../stores/dashboard.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import { formatCount } from '../lib/numbers.ts';
import RetryButton from '../components/RetryButton.tsx';

/** Spam complaints (feedback-loop reports) and the complaint rate, a share of the delivered. */
function ComplaintStat({ complaints, rate }: { complaints: number; rate: string }) {
  return (
    <div className="breakdown-stat">
      <dt>Complaints</dt>
      <dd data-testid="breakdown-complaints">
        {formatCount(complaints)} <span className="has-text-grey">{rate} of delivered</span>
      </dd>
    </div>
  );
}

/**
 * The Dashboard's second chart panel (docs/console.md §2 leaves its contents open; ours is a delivery
 * breakdown): the range's figures (src/lib/figures.ts, summed from the chart's days): a donut of the
 * four states a transaction is in — delivered, bounced, failed, pending — in the colours of
 * docs/console.md §9, which add up to the transactions; each state's count and share of them, the
 * spam complaints with their rate (of the delivered) beside the bounces, the sent (delivered or
 * bounced) and the transactions; 'No Data' when the range has none. Plain SVG: frappe-charts' donut
 * would cost 1.3 KB gzipped of a page budget that the overview chart already strains.
 */
export default function DashboardBreakdown() {
  const $overview = useIslandStore(overview);
  useEffect(() => ensureOverview(), []);
  const figures = addFigures($overview.days.map(figuresOfDay));
  const hasData = $overview.status === 'loaded' && figures.transactions > 0;
  const share = (key: ShareKey) => {
    const { value, percentage } = shareOf(figures, key);
    return (
      <>
        {formatCount(value)} <span className="has-text-grey">{percentText(percentage)}</span>
      </>
    );
  };
  return (
    <div className="breakdown" aria-busy={$overview.status === 'idle' || $overview.status === 'loading'}>
      <div className="donut-holder">
        {hasData && (
          <DonutChart
            parts={STATES.map(({ key, label, tone }) => ({ label, value: figures[key], tone: `is-${tone}` }))}
            caption="transactions"
            testId="breakdown-chart"
          />
        )}
        {(($overview.status === 'loaded' && !hasData) || $overview.status === 'failed') && (
          <p className="has-text-centered has-text-grey chart-empty" data-testid="breakdown-empty">
            No Data
            {$overview.status === 'failed' && <RetryButton onRetry={() => void loadOverview()} />}
          </p>
        )}
      </div>
      <dl className="breakdown-stats" data-testid="breakdown-stats">
        {STATES.map(({ key, label, tone }) => (
          <Fragment key={key}>
            <div className="breakdown-stat">
              <dt>
                <span className={`status-dot is-${tone}`} aria-hidden="true" />
                {label}
              </dt>
              <dd data-testid={`breakdown-${key}`}>{share(key)}</dd>
            </div>
            {key === 'bounced' && (
              <ComplaintStat
                complaints={figures.complaints}
                rate={percentText(shareOf(figures, 'complaints').percentage, 'complaints')}
              />
            )}
          </Fragment>
        ))}
        <div className="breakdown-stat">
          <dt>Sent</dt>
          <dd data-testid="breakdown-sent">{share('sent')}</dd>
        </div>
        <div className="breakdown-stat">
          <dt>Transactions</dt>
          <dd data-testid="breakdown-requests">{formatCount(figures.transactions)}</dd>
        </div>
      </dl>
    </div>
  );
}
