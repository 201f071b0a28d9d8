// The query behind unsubscribe and resubscribe: the transaction a link names (the change itself is
// the lifecycle's, lifecycle/lifecycle.service.ts).
import type { Database } from '../db/database.ts';

export interface UnsubscribeTarget {
  id: number;
  customer_id: number;
  group_id: number;
  to_email: string;
}

/** The transaction with this uuid (any customer's: the uuid itself is the recipient's capability). */
export async function findTransactionByUuid(db: Database, uuid: string): Promise<UnsubscribeTarget | undefined> {
  return db
    .selectFrom('transactions')
    .select(['id', 'customer_id', 'group_id', 'to_email'])
    .where('uuid', '=', uuid)
    .executeTakeFirst();
}
