import SearchInput from '../components/SearchInput.tsx';
import { groupSearchText, typeGroupSearch } from '../stores/groups.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/** The Groups tab's search box (docs/console.md §2), debounced 1000 ms (§9). */
export default function TransactionsGroupSearch() {
  const $text = useIslandStore(groupSearchText);
  return (
    <SearchInput value={$text} onType={typeGroupSearch} placeholder="Search by group name" testId="group-search" />
  );
}
