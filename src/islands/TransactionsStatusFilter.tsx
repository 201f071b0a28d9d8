import FilterButtons from '../components/FilterButtons.tsx';
import { type StatusFilter, chooseStatus, transactionQuery } from '../stores/transactions.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

const STATUSES: Record<StatusFilter, string> = { all: 'All', sent: 'Sent', failed: 'Failed', delivered: 'Delivered' };

/**
 * The Recipients tab's status filter buttons All, Sent, Failed, Delivered (docs/console.md §2, §9); a change goes to
 * page 1 (§4).
 */
export default function TransactionsStatusFilter() {
  const $query = useIslandStore(transactionQuery);
  return (
    <FilterButtons
      labels={STATUSES}
      chosen={$query.status}
      onChoose={chooseStatus}
      label="Status"
      className="status-filter"
      testIdPrefix="status"
    />
  );
}
