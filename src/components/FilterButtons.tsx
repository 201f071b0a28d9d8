/** A list's filter as a row of joined buttons (Bulma's addons): the chosen one is pressed. */
export default function FilterButtons<T extends string>({
  labels,
  chosen,
  onChoose,
  label,
  className,
  testIdPrefix,
}: {
  /** Each value's button text, in the buttons' order. */
  labels: Readonly<Record<T, string>>;
  chosen: T;
  onChoose(value: T): void;
  /** The group's name for assistive technology: 'Origin', 'Status'. */
  label: string;
  className?: string;
  /** Each button's test id is `${testIdPrefix}-${value}`. */
  testIdPrefix: string;
}) {
  return (
    <div className={`buttons has-addons${className ? ` ${className}` : ''}`} role="group" aria-label={label}>
      {(Object.entries(labels) as [T, string][]).map(([value, text]) => {
        const active = chosen === value;
        return (
          <button
            key={value}
            type="button"
            className={`button${active ? ' is-primary is-selected' : ''}`}
            aria-pressed={active}
            onClick={() => onChoose(value)}
            data-testid={`${testIdPrefix}-${value}`}
          >
            {text}
          </button>
        );
      })}
    </div>
  );
}
