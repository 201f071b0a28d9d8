import { Suspense, lazy, useEffect } from 'react';
import TransactionTable from '../components/TransactionTable.tsx';
import { closeTransactionInfo, loadTimeline, showTransactionInfo, shownTransaction, timeline } from './stores/transaction-info.ts';
import { goToTransactionPage, loadTransactions, sortTransactions, startTransactionTable, transactionList, transactionQuery } from './stores/transactions.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

// loaded with the first More Info click: most visits open no modal (and the page's script budget is tight)
const TransactionInfoModal = lazy(() => import('../components/TransactionInfoModal.tsx'));

interface Props {
  /** Where the first, unfiltered page comes from: GET /v1/dashboard on the Dashboard (spec core §7). */
  source: 'dashboard' | 'search';
}

/** The transaction table of the Dashboard and the Recipients tab with its More Info modal (spec core §2). */
export default function TransactionsTable({ source }: Props) {
  const $list = useIslandStore(transactionList);
  const $query = useIslandStore(transactionQuery);
  const $shown = useIslandStore(shownTransaction);
  const $timeline = useIslandStore(timeline);
  useEffect(() => startTransactionTable(source), [source]);
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
          <TransactionInfoModal tx={$shown} timeline={$timeline} onClose={closeTransactionInfo} onRetryTimeline={() => void loadTimeline()} />
        </Suspense>
      )}
    </>
  );
}
