// Named API keys (docs/integrating.md "API keys"): any number per customer beside the account's one
// key (table api_keys, migration 002), each with a name, a permission (full_access or
// sending_access) and, for sending_access, an optional domain it may send from. Only the SHA-256 of
// the token is kept (looked up through its unique index) and its first characters to recognise it;
// last_used_at is written at most once a minute per key. Deleting a domain or customer deletes its keys.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('named_api_keys')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('permission', 'text', (c) => c.notNull().check(sql`permission in ('full_access', 'sending_access')`))
    .addColumn('domain_id', 'bigint', (c) => c.references('domains.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('token_prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_used_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('named_api_keys_customer_idx')
    .on('named_api_keys')
    .columns(['customer_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('named_api_keys').execute();
}
