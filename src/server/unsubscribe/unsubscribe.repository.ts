// The queries behind unsubscribe and resubscribe: the transaction a link names, and the
// recipient's entry (origin 'unsubscribe') on that customer's suppression list.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export interface UnsubscribeTarget {
  id: number;
  customer_id: number;
  to_email: string;
}

/** The transaction with this uuid (any customer's: the uuid itself is the recipient's capability). */
export async function findTransactionByUuid(db: Database, uuid: string): Promise<UnsubscribeTarget | undefined> {
  return db
    .selectFrom('transactions')
    .select(['id', 'customer_id', 'to_email'])
    .where('uuid', '=', uuid)
    .executeTakeFirst();
}

/** Whether the address is on the customer's list under any origin, compared as sending compares it (lower case). */
export async function isSuppressed(db: Database, customerId: number, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('suppressions')
    .select('email')
    .where('customer_id', '=', customerId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Adds the address with origin 'unsubscribe' (listed at `at`); false when an entry was there already (nothing changed).
 */
export async function insertUnsubscribe(
  db: Database,
  customerId: number,
  email: string,
  at = new Date(),
): Promise<boolean> {
  const rows = await db
    .insertInto('suppressions')
    .values({ customer_id: customerId, email, origin: 'unsubscribe', created_at: at })
    .onConflict((oc) => oc.columns(['customer_id', 'email']).doNothing())
    .returning('email')
    .execute();
  return rows.length > 0;
}

/**
 * Removes the customer's entries for the address that an unsubscribe made, never a bounce's or one
 * the customer added; false when there was none.
 */
export async function deleteUnsubscribe(db: Database, customerId: number, email: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('suppressions')
    .where('customer_id', '=', customerId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('origin', '=', 'unsubscribe')
    .returning('email')
    .execute();
  return rows.length > 0;
}
