// What the Resend-compatible surface reads and schedules (docs/integrating.md):
// - messages by customer, newest first: GET /resend/emails pages through them by id;
// - a transaction's scheduled_at: when a message accepted with `scheduled_at` is to be sent. Such a
//   row waits in status 'scheduled' with next_attempt_at at that moment; the delivery worker
//   releases it (status 'queued', the quota counted then) once it is due, through the index of
//   waiting scheduled rows below. A column without a default is added without rewriting the table.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('messages_customer_id_idx').on('messages').columns(['customer_id', 'id']).execute();
  await db.schema.alterTable('transactions').addColumn('scheduled_at', 'timestamptz').execute();
  await sql`create index transactions_scheduled_idx on transactions (next_attempt_at)
    where status = 'scheduled'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index transactions_scheduled_idx`.execute(db);
  await db.schema.alterTable('transactions').dropColumn('scheduled_at').execute();
  await db.schema.dropIndex('messages_customer_id_idx').execute();
}
