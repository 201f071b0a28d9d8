// The console's one modal (docs/console.md §2): Bulma's markup (`.modal.is-active`, its backdrop, the
// card the caller passes), a dialog with `aria-modal` named by its title, closed by the backdrop and by
// Escape, and a focus trap: Tab and Shift+Tab go round the modal's controls, never to the page behind it.
// On open the focus moves into the modal (unless a control in it took it with autoFocus); on close it
// goes back to where it was, e.g. the button that opened it.
import { type ReactNode, useEffect, useRef } from 'react';

interface Props {
  /** The id of the modal's title (aria-labelledby). */
  labelledBy: string;
  onClose(): void;
  testId: string;
  /** Classes beside `modal is-active`, e.g. a page's own sizing. */
  className?: string;
  /** The `.modal-card` (a div, or a form when the modal submits). */
  children: ReactNode;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), ' +
  'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

function focusables(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
    (el) => !el.closest('fieldset:disabled') && el.getClientRects().length > 0,
  );
}

export default function Modal({ labelledBy, onClose, testId, className, children }: Props) {
  const root = useRef<HTMLDivElement>(null);
  // the latest onClose, so the key handler is added once and never calls a stale one
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const dialog = root.current!;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.contains(document.activeElement)) (focusables(dialog)[0] ?? dialog).focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        close.current();
        return;
      }
      if (e.key !== 'Tab') return;
      const list = focusables(dialog);
      if (list.length === 0) return;
      const first = list[0]!;
      const last = list[list.length - 1]!;
      const inside = dialog.contains(document.activeElement);
      if (e.shiftKey ? !inside || document.activeElement === first : !inside || document.activeElement === last) {
        e.preventDefault();
        (e.shiftKey ? last : first).focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      // back to the opener, unless the focus already went somewhere else on purpose
      const lost =
        !document.activeElement || document.activeElement === document.body || dialog.contains(document.activeElement);
      if (lost && before?.isConnected) before.focus();
    };
  }, []);

  return (
    <div
      ref={root}
      className={`modal is-active${className ? ` ${className}` : ''}`}
      role="dialog"
      aria-modal="true"
      aria-labelledby={labelledBy}
      tabIndex={-1}
      data-testid={testId}
    >
      <div className="modal-background" onClick={onClose} />
      {children}
    </div>
  );
}
