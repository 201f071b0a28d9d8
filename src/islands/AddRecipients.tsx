import { useState } from 'react';
import AddRecipientsModal from '../components/AddRecipientsModal.tsx';
import { addRecipients } from '../stores/suppressions.ts';

/** The 'Add Recipients' button of the Suppression List and the modal it opens (docs/console-reports.md §2). */
export default function AddRecipients() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button is-primary" onClick={() => setOpen(true)} data-testid="add-recipients">
        Add Recipients
      </button>
      {open && <AddRecipientsModal onClose={() => setOpen(false)} onSubmit={addRecipients} />}
    </>
  );
}
