// API keys and SMTP credentials: one active row of each per customer; rotation revokes the old one.
import type { Database } from '../db/database.ts';

import { sql } from 'kysely';

type Kind = 'api_keys' | 'smtp_credentials';

/** Holds the customer's credentials lock until `trx` ends: creation and rotation never interleave. */
export async function lockCustomerCredentials(trx: Database, customerId: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(7346002, ${customerId}::int)`.execute(trx);
}

export async function findActive(db: Database, kind: Kind, customerId: number) {
  return db
    .selectFrom(kind)
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('revoked_at', 'is', null)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export async function findActiveByDigest(db: Database, kind: Kind, digest: string) {
  return db
    .selectFrom(kind)
    .select(['id', 'customer_id', 'username', 'secret_sealed'])
    .where('lookup_digest', '=', digest)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export async function insertCredential(
  db: Database,
  kind: Kind,
  row: { customer_id: number; username: string; secret_sealed: string; lookup_digest: string },
) {
  return db.insertInto(kind).values(row).returningAll().executeTakeFirstOrThrow();
}

export async function revokeAll(db: Database, kind: Kind, customerId: number): Promise<void> {
  await db
    .updateTable(kind)
    .set({ revoked_at: new Date() })
    .where('customer_id', '=', customerId)
    .where('revoked_at', 'is', null)
    .execute();
}
