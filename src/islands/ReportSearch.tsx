import SearchInput from '../components/SearchInput.tsx';
import { reportSearchText, typeReportSearch } from '../stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/**
 * A report table's recipient search (docs/console-reports.md §2), debounced 500 ms (docs/console.md §9, report
 * filters).
 */
export default function ReportSearch() {
  const $text = useIslandStore(reportSearchText);
  return (
    <SearchInput
      value={$text}
      onType={typeReportSearch}
      placeholder="Search by Recipient Email"
      testId="report-search"
    />
  );
}
