// Webhook deliveries (docs/console.md §3 Webhook, docs/console-reports.md §3 Webhook log): the signing secret
// and the reason a webhook was switched off, the outbox `webhook_requests` (one row per event sent
// to a webhook, written in the same transaction as the event, claimed by workers with a lease like
// transactions) and `webhook_attempts` (every try, shown by More info on the Webhook Logs page).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    // whsec_… sealed like other secrets; created with the webhook, replaced by a rotation
    .addColumn('secret_sealed', 'text')
    // why the service disabled it (a 410 Gone answer); cleared by the next save
    .addColumn('disabled_reason', 'text')
    .execute();

  await db.schema
    .createTable('webhook_requests')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('webhook_id', 'bigint', (c) => c.references('webhooks.id').onDelete('set null'))
    // the Standard Webhooks `webhook-id`: the same for every retry and replay of this event
    .addColumn('msg_id', 'text', (c) => c.notNull().defaultTo(sql`'msg_' || replace(gen_random_uuid()::text, '-', '')`))
    .addColumn('transaction_id', 'bigint')
    // sent, failed, bounce, open, click, unsubscribe, resubscribe, or test
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('event_at', 'timestamptz', (c) => c.notNull())
    .addColumn('event_data', 'jsonb')
    // the target as it was when the event happened
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('verb', 'text', (c) => c.notNull())
    .addColumn('field_set', 'text', (c) => c.notNull())
    // built on the first attempt from the transaction and the event, then kept (logs, replays)
    .addColumn('payload', 'jsonb')
    // pending (due at next_attempt_at), success, failed
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    // retries of the schedule already used; a replay starts it again
    .addColumn('retry_step', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz')
    .addColumn('last_status_code', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index webhook_requests_due on webhook_requests (next_attempt_at) where status = 'pending'`.execute(
    db,
  );
  await sql`create index webhook_requests_customer on webhook_requests (customer_id, created_at desc, id desc)`.execute(
    db,
  );
  await sql`create index webhook_requests_created on webhook_requests (created_at)`.execute(db);

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('request_id', 'bigint', (c) => c.notNull().references('webhook_requests.id').onDelete('cascade'))
    .addColumn('at', 'timestamptz', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    // the first 1 KB of the answer, shown escaped
    .addColumn('response_body', 'text')
    .addColumn('next_retry_at', 'timestamptz')
    .execute();
  await sql`create index webhook_attempts_request on webhook_attempts (request_id, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_attempts').execute();
  await db.schema.dropTable('webhook_requests').execute();
  await db.schema.alterTable('webhooks').dropColumn('secret_sealed').dropColumn('disabled_reason').execute();
}
