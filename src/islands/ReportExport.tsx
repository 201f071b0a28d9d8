import { useEffect } from 'react';
import type { GroupReportType } from '../contract/values.ts';
import { exportReport, exporting, openReport } from '../stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/** The Export button of every report page but Overview (docs/console-reports.md §2, §7, §8). */
export default function ReportExport({ groupUuid, type }: { groupUuid: string; type: GroupReportType }) {
  useEffect(() => openReport(groupUuid, type), []);
  const $exporting = useIslandStore(exporting);
  return (
    <button
      type="button"
      className={`button is-primary${$exporting ? ' is-loading' : ''}`}
      disabled={$exporting}
      onClick={() => void exportReport()}
      data-testid="report-export"
    >
      Export
    </button>
  );
}
