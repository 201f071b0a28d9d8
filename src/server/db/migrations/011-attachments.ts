// Online attachments (docs/console-reports.md §3): a customer's download links ("groups"), their
// files ("assets", blobs in ctx.storage under 'attachments/<uuid>'), the customer's branding of the
// public page. A recipient's link carries a signed token naming the transaction that carried it.
// A blob is written before its row commits; attachment_blobs_sweep finds blobs with no row.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('attachment_groups')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    // the public page's address (/a/{public_id}) and the integration ID mail names it by
    .addColumn('public_id', 'text', (c) => c.notNull().unique())
    .addColumn('integration_id', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    // 0: no limit (docs/console-reports.md §3)
    .addColumn('access_limit', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('downloads', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index attachment_groups_customer_idx on attachment_groups (customer_id, created_at desc, id
    desc)`.execute(db);
  await db.schema
    .createTable('attachment_assets')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('group_id', 'bigint', (c) => c.notNull().references('attachment_groups.id').onDelete('cascade'))
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // the link a message names (online_attachment_id, X-Transact-Attachments); its block is added per recipient at
  // delivery
  await db.schema
    .alterTable('messages')
    .addColumn('attachment_group_id', 'bigint', (c) => c.references('attachment_groups.id').onDelete('set null'))
    .execute();
  await sql`create index attachment_assets_group_idx on attachment_assets (group_id, id)`.execute(db);
  await db.schema
    .createTable('attachment_branding')
    .addColumn('customer_id', 'bigint', (c) => c.primaryKey().references('customers.id').onDelete('cascade'))
    .addColumn('settings', 'jsonb', (c) => c.notNull())
    .addColumn('logo_key', 'text')
    .addColumn('logo_name', 'text')
    .addColumn('logo_type', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('attachment_branding').execute();
  await db.schema.alterTable('messages').dropColumn('attachment_group_id').execute();
  await db.schema.dropTable('attachment_assets').execute();
  await db.schema.dropTable('attachment_groups').execute();
}
