// Where a service begins a database transaction (docs/architecture.md §3: route → service →
// repository; the service decides the transaction, its repositories run inside it).
import type { Database } from '../db/database.ts';
import { forceIndexOrder } from '../db/index-order.ts';
import type { AppContext } from './context.ts';

/** Runs `work` in one transaction on `db`: COMMIT when it resolves, ROLLBACK when it throws. */
export function inTransaction<T>(db: Database, work: (trx: Database) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}

/**
 * Runs a queue's claim (delivery, webhooks): on PGlite in a transaction that keeps it on the due
 * index (db/index-order.ts says why), on PostgreSQL as it is.
 */
export function claimAlongDueIndex<T>(
  ctx: Pick<AppContext, 'db' | 'engine'>,
  claim: (db: Database) => Promise<T>,
): Promise<T> {
  if (ctx.engine !== 'pglite') return claim(ctx.db);
  return inTransaction(ctx.db, async (trx) => {
    await forceIndexOrder(trx);
    return claim(trx);
  });
}
