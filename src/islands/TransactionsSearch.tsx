import SearchInput from '../components/SearchInput.tsx';
import { transactionSearchText, typeTransactionSearch } from '../stores/transactions.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/** The transaction table's search box (docs/console.md §2), debounced 1000 ms (§9). */
export default function TransactionsSearch() {
  const $text = useIslandStore(transactionSearchText);
  return (
    <SearchInput
      value={$text}
      onType={typeTransactionSearch}
      placeholder="Search by Recipient Email or Transaction ID"
      testId="transaction-search"
    />
  );
}
