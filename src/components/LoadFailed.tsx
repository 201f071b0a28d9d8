/**
 * What a list or a form shows in its place when it could not be loaded: why, and a Retry link-like
 * button (docs/console.md §8).
 */
export default function LoadFailed({
  message,
  onRetry,
  className,
  testId,
}: {
  /** A whole sentence: 'The sending options could not be loaded.' */
  message: string;
  onRetry(): void;
  className?: string;
  testId: string;
}) {
  return (
    <p className={`has-text-grey${className ? ` ${className}` : ''}`} data-testid={testId}>
      {message}{' '}
      <button type="button" className="button is-small is-text" onClick={onRetry}>
        Retry
      </button>
    </p>
  );
}
