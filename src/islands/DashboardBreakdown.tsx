import { Fragment, useEffect } from 'react';
import DonutChart from '../components/DonutChart.tsx';
import { breakdownOf, complaintRateOf, percentOf } from '../lib/delivery-breakdown.ts';
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
 * breakdown): a donut of delivered, bounced and failed in the colours of docs/console.md §9,
 * with their counts and shares, the spam complaints with their rate (of the delivered) beside the
 * bounces, the range's sent and accepted totals, and 'No Data' when the range has no outcomes.
 * Plain SVG: frappe-charts' donut would cost 1.3 KB gzipped of a page budget that the overview
 * chart already strains.
 */
export default function DashboardBreakdown() {
  const $overview = useIslandStore(overview);
  useEffect(() => ensureOverview(), []);
  const totals = breakdownOf($overview.days);
  const outcomes = totals.delivered + totals.bounced + totals.failed;
  const rows: [string, number, string][] = [
    ['Delivered', totals.delivered, 'delivered'],
    ['Bounced', totals.bounced, 'bounced'],
    ['Failed', totals.failed, 'failed'],
  ];
  return (
    <div className="breakdown" aria-busy={$overview.status === 'idle' || $overview.status === 'loading'}>
      <div className="donut-holder">
        {$overview.status === 'loaded' && outcomes > 0 && (
          <DonutChart
            parts={rows.map(([label, value, tone]) => ({ label, value, tone: `is-${tone}` }))}
            caption="messages"
            testId="breakdown-chart"
          />
        )}
        {(($overview.status === 'loaded' && outcomes === 0) || $overview.status === 'failed') && (
          <p className="has-text-centered has-text-grey chart-empty" data-testid="breakdown-empty">
            No Data
            {$overview.status === 'failed' && <RetryButton onRetry={() => void loadOverview()} />}
          </p>
        )}
      </div>
      <dl className="breakdown-stats" data-testid="breakdown-stats">
        {rows.map(([label, value, tone]) => (
          <Fragment key={label}>
            <div className="breakdown-stat">
              <dt>
                <span className={`status-dot is-${tone}`} aria-hidden="true" />
                {label}
              </dt>
              <dd data-testid={`breakdown-${tone}`}>
                {formatCount(value)} <span className="has-text-grey">{percentOf(value, totals)}</span>
              </dd>
            </div>
            {tone === 'bounced' && <ComplaintStat complaints={totals.complaints} rate={complaintRateOf(totals)} />}
          </Fragment>
        ))}
        <div className="breakdown-stat">
          <dt>Sent</dt>
          <dd data-testid="breakdown-sent">{formatCount(totals.sent)}</dd>
        </div>
        <div className="breakdown-stat">
          <dt>Transactions</dt>
          <dd data-testid="breakdown-requests">{formatCount(totals.requests)}</dd>
        </div>
      </dl>
    </div>
  );
}
