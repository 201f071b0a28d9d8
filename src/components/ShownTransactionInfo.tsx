// The More Info modal of the transaction a table shows (docs/console.md §2), from the transaction-info
// store; the modal's code loads with the first More Info click.
import { Suspense, lazy } from 'react';
import {
  cancelShownTransaction,
  cancelState,
  closeTransactionInfo,
  loadTimeline,
  shownTransaction,
  timeline,
} from '../stores/transaction-info.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

// most visits open no modal (and the page's script budget is tight)
const TransactionInfoModal = lazy(() => import('./TransactionInfoModal.tsx'));

/** `onCanceled` reloads the table once a scheduled message was canceled from the modal. */
export default function ShownTransactionInfo({ onCanceled }: { onCanceled(): void }) {
  const $shown = useIslandStore(shownTransaction);
  const $timeline = useIslandStore(timeline);
  const $cancel = useIslandStore(cancelState);
  if (!$shown) return null;
  return (
    <Suspense fallback={null}>
      <TransactionInfoModal
        tx={$shown}
        timeline={$timeline}
        onClose={closeTransactionInfo}
        onRetryTimeline={() => void loadTimeline()}
        cancel={$cancel}
        onCancel={() => void cancelShownTransaction(onCanceled)}
      />
    </Suspense>
  );
}
