/** A list's filter as a row of joined buttons (Bulma's addons): the chosen one is pressed. */
export default function FilterButtons<T extends string>({
  options,
  chosen,
  onChoose,
  label,
  className,
  testIdPrefix,
}: {
  options: readonly { value: T; label: string }[];
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
      {options.map((option) => {
        const active = chosen === option.value;
        return (
          <button
            key={option.value}
            type="button"
            className={`button${active ? ' is-primary is-selected' : ''}`}
            aria-pressed={active}
            onClick={() => onChoose(option.value)}
            data-testid={`${testIdPrefix}-${option.value}`}
          >
            {option.label}
          </button>
        );
      })}
    </div>
  );
}
