import { reportSearchText, typeReportSearch } from './stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

const PLACEHOLDER = 'Search by Recipient Email';

/** A report table's recipient search (spec part two §2), debounced 500 ms (core §9, report filters). */
export default function ReportSearch() {
  const $text = useIslandStore(reportSearchText);
  return (
    <div className="control search-control">
      <input
        className="input"
        type="search"
        placeholder={PLACEHOLDER}
        aria-label={PLACEHOLDER}
        value={$text}
        onChange={(e) => typeReportSearch(e.target.value)}
        data-testid="report-search"
      />
    </div>
  );
}
