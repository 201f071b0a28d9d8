// A table header that sorts by its column (docs/console.md §2 "sortable column headers", §4: a click
// toggles ascending/descending). aria-sort tells assistive technology the order in effect.
interface Props {
  label: string;
  /** The direction when the table is sorted by this column, else null. */
  direction: 'asc' | 'desc' | null;
  onSort(): void;
  className?: string;
  testId: string;
}

export default function SortableHeader({ label, direction, onSort, className, testId }: Props) {
  const arrow = direction === 'asc' ? '▲' : direction === 'desc' ? '▼' : '↕';
  return (
    <th
      className={className}
      aria-sort={direction === 'asc' ? 'ascending' : direction === 'desc' ? 'descending' : 'none'}
      data-testid={testId}
    >
      <button type="button" className={`sort-button${direction ? ' is-sorted' : ''}`} onClick={onSort}>
        {label}
        <span className="sort-arrow" aria-hidden="true">
          {arrow}
        </span>
      </button>
    </th>
  );
}
