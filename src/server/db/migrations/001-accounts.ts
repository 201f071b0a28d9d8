// Accounts and sign-in: enterprises → customers → users, sessions, sign-in throttling, challenges.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('enterprises')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('header_colour', 'text', (c) => c.notNull().defaultTo('#243447'))
    .addColumn('logo_url', 'text')
    .addColumn('parent_url', 'text')
    .addColumn('sms_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('external_id', 'text', (c) => c.unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('enterprise_id', 'bigint', (c) => c.notNull().references('enterprises.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('monthly_quota', 'integer', (c) => c.notNull().defaultTo(10000))
    .addColumn('is_reseller', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('external_id', 'text', (c) => c.unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('customers_enterprise_idx').on('customers').column('enterprise_id').execute();

  await db.schema
    .createTable('users')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('picture_url', 'text')
    .addColumn('can_super_administrator', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('can_customer_administrator', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('can_domains_access', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('can_archive_report_access', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('can_enterprise_templates', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('can_sms_edit', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('can_message_report_access', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('can_send_transactions', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('external_id', 'text', (c) => c.unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_login_at', 'timestamptz')
    .execute();
  // one account per address, whatever its case
  await sql`create unique index users_email_idx on users (lower(email))`.execute(db);
  await db.schema.createIndex('users_customer_idx').on('users').column('customer_id').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'bigint', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('login_failures')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('login_failures_key_at_idx').on('login_failures').columns(['key', 'at']).execute();

  await db.schema
    .createTable('auth_challenges')
    .addColumn('nonce_hash', 'text', (c) => c.primaryKey())
    .addColumn('redirect', 'text')
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
}
