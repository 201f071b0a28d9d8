// Receiving mail (docs/receiving.md): a sending domain may take mail too (`receiving_enabled`, set
// by the API or the console; its MX record points at this service's MX listener) and may refuse at
// DATA a message that fails DMARC under a reject policy (`inbound_refuse_dmarc_reject`; by default
// such a message is kept and flagged). Each received message is one row of `inbound_emails`: the
// parsed fields and the verdicts of SPF, DKIM and DMARC; the raw message and each attachment are
// files in the storage (keys `inbound/<id>/…`), deleted with the row after the retention period.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .addColumn('receiving_enabled', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('inbound_refuse_dmarc_reject', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  // the MX listener finds a receiving domain by name at every RCPT TO
  await sql`create index domains_receiving_idx on domains (lower(domain)) where receiving_enabled`.execute(db);
  await db.schema
    .createTable('inbound_emails')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('customer_id', 'bigint', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('domain_id', 'bigint', (c) => c.references('domains.id').onDelete('set null'))
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('envelope_from', 'text', (c) => c.notNull())
    .addColumn('received_for', 'jsonb', (c) => c.notNull())
    .addColumn('remote_ip', 'text')
    .addColumn('helo', 'text')
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_addresses', 'jsonb', (c) => c.notNull())
    .addColumn('cc_addresses', 'jsonb', (c) => c.notNull())
    .addColumn('bcc_addresses', 'jsonb', (c) => c.notNull())
    .addColumn('reply_to_addresses', 'jsonb', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('in_reply_to', 'text')
    .addColumn('references', 'jsonb', (c) => c.notNull())
    .addColumn('sent_at', 'timestamptz')
    .addColumn('text', 'text')
    .addColumn('html', 'text')
    .addColumn('headers', 'jsonb', (c) => c.notNull())
    .addColumn('attachments', 'jsonb', (c) => c.notNull())
    .addColumn('raw_size', 'bigint', (c) => c.notNull())
    .addColumn('spf', 'text', (c) => c.notNull())
    .addColumn('dkim', 'text', (c) => c.notNull())
    .addColumn('dmarc', 'text', (c) => c.notNull())
    .addColumn('dmarc_policy', 'text')
    .addColumn('auth_headers', 'text', (c) => c.notNull())
    .addColumn('flagged', 'boolean', (c) => c.notNull().defaultTo(false))
    // the sent message this one answers (In-Reply-To / References naming its Message-ID)
    .addColumn('reply_to_transaction_id', 'bigint')
    .execute();
  await db.schema
    .createIndex('inbound_emails_customer_idx')
    .on('inbound_emails')
    .columns(['customer_id', 'received_at', 'id'])
    .execute();
  await db.schema.createIndex('inbound_emails_received_idx').on('inbound_emails').column('received_at').execute();
  await db.schema
    .createIndex('inbound_emails_reply_idx')
    .on('inbound_emails')
    .column('reply_to_transaction_id')
    .where('reply_to_transaction_id', 'is not', null)
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('inbound_emails').execute();
  await sql`drop index domains_receiving_idx`.execute(db);
  await db.schema
    .alterTable('domains')
    .dropColumn('inbound_refuse_dmarc_reject')
    .dropColumn('receiving_enabled')
    .execute();
}
