import { useEffect } from 'react';
import { loadQuota, quota } from '../stores/dashboard.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import { formatCount } from '../lib/numbers.ts';
import RetryButton from '../components/RetryButton.tsx';

/**
 * The Monthly Quota progress bar (docs/console.md §2) with its tooltip 'X of Y sent', shown on hover and
 * on keyboard focus. The bar turns amber past 90 % and red when the quota is used up.
 */
export default function DashboardQuota() {
  const $quota = useIslandStore(quota);
  useEffect(() => void loadQuota(), []);
  const { sent, maximum, status } = $quota;
  const share = maximum > 0 ? Math.min(1, sent / maximum) : sent > 0 ? 1 : 0;
  const tone = share >= 1 ? 'is-danger' : share > 0.9 ? 'is-warning' : 'is-primary';
  const text = `${formatCount(sent)} of ${formatCount(maximum)} sent`;
  return (
    <div className="quota" aria-busy={status === 'loading' || status === 'idle'}>
      <div className="quota-heading">
        <h2 className="title is-6">Monthly Quota</h2>
        {status === 'loaded' && (
          <span className="has-text-grey" data-testid="quota-percent">
            {Math.round(share * 100)}%
          </span>
        )}
        {status === 'failed' && <RetryButton onRetry={() => void loadQuota()} testId="quota-retry" />}
      </div>
      <div className="quota-bar" tabIndex={0} aria-describedby="quota-tooltip" data-testid="quota-bar">
        <progress className={`progress ${tone}`} value={sent} max={Math.max(maximum, 1)} aria-label="Monthly Quota">
          {text}
        </progress>
        {status === 'loaded' && (
          <span className="quota-tooltip" role="tooltip" id="quota-tooltip" data-testid="quota-tooltip">
            {text}
          </span>
        )}
      </div>
    </div>
  );
}
