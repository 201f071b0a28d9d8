// A labelled form field in Bulma's markup: the label pointing at the control, the control (in Bulma's
// `.control` unless bare), and what is said below it (help, a problem).
import type { ReactNode } from 'react';

interface Props {
  /** The control's id, which the label names. */
  id: string;
  label: ReactNode;
  /** Classes beside `field`, e.g. a column's. */
  className?: string;
  /** The control stands without Bulma's `.control` wrapper. */
  bare?: boolean;
  /** Below the control: a help line, a problem. */
  help?: ReactNode;
  /** The control: an input, a select, a textarea. */
  children: ReactNode;
}

export default function Field({ id, label, className, bare, help, children }: Props) {
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      {bare ? children : <div className="control">{children}</div>}
      {help}
    </div>
  );
}
