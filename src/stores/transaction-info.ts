// The Transaction Info modal (docs/console.md §2) opened by a row's More Info button, and its timeline
// (our addition to the modal): GET /v1/transactions/{trans_uuid}/events when the modal opens, its events
// and the mail received in reply to it.
import { atom } from 'nanostores';
import type { TransactionEventWire, TransactionReplyWire, TransactionWire } from '../lib/wire.ts';
import { call, errorMessage } from '../lib/api.ts';

export type { TransactionEventWire };

/**
 * What the modal shows of a transaction: the tables of the Dashboard, Transactions and the group reports all have it.
 */
export type InfoTransaction = Pick<
  TransactionWire,
  | 'trans_uuid'
  | 'trans_date_sent'
  | 'trans_to_email'
  | 'trans_to_name'
  | 'tm_subject'
  | 'tm_from_email'
  | 'tm_from_name'
  | 'tm_additional_headers'
  | 'trans_status'
>;

export interface TimelineState {
  status: 'loading' | 'loaded' | 'failed';
  events: TransactionEventWire[];
  /** Received messages that answer it ("Reply received"). */
  replies: TransactionReplyWire[];
}

export const shownTransaction = atom<InfoTransaction | null>(null);
export const timeline = atom<TimelineState>({ status: 'loading', events: [], replies: [] });

/** The modal's Cancel of a scheduled message: idle, under way, or refused with the server's reason. */
export type CancelState = { status: 'idle' | 'canceling' } | { status: 'failed'; message: string };
export const cancelState = atom<CancelState>({ status: 'idle' });

let latest = 0;

/** Loads the shown transaction's events; an answer for a modal since closed or changed is dropped. */
export async function loadTimeline(): Promise<void> {
  const tx = shownTransaction.get();
  if (!tx) return;
  const request = ++latest;
  timeline.set({ status: 'loading', events: [], replies: [] });
  try {
    const answer = await call('GET /v1/transactions/{uuid}/events', { params: { uuid: tx.trans_uuid } });
    if (request === latest) timeline.set({ status: 'loaded', events: answer.data, replies: answer.replies });
  } catch {
    if (request === latest) timeline.set({ status: 'failed', events: [], replies: [] });
  }
}

/** More Info: opens the modal on this row and loads its timeline. */
export function showTransactionInfo(tx: InfoTransaction): void {
  cancelState.set({ status: 'idle' });
  shownTransaction.set(tx);
  void loadTimeline();
}

/**
 * Cancels the shown scheduled message (POST /v1/transactions/{uuid}/cancel): the modal then shows
 * it canceled with its new timeline, and `onCanceled` refreshes the table behind it.
 */
export async function cancelShownTransaction(onCanceled: () => void): Promise<void> {
  const tx = shownTransaction.get();
  if (!tx || cancelState.get().status === 'canceling') return;
  cancelState.set({ status: 'canceling' });
  try {
    await call('POST /v1/transactions/{uuid}/cancel', { params: { uuid: tx.trans_uuid } });
  } catch (err) {
    const message = errorMessage(err, 'The message could not be canceled. Try again.');
    if (shownTransaction.get() === tx) cancelState.set({ status: 'failed', message });
    return;
  }
  if (shownTransaction.get() !== tx) return;
  cancelState.set({ status: 'idle' });
  shownTransaction.set({ ...tx, trans_status: 'canceled' });
  void loadTimeline();
  onCanceled();
}

export function closeTransactionInfo(): void {
  latest++;
  shownTransaction.set(null);
}
