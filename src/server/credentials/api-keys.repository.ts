// Named API keys (table named_api_keys, migration 021): the only writer of that table
// (docs/architecture.md §5, one writer per table). Tokens are found by their SHA-256 only.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { NamedApiKeysTable } from '../db/schema.ts';

export async function insertApiKey(db: Database, row: Omit<NamedApiKeysTable, 'created_at' | 'last_used_at'>) {
  return db.insertInto('named_api_keys').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A customer's keys, newest first, with the name of the domain a key is limited to. */
export async function listApiKeys(db: Database, customerId: number) {
  return db
    .selectFrom('named_api_keys as k')
    .leftJoin('domains as d', 'd.id', 'k.domain_id')
    .select([
      'k.id',
      'k.name',
      'k.permission',
      'k.domain_id',
      'd.domain',
      'k.token_prefix',
      'k.created_at',
      'k.last_used_at',
    ])
    .where('k.customer_id', '=', customerId)
    .orderBy('k.created_at', 'desc')
    .orderBy('k.id')
    .execute();
}

/** The key a token's hash names, with its domain's name, or undefined. */
export async function findByTokenHash(db: Database, tokenHash: string) {
  return db
    .selectFrom('named_api_keys as k')
    .leftJoin('domains as d', 'd.id', 'k.domain_id')
    .select(['k.id', 'k.customer_id', 'k.permission', 'd.domain'])
    .where('k.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** One of the customer's domains by id (a key may be limited to it), or undefined. */
export async function findCustomerDomainById(db: Database, customerId: number, domainId: number) {
  return db
    .selectFrom('domains')
    .select(['id', 'domain'])
    .where('customer_id', '=', customerId)
    .where('id', '=', domainId)
    .executeTakeFirst();
}

/** One of the customer's keys by id (its permission and domain), or undefined. */
export async function findApiKey(db: Database, customerId: number, id: string) {
  return db
    .selectFrom('named_api_keys')
    .select(['id', 'permission', 'domain_id'])
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Changes one of the customer's keys: its name, permission and domain. */
export async function updateApiKey(
  db: Database,
  customerId: number,
  id: string,
  change: Partial<Pick<NamedApiKeysTable, 'name' | 'permission' | 'domain_id'>>,
): Promise<void> {
  await db
    .updateTable('named_api_keys')
    .set(change)
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .execute();
}

/** Deletes one of the customer's keys; false when it has no such key. */
export async function deleteApiKey(db: Database, customerId: number, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('named_api_keys')
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Sets last_used_at to now unless it was set less than `minSeconds` ago (by this or another process). */
export async function touchLastUsed(db: Database, id: string, minSeconds: number): Promise<void> {
  await db
    .updateTable('named_api_keys')
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('last_used_at', 'is', null),
        eb('last_used_at', '<', sql<Date>`now() - make_interval(secs => ${minSeconds})`),
      ]),
    )
    .execute();
}
