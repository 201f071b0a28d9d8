// Suppressions on the Resend-compatible surface (docs/integrating.md "Suppressions"): each entry gets
// a uuid `id` (Resend names entries by id or address), and the transaction whose bounce or complaint
// listed it, `source_transaction_id` (null for an entry added by hand or by an older version). No
// foreign key: transactions are never deleted but with their customer, whose entries go too. The
// page index serves Resend's cursor pages, newest first.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table suppressions add column id uuid not null default gen_random_uuid()`.execute(db);
  await sql`alter table suppressions add column source_transaction_id bigint`.execute(db);
  await sql`create unique index suppressions_id_key on suppressions (id)`.execute(db);
  await sql`create index suppressions_page_idx on suppressions (customer_id, created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index suppressions_page_idx`.execute(db);
  await sql`drop index suppressions_id_key`.execute(db);
  await sql`alter table suppressions drop column source_transaction_id`.execute(db);
  await sql`alter table suppressions drop column id`.execute(db);
}
