// The queries of the bounce receiver: find the transaction a VERP token or a feedback report names
// (locked, so two copies of one report arriving together count once); the lifecycle records what
// the report did (lifecycle/).
import type { Database } from '../db/database.ts';
import type { DeliveredStatus, TransStatus } from '../db/schema.ts';

export interface BounceTarget {
  id: number;
  customer_id: number;
  group_id: number;
  to_email: string;
  message_id_header: string;
  status: TransStatus;
  delivered_status: DeliveredStatus;
}

const selectTarget = (db: Database, uuid: string) =>
  db
    .selectFrom('transactions')
    .select(['id', 'customer_id', 'group_id', 'to_email', 'message_id_header', 'status', 'delivered_status'])
    .where('uuid', '=', uuid);

/** The transaction with this uuid, locked FOR UPDATE until the surrounding transaction ends. */
export async function lockTransactionByUuid(db: Database, uuid: string): Promise<BounceTarget | undefined> {
  return selectTarget(db, uuid).forUpdate().executeTakeFirst();
}

/** The transaction with this uuid, read without a lock. */
export async function findTransactionByUuid(db: Database, uuid: string): Promise<BounceTarget | undefined> {
  return selectTarget(db, uuid).executeTakeFirst();
}
