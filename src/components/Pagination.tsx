// The pager under the console's report tables (docs/console.md §2): 'Displaying a-b of total' with
// first, previous, next and last controls.
import type { PageMeta } from '../contract/reports.ts';
import { formatCount } from '../lib/numbers.ts';

interface Props {
  meta: PageMeta;
  onPage(page: number): void;
  /** Prefix of the data-testid attributes, e.g. 'transactions' → transactions-range, transactions-next. */
  testId: string;
}

/**
 * Shows nothing for an empty table (its empty row says so). A capped total (the API stopped
 * counting, `total_capped`) reads 'more than N' and has no last page to jump to.
 */
export default function Pagination({ meta, onPage, testId }: Props) {
  const { current_page: page, last_page: last, per_page: size, total } = meta;
  if (total === 0) return null;
  const capped = meta.total_capped === true;
  const first = (page - 1) * size + 1;
  const to = Math.min(total, page * size);
  const control = (label: string, target: number, disabled: boolean, id: string) => (
    <button
      type="button"
      className="button is-small"
      disabled={disabled}
      onClick={() => onPage(target)}
      data-testid={`${testId}-${id}`}
    >
      {label}
    </button>
  );
  return (
    <div className="report-pager">
      <p className="has-text-grey" data-testid={`${testId}-range`}>
        Displaying {formatCount(first)}-{formatCount(to)} of{' '}
        {capped ? `more than ${formatCount(total - 1)}` : formatCount(total)}
      </p>
      <nav className="buttons has-addons" aria-label="Pages">
        {control('First', 1, page <= 1, 'first')}
        {control('Previous', page - 1, page <= 1, 'previous')}
        <span className="button is-small is-static" data-testid={`${testId}-page`}>
          Page {formatCount(page)}
          {capped ? '' : ` of ${formatCount(last)}`}
        </span>
        {control('Next', page + 1, page >= last, 'next')}
        {control('Last', last, capped || page >= last, 'last')}
      </nav>
    </div>
  );
}
