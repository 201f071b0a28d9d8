import { useEffect } from 'react';
import type { GroupReportType } from '../contract/values.ts';
import { exportReport, exporting, openReport } from '../stores/group-report.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import BusyButton from '../components/BusyButton.tsx';

/** The Export button of every report page but Overview (docs/console-reports.md §2, §7, §8). */
export default function ReportExport({ groupUuid, type }: { groupUuid: string; type: GroupReportType }) {
  useEffect(() => openReport(groupUuid, type), []);
  const $exporting = useIslandStore(exporting);
  return (
    <BusyButton className="is-primary" busy={$exporting} onClick={() => void exportReport()} testId="report-export">
      Export
    </BusyButton>
  );
}
