import { transactionSearchText, typeTransactionSearch } from './stores/transactions.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

const PLACEHOLDER = 'Search by Recipient Email or Transaction ID';

/** The transaction table's search box (spec core §2), debounced 1000 ms (§9). */
export default function TransactionsSearch() {
  const $text = useIslandStore(transactionSearchText);
  return (
    <div className="control search-control">
      <input
        className="input"
        type="search"
        placeholder={PLACEHOLDER}
        aria-label={PLACEHOLDER}
        value={$text}
        onChange={(e) => typeTransactionSearch(e.target.value)}
        data-testid="transaction-search"
      />
    </div>
  );
}
