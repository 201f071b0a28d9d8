/** The small Retry button beside a part of a page that could not be loaded (docs/console.md §8). */
export default function RetryButton({ onRetry, testId }: { onRetry(): void; testId?: string }) {
  return (
    <button type="button" className="button is-small is-light" onClick={onRetry} data-testid={testId}>
      Retry
    </button>
  );
}
