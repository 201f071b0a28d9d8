// The console's one modal (docs/console.md §2): Bulma's markup (`.modal.is-active`, its backdrop, and the
// card: a head with the title and a close button, the body, a foot with the buttons), a dialog with
// `aria-modal` named by its title, closed by the backdrop, the close button and Escape, and a focus
// trap: Tab and Shift+Tab go round the modal's controls, never to the page behind it. On open
// the focus moves into the modal (unless a control in it took it with autoFocus); on close it goes back
// to where it was, e.g. the button that opened it.
import { type FormEvent, type ReactNode, useEffect, useId, useRef } from 'react';

interface Props {
  /** The heading in the card's head; it names the dialog (aria-labelledby). */
  title: ReactNode;
  /** The title's id where a page or a test refers to it; otherwise one of React's own. */
  titleId?: string;
  onClose(): void;
  testId: string;
  /** Classes beside `modal is-active`, e.g. a page's own sizing. */
  className?: string;
  /** Classes beside `modal-card`. */
  cardClassName?: string;
  /**
   * Given, the card is a form and this runs on its submit (Enter in a field, or a submit button); the
   * browser's own checks are off, each modal checks its fields itself.
   */
  onSubmit?(): void;
  /** The close button takes the focus on open: a modal to read, with nothing to type. */
  focusClose?: boolean;
  /** Names the body and lets the keyboard reach it, for a body that scrolls on a small screen (WCAG 2.1.1). */
  bodyLabel?: string;
  /** The label of a first button in the foot that closes the modal: 'Cancel', 'Back', 'Close'. */
  dismiss?: string;
  /** The foot's (other) buttons. */
  footer: ReactNode;
  /** Classes beside `modal-card-foot`; Bulma's `buttons` unless given. */
  footerClassName?: string;
  /** The body's content. */
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

export default function Modal(props: Props) {
  const { title, onClose, testId, className, cardClassName, onSubmit, focusClose, bodyLabel, dismiss } = props;
  const ownId = useId();
  const titleId = props.titleId ?? `${ownId}-title`;
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
      aria-labelledby={titleId}
      tabIndex={-1}
      data-testid={testId}
    >
      <div className="modal-background" onClick={onClose} />
      <Card className={`modal-card${cardClassName ? ` ${cardClassName}` : ''}`} onSubmit={onSubmit}>
        <header className="modal-card-head">
          <h2 className="modal-card-title" id={titleId}>
            {title}
          </h2>
          <button type="button" className="delete" aria-label="Close" onClick={onClose} autoFocus={focusClose} />
        </header>
        <section className="modal-card-body" tabIndex={bodyLabel ? 0 : undefined} aria-label={bodyLabel}>
          {props.children}
        </section>
        <footer className={`modal-card-foot ${props.footerClassName ?? 'buttons'}`.trimEnd()}>
          {dismiss && (
            <button type="button" className="button" onClick={onClose}>
              {dismiss}
            </button>
          )}
          {props.footer}
        </footer>
      </Card>
    </div>
  );
}

/** The card: a form when the modal submits, a div otherwise. */
function Card({ className, onSubmit, children }: { className: string; onSubmit?(): void; children: ReactNode }) {
  if (!onSubmit) return <div className={className}>{children}</div>;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <form className={className} noValidate onSubmit={submit}>
      {children}
    </form>
  );
}
