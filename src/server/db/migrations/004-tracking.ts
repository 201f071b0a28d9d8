// Click tracking (docs/architecture.md §4.1 `links`): each tracked link of a delivered message is a row with a
// random token; the tracking URL carries only the token, never the destination, so it cannot be
// turned into an open redirect.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('links')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('transaction_id', 'bigint', (c) => c.notNull().references('transactions.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_click_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index links_transaction_idx on links (transaction_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('links').execute();
}
