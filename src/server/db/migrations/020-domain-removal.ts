// A sending domain can be removed (DELETE /resend/domains/{id}) while the messages sent from it stay
// with their history: messages.domain_id becomes nullable and is set to null when its domain row
// goes. The domains service refuses a removal while any of the domain's mail is queued or scheduled,
// so the delivery worker never claims a message without its domain (docs/architecture.md §5). The
// constraint is added NOT VALID and validated apart, so the scan takes no lock that stops writes.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table messages alter column domain_id drop not null`.execute(db);
  await sql`alter table messages drop constraint messages_domain_id_fkey`.execute(db);
  await sql`alter table messages add constraint messages_domain_id_fkey foreign key (domain_id)
    references domains (id) on delete set null not valid`.execute(db);
  await sql`alter table messages validate constraint messages_domain_id_fkey`.execute(db);
}

/** Fails once a domain was removed: its messages have no domain to point at again. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table messages drop constraint messages_domain_id_fkey`.execute(db);
  await sql`alter table messages add constraint messages_domain_id_fkey foreign key (domain_id)
    references domains (id)`.execute(db);
  await sql`alter table messages alter column domain_id set not null`.execute(db);
}
