/** A form's checkbox with its label beside it, in Bulma's field. */
export default function Checkbox({
  label,
  checked,
  onChange,
  className,
  testId,
}: {
  label: string;
  checked: boolean;
  onChange(checked: boolean): void;
  /** Classes beside `field`. */
  className?: string;
  testId: string;
}) {
  return (
    <div className={className ? `field ${className}` : 'field'}>
      <label className="checkbox">
        <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} data-testid={testId} />
        {` ${label}`}
      </label>
    </div>
  );
}
