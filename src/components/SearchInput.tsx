/** The console's search box (a table's filter): controlled, labelled by its placeholder. */
export default function SearchInput({
  value,
  onType,
  placeholder,
  testId,
}: {
  value: string;
  onType: (text: string) => void;
  placeholder: string;
  testId: string;
}) {
  return (
    <div className="control search-control">
      <input
        className="input"
        type="search"
        placeholder={placeholder}
        aria-label={placeholder}
        value={value}
        onChange={(e) => onType(e.target.value)}
        data-testid={testId}
      />
    </div>
  );
}
