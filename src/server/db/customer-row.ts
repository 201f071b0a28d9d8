// Deleting one of a customer's rows by a key a request gave: the key always comes with the
// customer, so another account's id finds nothing.
import { type Selectable, sql } from 'kysely';
import type { Database } from './database.ts';
import type { Tables } from './schema.ts';

/**
 * The tables whose rows each belong to one customer (a customer_id column), but for those that have
 * one writer, their own repository (docs/architecture.md §5).
 */
type CustomerTable = Exclude<
  { [T in keyof Tables]: 'customer_id' extends keyof Tables[T] ? T : never }[keyof Tables],
  'events' | 'daily_stats' | 'suppressions' | 'named_api_keys'
>;

/** Deletes the customer's row of `table` whose `key` column is `value`; false when it has none. */
export async function deleteCustomerRow<T extends CustomerTable, K extends keyof Selectable<Tables[T]> & string>(
  db: Database,
  table: T,
  customerId: number,
  key: K,
  value: Selectable<Tables[T]>[K],
): Promise<boolean> {
  const result = await sql`
    delete from ${sql.table(table)}
     where customer_id = ${customerId} and ${sql.ref(key)} = ${value}`.execute(db);
  return (result.numAffectedRows ?? 0n) > 0n;
}
