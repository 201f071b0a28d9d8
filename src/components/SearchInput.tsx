/** The console's search box (a table's filter): controlled, labelled by its placeholder unless told. */
export default function SearchInput({
  value,
  onType,
  placeholder,
  label = placeholder,
  className = 'search-control',
  testId,
}: {
  value: string;
  onType: (text: string) => void;
  placeholder: string;
  /** Its name for assistive technology, where the placeholder says too little. */
  label?: string;
  /** The class beside `control` that places it. */
  className?: string;
  testId: string;
}) {
  return (
    <div className={`control ${className}`}>
      <input
        className="input"
        type="search"
        placeholder={placeholder}
        aria-label={label}
        value={value}
        onChange={(e) => onType(e.target.value)}
        data-testid={testId}
      />
    </div>
  );
}
