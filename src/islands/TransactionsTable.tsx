import { useEffect } from 'react';
import TransactionTable from '../components/TransactionTable.tsx';
import { showTransactionInfo } from '../stores/transaction-info.ts';
import ShownTransactionInfo from '../components/ShownTransactionInfo.tsx';
import type { PageMeta } from '../contract/reports.ts';
import type { DayRange } from '../lib/dates.ts';
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

interface Props {
  /** Where the first, unfiltered page comes from: GET /v1/dashboard on the Dashboard (docs/console.md §7). */
  source: 'dashboard' | 'search';
  /**
   * The first page, rendered on the server for `range`; the island loads it itself when it is missing,
   * or when another range was picked before the island hydrated (it hydrates when scrolled to).
   */
  first?: { data: TransactionWire[]; meta: PageMeta; range: DayRange } | null;
}

/** The transaction table of the Dashboard and the Recipients tab with its More Info modal (docs/console.md §2). */
export default function TransactionsTable({ source, first = null }: Props) {
  const $list = useSeededStore(transactionList, first && { status: 'loaded', data: first.data, meta: first.meta });
  const $query = useIslandStore(transactionQuery);
  useEffect(() => startTransactionTable(source, first?.range ?? null), [source]);
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
      <ShownTransactionInfo onCanceled={() => void loadTransactions()} />
    </>
  );
}
