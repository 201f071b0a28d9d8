// Counted downloads of online attachments (the public download page): one row per download
// counted against a link's access limit, naming the file and the client (an HMAC of its address and
// the recipient token), so a ranged request that does not start at byte 0 is served uncounted only
// when that client has a recent counted download of that file. Rows older than the resume window are
// purged hourly by the worker.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('attachment_downloads')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('group_id', 'bigint', (c) => c.notNull().references('attachment_groups.id').onDelete('cascade'))
    .addColumn('asset_id', 'bigint', (c) => c.notNull().references('attachment_assets.id').onDelete('cascade'))
    .addColumn('client', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // the resume check looks up (link, file, client) newest first; the purge goes by age
  await sql`create index attachment_downloads_client_idx on attachment_downloads (group_id, asset_id, client, at
    desc)`.execute(db);
  await sql`create index attachment_downloads_at_idx on attachment_downloads (at)`.execute(db);
  // deleting a file cascades here: asset_id needs its own index for that
  await sql`create index attachment_downloads_asset_idx on attachment_downloads (asset_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('attachment_downloads').execute();
}
