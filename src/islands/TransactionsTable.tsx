import { Suspense, lazy, useEffect } from 'react';
import TransactionTable from '../components/TransactionTable.tsx';
import {
  cancelShownTransaction,
  cancelState,
  closeTransactionInfo,
  loadTimeline,
  showTransactionInfo,
  shownTransaction,
  timeline,
} from '../stores/transaction-info.ts';
import type { PageMeta } from '../contract/reports.ts';
import {
  type TransactionWire,
  goToTransactionPage,
  loadTransactions,
  sortTransactions,
  startTransactionTable,
  transactionList,
  transactionQuery,
} from '../stores/transactions.ts';
import { useIslandStore, useSeededStore } from '../lib/island-hooks.ts';

// loaded with the first More Info click: most visits open no modal (and the page's script budget is tight)
const TransactionInfoModal = lazy(() => import('../components/TransactionInfoModal.tsx'));

interface Props {
  /** Where the first, unfiltered page comes from: GET /v1/dashboard on the Dashboard (docs/console.md §7). */
  source: 'dashboard' | 'search';
  /** The first page, rendered on the server; the island loads it itself when it is missing. */
  first?: { data: TransactionWire[]; meta: PageMeta } | null;
}

/** The transaction table of the Dashboard and the Recipients tab with its More Info modal (docs/console.md §2). */
export default function TransactionsTable({ source, first = null }: Props) {
  const $list = useSeededStore(transactionList, first && { status: 'loaded', data: first.data, meta: first.meta });
  const $query = useIslandStore(transactionQuery);
  const $shown = useIslandStore(shownTransaction);
  const $timeline = useIslandStore(timeline);
  const $cancel = useIslandStore(cancelState);
  useEffect(() => startTransactionTable(source, first !== null), [source]);
  return (
    <>
      <TransactionTable
        list={$list}
        sort={$query.sort}
        onSort={sortTransactions}
        onPage={goToTransactionPage}
        onRetry={() => void loadTransactions()}
        onMoreInfo={showTransactionInfo}
      />
      {$shown && (
        <Suspense fallback={null}>
          <TransactionInfoModal
            tx={$shown}
            timeline={$timeline}
            onClose={closeTransactionInfo}
            onRetryTimeline={() => void loadTimeline()}
            cancel={$cancel}
            onCancel={() => void cancelShownTransaction(() => void loadTransactions())}
          />
        </Suspense>
      )}
    </>
  );
}
