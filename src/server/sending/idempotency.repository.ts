// Idempotency keys, kept 24 hours: the first answer to a (customer, key) pair is stored in the same
// transaction that accepted the mail, so a retried request can never queue it twice.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export const IDEMPOTENCY_TTL_HOURS = 24;

/** A live key (younger than 24 h); an older row with the same key is removed. */
export async function findIdempotencyKey(db: Database, customerId: number, key: string) {
  const row = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  if (new Date(row.created_at).getTime() < Date.now() - IDEMPOTENCY_TTL_HOURS * 3600_000) {
    await db
      .deleteFrom('idempotency_keys')
      .where('customer_id', '=', customerId)
      .where('key', '=', key)
      .where('created_at', '=', row.created_at)
      .execute();
    return undefined;
  }
  return row;
}

export async function insertIdempotencyKeys(
  db: Database,
  rows: { customer_id: number; key: string; request_hash: string; status: number; response: unknown }[],
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('idempotency_keys')
    .values(rows.map((r) => ({ ...r, response: JSON.stringify(r.response) })))
    .execute();
}

export async function pruneIdempotencyKeys(db: Database): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', sql<Date>`now() - make_interval(hours => ${IDEMPOTENCY_TTL_HOURS})`)
    .execute();
}
