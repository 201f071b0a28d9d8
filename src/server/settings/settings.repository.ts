// The customer's sending options (docs/console.md §3 "UI settings"), stored as columns of `customers`.
import type { Database } from '../db/database.ts';
import type { Customer } from '../db/schema.ts';

/** The options the Settings page toggles (docs/console.md §7 POST /v1/ui-settings). */
export const SENDING_OPTIONS = ['track_opens', 'track_links', 'disable_suppression'] as const;
export type SendingOption = (typeof SENDING_OPTIONS)[number];

export type SendingOptions = Pick<Customer, SendingOption>;

/** Sets one option of a customer; returns all three afterwards, or undefined for no such customer. */
export async function updateSendingOption(
  db: Database,
  customerId: number,
  option: SendingOption,
  value: boolean,
): Promise<SendingOptions | undefined> {
  return db
    .updateTable('customers')
    .set({ [option]: value })
    .where('id', '=', customerId)
    .returning([...SENDING_OPTIONS])
    .executeTakeFirst();
}
