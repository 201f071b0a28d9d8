// The customer's sending options (docs/console.md §3 "UI settings"), stored as columns of `customers`.
import type { Database } from '../db/database.ts';
import type { Customer } from '../db/schema.ts';
import { SENDING_OPTIONS, type SendingOption } from '../../contract/values.ts';

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
