// Several webhooks per account (docs/webhooks.md "Several webhooks"): the one-per-customer
// uniqueness goes; each webhook gets a uuid, its id on the Resend-compatible surface
// (/resend/webhooks); the Webhook Logs' filter by webhook and Resend's events list read the outbox
// through (webhook_id, created_at, id).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table webhooks drop constraint webhooks_customer_id_key`.execute(db);
  await db.schema.createIndex('webhooks_customer_idx').on('webhooks').columns(['customer_id', 'id']).execute();
  await db.schema
    .alterTable('webhooks')
    .addColumn('uuid', 'uuid', (c) => c.notNull().unique().defaultTo(sql`gen_random_uuid()`))
    .execute();
  await sql`create index webhook_requests_webhook on webhook_requests (webhook_id, created_at desc, id desc)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index webhook_requests_webhook`.execute(db);
  await db.schema.alterTable('webhooks').dropColumn('uuid').execute();
  // one webhook per customer again: the oldest stays
  await sql`delete from webhooks w where exists (
    select 1 from webhooks o where o.customer_id = w.customer_id and o.id < w.id)`.execute(db);
  await db.schema.dropIndex('webhooks_customer_idx').execute();
  await sql`alter table webhooks add constraint webhooks_customer_id_key unique (customer_id)`.execute(db);
}
