import FilterButtons from '../components/FilterButtons.tsx';
import SearchInput from '../components/SearchInput.tsx';
import { type OriginFilter, chooseOrigin, query, searchText, typeSearch } from '../stores/suppressions.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import { ORIGIN_LABEL } from '../lib/suppression-query.ts';

const ORIGINS: Record<OriginFilter, string> = { all: 'All', ...ORIGIN_LABEL };

/** The Suppression List's search box and origin filter buttons (docs/console-reports.md §2, and Complaint). */
export default function SuppressionFilters() {
  const $text = useIslandStore(searchText);
  const $query = useIslandStore(query);
  return (
    <div className="suppression-filters">
      <SearchInput value={$text} onType={typeSearch} placeholder="Search by email" testId="suppression-search" />
      <FilterButtons
        labels={ORIGINS}
        chosen={$query.origin}
        onChoose={chooseOrigin}
        label="Origin"
        testIdPrefix="origin"
      />
    </div>
  );
}
