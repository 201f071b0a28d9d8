// Sending: credentials, sending domains, transaction groups, messages and their per-recipient
// transactions (each row is also the delivery job, docs/architecture.md §6 "The database is the queue"), the
// append-only events, daily rollups, monthly quota usage and idempotency keys.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('customers')
    .addColumn('track_opens', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('track_links', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('disable_suppression', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();

  for (const table of ['api_keys', 'smtp_credentials'] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      // HMAC of the secret (API keys) or of the username (SMTP): indexed lookup without decrypting
      .addColumn('lookup_digest', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('revoked_at', 'timestamptz')
      .execute();
    await sql`create index ${sql.raw(`${table}_customer_idx`)} on ${sql.table(table)} (customer_id) where revoked_at
      is null`.execute(db);
  }

  await db.schema
    .createTable('domains')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('sending_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('verification_email', 'text')
    .addColumn('verification_token_hash', 'text')
    .addColumn('verification_expires_at', 'timestamptz')
    .addColumn('dkim_selector', 'text', (c) => c.notNull())
    .addColumn('dkim_private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('dkim_public_key', 'text', (c) => c.notNull())
    .addColumn('dns_checked_at', 'timestamptz')
    .addColumn('dns_results', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index domains_customer_domain_idx on domains (customer_id, lower(domain))`.execute(db);
  // a domain can be verified for sending by one account only
  await sql`create unique index domains_verified_idx on domains (lower(domain)) where sending_verified`.execute(db);

  await db.schema
    .createTable('transaction_groups')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('uuid', 'uuid', (c) => c.notNull().unique())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_send_at', 'timestamptz')
    .execute();
  await db.schema
    .createIndex('transaction_groups_customer_name_idx')
    .on('transaction_groups')
    .columns(['customer_id', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('messages')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('domain_id', 'bigint', (c) => c.notNull().references('domains.id'))
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('from_name', 'text')
    .addColumn('reply_to', 'jsonb')
    .addColumn('to_header', 'jsonb', (c) => c.notNull())
    .addColumn('cc_header', 'jsonb')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('headers', 'jsonb')
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .addColumn('attachments', 'jsonb')
    // raw RFC 5322 message as submitted over SMTP (then parts above are informational)
    .addColumn('raw', 'bytea')
    .addColumn('tags', 'jsonb')
    .addColumn('metadata', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('transactions')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('uuid', 'uuid', (c) => c.notNull().unique())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('message_id', 'bigint', (c) => c.notNull().references('messages.id').onDelete('cascade'))
    .addColumn('group_id', 'bigint', (c) => c.notNull().references('transaction_groups.id'))
    .addColumn('to_email', 'text', (c) => c.notNull())
    .addColumn('to_name', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('delivered_status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('message_id_header', 'text', (c) => c.notNull())
    .addColumn('queued_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('sent_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('locked_until', 'timestamptz')
    .addColumn('last_reply', 'text')
    .addColumn('bounce_type', 'text')
    .addColumn('bounce_reason', 'text')
    .addColumn('open_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('click_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_open_at', 'timestamptz')
    .addColumn('first_click_at', 'timestamptz')
    .execute();
  // the queue: only rows still waiting are indexed, so claiming stays fast however many were sent
  await sql`create index transactions_queue_idx on transactions (next_attempt_at) where status = 'queued'`.execute(db);
  await db.schema
    .createIndex('transactions_customer_queued_idx')
    .on('transactions')
    .columns(['customer_id', 'queued_at'])
    .execute();
  await db.schema.createIndex('transactions_message_idx').on('transactions').column('message_id').execute();

  await db.schema
    .createTable('events')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('transaction_id', 'bigint', (c) => c.notNull().references('transactions.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('data', 'jsonb')
    .execute();
  await db.schema.createIndex('events_transaction_idx').on('events').columns(['transaction_id', 'id']).execute();

  await db.schema
    .createTable('daily_stats')
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('group_id', 'bigint', (c) => c.notNull())
    .addColumn('day', 'date', (c) => c.notNull())
    .addColumn('sent', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bounced', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bounces_hard', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bounces_soft', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('opens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unique_opens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('unique_clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('daily_stats_pk', ['customer_id', 'group_id', 'day'])
    .execute();

  await db.schema
    .createTable('quota_usage')
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('month', 'date', (c) => c.notNull())
    .addColumn('used', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('quota_usage_pk', ['customer_id', 'month'])
    .execute();

  await db.schema
    .createTable('suppressions')
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('suppressions_pk', ['customer_id', 'email'])
    .execute();
  // sending checks recipients case-insensitively
  await sql`create index suppressions_lower_idx on suppressions (customer_id, lower(email))`.execute(db);

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('customer_id', 'bigint', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('response', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['customer_id', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created_idx').on('idempotency_keys').column('created_at').execute();
}
