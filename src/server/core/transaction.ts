// Where a service begins a database transaction (docs/architecture.md §3: route → service →
// repository; the service decides the transaction, its repositories run inside it).
import type { Database } from '../db/database.ts';

/** Runs `work` in one transaction on `db`: COMMIT when it resolves, ROLLBACK when it throws. */
export function inTransaction<T>(db: Database, work: (trx: Database) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}
