import { type StatusFilter, chooseStatus, transactionQuery } from '../stores/transactions.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

const STATUSES: { status: StatusFilter; label: string }[] = [
  { status: 'all', label: 'All' },
  { status: 'sent', label: 'Sent' },
  { status: 'failed', label: 'Failed' },
  { status: 'delivered', label: 'Delivered' },
];

/**
 * The Recipients tab's status filter buttons All, Sent, Failed, Delivered (docs/console.md §2, §9); a change goes to
 * page 1 (§4).
 */
export default function TransactionsStatusFilter() {
  const $query = useIslandStore(transactionQuery);
  return (
    <div className="buttons has-addons status-filter" role="group" aria-label="Status">
      {STATUSES.map(({ status, label }) => {
        const active = $query.status === status;
        return (
          <button
            key={status}
            type="button"
            className={`button${active ? ' is-primary is-selected' : ''}`}
            aria-pressed={active}
            onClick={() => chooseStatus(status)}
            data-testid={`status-${status}`}
          >
            {label}
          </button>
        );
      })}
    </div>
  );
}
