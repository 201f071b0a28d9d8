// Sending domains of a customer.
import { type Updateable, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { hasRow } from '../db/has-row.ts';
import type { Domain, DomainsTable } from '../db/schema.ts';

export async function insertDomain(
  db: Database,
  row: {
    customer_id: number;
    domain: string;
    sending_verified: boolean;
    dkim_selector: string;
    dkim_private_key_sealed: string;
    dkim_public_key: string;
  } & DomainOptionColumns,
): Promise<Domain> {
  return db.insertInto('domains').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A domain's option columns (migration 025), capabilities as JSON text. */
type DomainOptionColumns = Partial<
  Pick<
    Updateable<DomainsTable>,
    'open_tracking' | 'click_tracking' | 'tls' | 'region' | 'capabilities' | 'receiving_enabled'
  > &
    Pick<Updateable<DomainsTable>, 'custom_return_path' | 'tracking_subdomain'>
>;

/** Sets the option columns given. */
export async function updateDomainOptions(db: Database, id: number, columns: DomainOptionColumns): Promise<void> {
  await db.updateTable('domains').set(columns).where('id', '=', id).execute();
}

/** The domain matching every column given and, with `name`, that name in any case. */
async function findDomainBy(
  db: Database,
  match: { id?: number; customer_id?: number; sending_verified?: boolean },
  name?: string,
): Promise<Domain | undefined> {
  let query = db
    .selectFrom('domains')
    .selectAll()
    .where((eb) => eb.and(match));
  if (name !== undefined) query = query.where(sql`lower(domain)`, '=', name.toLowerCase());
  return query.executeTakeFirst();
}

export async function findCustomerDomain(
  db: Database,
  customerId: number,
  domain: string,
): Promise<Domain | undefined> {
  return findDomainBy(db, { customer_id: customerId }, domain);
}

/** Whether any account has this domain verified for sending. */
export async function findVerifiedAnywhere(db: Database, domain: string): Promise<Domain | undefined> {
  return findDomainBy(db, { sending_verified: true }, domain);
}

export async function findDomain(db: Database, id: number): Promise<Domain | undefined> {
  return findDomainBy(db, { id });
}

export async function listCustomerDomains(db: Database, customerId: number): Promise<Domain[]> {
  return db.selectFrom('domains').selectAll().where('customer_id', '=', customerId).orderBy('domain').execute();
}

/** A domain of this customer by id, or undefined (another customer's id reads as missing). */
export async function findCustomerDomainById(
  db: Database,
  customerId: number,
  id: number,
): Promise<Domain | undefined> {
  return findDomainBy(db, { id, customer_id: customerId });
}

/**
 * Locks a domain of this customer for removal (FOR UPDATE): an acceptance inserting a message from it
 * waits for the lock through the foreign key, so it cannot slip in between the check and the delete.
 */
export async function lockCustomerDomain(
  db: Database,
  customerId: number,
  id: number,
): Promise<Pick<Domain, 'id' | 'domain'> | undefined> {
  return db
    .selectFrom('domains')
    .select(['id', 'domain'])
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .forUpdate()
    .executeTakeFirst();
}

/** Whether any recipient of a message from the domain still waits: queued (or retrying) or scheduled. */
export async function hasWaitingMail(db: Database, domainId: number): Promise<boolean> {
  return hasRow(
    db
      .selectFrom('transactions')
      .innerJoin('messages', 'messages.id', 'transactions.message_id')
      .select('transactions.id')
      .where('transactions.status', 'in', ['queued', 'scheduled'])
      .where('messages.domain_id', '=', domainId),
  );
}

/** Deletes the domain row; its messages keep their history with domain_id null (migration 020). */
export async function deleteDomain(db: Database, id: number): Promise<void> {
  await db.deleteFrom('domains').where('id', '=', id).execute();
}

/** Stores a fresh verification token (its hash) for `email`; earlier links stop working. */
export async function setVerificationToken(
  db: Database,
  id: number,
  email: string,
  tokenHash: string,
  expiresAt: Date,
): Promise<void> {
  await db
    .updateTable('domains')
    .set({
      verification_email: email,
      verification_token_hash: tokenHash,
      verification_expires_at: expiresAt,
      verification_sent_at: new Date(),
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Marks the domain verified if `tokenHash` is its current, unexpired token, and uses the token up
 * (single use); returns the domain, or undefined when nothing matched.
 */
export async function consumeVerificationToken(
  db: Database,
  id: number,
  tokenHash: string,
): Promise<Domain | undefined> {
  return db
    .updateTable('domains')
    .set({
      sending_verified: true,
      verified_at: new Date(),
      verification_token_hash: null,
      verification_expires_at: null,
    })
    .where('id', '=', id)
    .where('verification_token_hash', '=', tokenHash)
    .where('verification_expires_at', '>', new Date())
    .returningAll()
    .executeTakeFirst();
}

export async function findSystemCustomerId(db: Database): Promise<number | undefined> {
  const row = await db
    .selectFrom('customers')
    .select('id')
    .where('is_system', '=', true)
    .orderBy('id')
    .executeTakeFirst();
  return row?.id;
}

/** The enterprise and customer our own mail is sent as: no users, no tracking, no quota to speak of. */
export async function insertSystemCustomer(db: Database): Promise<number> {
  const enterprise = await db
    .insertInto('enterprises')
    .values({ name: 'Transact (system)', header_colour: '#243447' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const customer = await db
    .insertInto('customers')
    .values({
      enterprise_id: enterprise.id,
      name: 'Transact (system)',
      is_system: true,
      track_opens: false,
      track_links: false,
      monthly_quota: 2_000_000_000,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return customer.id;
}

/** The verified domain of that name whose owner receives mail for it (docs/receiving.md), if any. */
export async function findReceivingDomain(db: Database, name: string): Promise<Domain | undefined> {
  return db
    .selectFrom('domains')
    .selectAll()
    .where(sql`lower(domain)`, '=', name.toLowerCase())
    .where('receiving_enabled', '=', true)
    .where('sending_verified', '=', true)
    .executeTakeFirst();
}

/** Switches receiving for one of this customer's domains; false when it has no such domain. */
export async function setReceiving(
  db: Database,
  customerId: number,
  id: number,
  values: { receiving_enabled?: boolean; inbound_refuse_dmarc_reject?: boolean },
): Promise<boolean> {
  const done = await db
    .updateTable('domains')
    .set(values)
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}
