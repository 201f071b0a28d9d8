import FilterButtons from '../components/FilterButtons.tsx';
import SearchInput from '../components/SearchInput.tsx';
import { type OriginFilter, chooseOrigin, query, searchText, typeSearch } from '../stores/suppressions.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

const ORIGINS: { value: OriginFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'user', label: 'User' },
  { value: 'bounce', label: 'Bounce' },
  { value: 'unsubscribe', label: 'Unsubscribe' },
  // a recipient who marked a message as spam (a feedback loop's report)
  { value: 'complaint', label: 'Complaint' },
];

/** The Suppression List's search box and origin filter buttons (docs/console-reports.md §2, and Complaint). */
export default function SuppressionFilters() {
  const $text = useIslandStore(searchText);
  const $query = useIslandStore(query);
  return (
    <div className="suppression-filters">
      <SearchInput value={$text} onType={typeSearch} placeholder="Search by email" testId="suppression-search" />
      <FilterButtons
        options={ORIGINS}
        chosen={$query.origin}
        onChoose={chooseOrigin}
        label="Origin"
        testIdPrefix="origin"
      />
    </div>
  );
}
