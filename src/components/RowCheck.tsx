/** Which row of a list is checked (one at a time), whether its deletion runs, and how to toggle a row. */
export interface Selection<Key> {
  checked: Key | null;
  deleting: boolean;
  onToggle(key: Key): void;
}

/**
 * A list row's checkbox where one row at a time may be checked (docs/console-reports.md §4): while one
 * is, and while its deletion runs, the other rows' boxes are disabled.
 */
export default function RowCheck<Key>({
  rowKey,
  name,
  selection: { checked, deleting, onToggle },
  testId,
}: {
  rowKey: Key;
  /** What the row shows, for the box's name: 'Select <name>'. */
  name: string;
  selection: Selection<Key>;
  testId: string;
}) {
  return (
    <td className="check-column">
      <input
        type="checkbox"
        aria-label={`Select ${name}`}
        checked={checked === rowKey}
        disabled={deleting || (checked !== null && checked !== rowKey)}
        onChange={() => onToggle(rowKey)}
        data-testid={testId}
      />
    </td>
  );
}
