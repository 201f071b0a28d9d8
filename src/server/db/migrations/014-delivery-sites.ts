// Destination sites for direct MX delivery: one row per site (a set of MX hosts) with its
// adaptive state (current connection limit, pause, operator suspension, last reply), shared by
// every worker process; connection slots leased per site so the connection limit holds across
// processes; and each queued transaction's site, so operators see what waits where and a resume
// brings that site's messages due at once.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('delivery_sites')
    .addColumn('site', 'text', (c) => c.primaryKey())
    // null = the shaping limit; lowered by slow-down replies, raised again by deliveries
    .addColumn('conn_limit', 'integer')
    .addColumn('paused_until', 'timestamptz')
    // the length of the last pause, doubled while slow-down replies repeat; 0 after a delivery
    .addColumn('pause_seconds', 'integer', (c) => c.notNull().defaultTo(0))
    // set by `admin queue suspend`; year 9999 until resumed
    .addColumn('suspended_until', 'timestamptz')
    .addColumn('last_reply', 'text')
    .addColumn('last_reply_at', 'timestamptz')
    .addColumn('delivered', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('deferred', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('delivery_site_slots')
    .addColumn('site', 'text', (c) => c.notNull())
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('until', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('delivery_site_slots_pk', ['site', 'slot'])
    .execute();
  await db.schema.alterTable('transactions').addColumn('site', 'text').execute();
  await sql`create index transactions_queued_site_idx on transactions (site) where status = 'queued'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index transactions_queued_site_idx`.execute(db);
  await db.schema.alterTable('transactions').dropColumn('site').execute();
  await db.schema.dropTable('delivery_site_slots').execute();
  await db.schema.dropTable('delivery_sites').execute();
}
