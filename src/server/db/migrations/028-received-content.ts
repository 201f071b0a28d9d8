// Received mail to webhooks (docs/receiving.md "To a webhook"): a webhook may ask for the whole
// message in `email.received` (`received_content` 'full', with attachments inline in base64 up to
// `received_inline_max_bytes` in all, else as signed links) instead of its fields only ('metadata',
// the default); each outbox row of `email.received` names its message, so the console's message page
// lists the requests the message caused (through webhook_requests_inbound).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .addColumn('received_content', 'text', (c) =>
      c.notNull().defaultTo('metadata').check(sql`received_content in ('metadata', 'full')`),
    )
    .addColumn('received_inline_max_bytes', 'integer', (c) =>
      c.notNull().defaultTo(262_144).check(sql`received_inline_max_bytes >= 0`),
    )
    .execute();
  await db.schema.alterTable('webhook_requests').addColumn('inbound_email_id', 'uuid').execute();
  await sql`create index webhook_requests_inbound on webhook_requests (inbound_email_id, id)
    where inbound_email_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index webhook_requests_inbound`.execute(db);
  await db.schema.alterTable('webhook_requests').dropColumn('inbound_email_id').execute();
  await db.schema
    .alterTable('webhooks')
    .dropColumn('received_inline_max_bytes')
    .dropColumn('received_content')
    .execute();
}
