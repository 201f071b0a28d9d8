// Sending domains of a customer.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Domain } from '../db/schema.ts';

export async function insertDomain(
  db: Database,
  row: { customer_id: number; domain: string; sending_verified: boolean; dkim_selector: string; dkim_private_key_sealed: string; dkim_public_key: string },
): Promise<Domain> {
  return db.insertInto('domains').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findCustomerDomain(db: Database, customerId: number, domain: string): Promise<Domain | undefined> {
  return db.selectFrom('domains').selectAll().where('customer_id', '=', customerId).where(sql`lower(domain)`, '=', domain.toLowerCase()).executeTakeFirst();
}

/** Whether any account has this domain verified for sending. */
export async function findVerifiedAnywhere(db: Database, domain: string): Promise<Domain | undefined> {
  return db.selectFrom('domains').selectAll().where(sql`lower(domain)`, '=', domain.toLowerCase()).where('sending_verified', '=', true).executeTakeFirst();
}

export async function findDomain(db: Database, id: number): Promise<Domain | undefined> {
  return db.selectFrom('domains').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listCustomerDomains(db: Database, customerId: number): Promise<Domain[]> {
  return db.selectFrom('domains').selectAll().where('customer_id', '=', customerId).orderBy('domain').execute();
}

export async function setVerified(db: Database, id: number, verified: boolean): Promise<void> {
  await db.updateTable('domains').set({ sending_verified: verified }).where('id', '=', id).execute();
}
