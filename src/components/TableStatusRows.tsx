// The rows a report table shows instead of data: 'Loading…' while its first page loads, and when
// it has nothing, why (none found, or the load failed) with a retry control (docs/console.md §8).
import RetryButton from './RetryButton.tsx';

interface Props {
  columns: number;
  status: 'loading' | 'loaded' | 'failed';
  rows: number;
  /** What the table lists, plural: 'transactions', 'groups'. */
  what: string;
  onRetry: () => void;
  /** Prefix of the test ids: `${testId}-empty`, `${testId}-retry`. */
  testId: string;
}

export default function TableStatusRows({ columns, status, rows, what, onRetry, testId }: Props) {
  if (rows > 0) return null;
  if (status === 'loading') {
    return (
      <tr>
        <td colSpan={columns} className="has-text-centered has-text-grey empty-row">
          Loading…
        </td>
      </tr>
    );
  }
  return (
    <tr>
      <td colSpan={columns} className="has-text-centered has-text-grey empty-row" data-testid={`${testId}-empty`}>
        {status === 'failed' ? `The ${what} could not be loaded.` : `No ${what} found.`}{' '}
        <RetryButton onRetry={onRetry} testId={`${testId}-retry`} />
      </td>
    </tr>
  );
}
