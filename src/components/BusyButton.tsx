// A button that starts a request: while it is in flight the button shows Bulma's spinner and takes no
// click (docs/console.md §5), so the request is not sent twice.
import type { ReactNode } from 'react';

interface Props {
  busy: boolean;
  /** Bulma classes beside `button`, e.g. `is-primary`. */
  className?: string;
  /** A submit button sends its form; a plain one runs onClick. */
  type?: 'button' | 'submit';
  onClick?(): void;
  /** Disabled for another reason as well, e.g. an empty field. */
  disabled?: boolean;
  testId?: string;
  children: ReactNode;
}

export default function BusyButton({ busy, className, type = 'button', onClick, disabled, testId, children }: Props) {
  return (
    <button
      type={type === 'submit' ? 'submit' : 'button'}
      className={`button${className ? ` ${className}` : ''}${busy ? ' is-loading' : ''}`}
      disabled={busy || disabled}
      onClick={onClick}
      data-testid={testId}
    >
      {children}
    </button>
  );
}
