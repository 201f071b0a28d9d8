import MoreInfoButton from '../components/MoreInfoButton.tsx';
import ShownTransactionInfo from '../components/ShownTransactionInfo.tsx';
import { type InfoTransaction, showTransactionInfo } from '../stores/transaction-info.ts';

/**
 * A received reply's link to the message it answers (docs/console.md §2 "Inbound"): the More Info button
 * of that transaction, opening the transaction tables' Transaction Info modal with its timeline.
 */
export default function InboundReplyInfo({ transaction }: { transaction: InfoTransaction }) {
  return (
    <>
      <MoreInfoButton onClick={() => showTransactionInfo(transaction)} />
      <ShownTransactionInfo onCanceled={() => {}} />
    </>
  );
}
