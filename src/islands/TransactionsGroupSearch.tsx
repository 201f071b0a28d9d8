import { groupSearchText, typeGroupSearch } from './stores/groups.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/** The Groups tab's search box (spec core §2), debounced 1000 ms (§9). */
export default function TransactionsGroupSearch() {
  const $text = useIslandStore(groupSearchText);
  return (
    <div className="control search-control">
      <input
        className="input"
        type="search"
        placeholder="Search by group name"
        aria-label="Search by group name"
        value={$text}
        onChange={(e) => typeGroupSearch(e.target.value)}
        data-testid="group-search"
      />
    </div>
  );
}
