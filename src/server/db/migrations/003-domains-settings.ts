// Domains, getting started and settings: domain verification bookkeeping, the system customer that
// sends our own mail (domain verification) through the normal pipeline, a `requests` rollup (every
// accepted transaction, the overview total), and the webhook a customer configures on Settings.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('customers')
    .addColumn('is_system', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();

  await db.schema
    .alterTable('domains')
    .addColumn('verified_at', 'timestamptz')
    .addColumn('verification_sent_at', 'timestamptz')
    .execute();

  await db.schema
    .alterTable('daily_stats')
    .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // transactions accepted before this column existed
  await sql`
    insert into daily_stats (customer_id, group_id, day, requests)
    select customer_id, group_id, (queued_at at time zone 'UTC')::date, count(*)::int
    from transactions group by 1, 2, 3
    on conflict (customer_id, group_id, day) do update set requests = excluded.requests`.execute(db);

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().unique().references('customers.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('verb', 'text', (c) => c.notNull().defaultTo('post'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('enabled'))
    .addColumn('auth_type', 'text')
    // { username, password } sealed like other secrets
    .addColumn('auth_details_sealed', 'text')
    .addColumn('event_types', 'jsonb', (c) => c.notNull())
    .addColumn('field_set', 'text', (c) => c.notNull().defaultTo('standard'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhooks').execute();
  await db.schema.alterTable('daily_stats').dropColumn('requests').execute();
  await db.schema.alterTable('domains').dropColumn('verified_at').dropColumn('verification_sent_at').execute();
  await db.schema.alterTable('customers').dropColumn('is_system').execute();
}
