// Enterprises, customers and users: plain queries taking the database (or a transaction) first.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Customer, Enterprise, NewUser, User, UserUpdate } from '../db/schema.ts';

export async function insertEnterprise(
  db: Database,
  row: {
    name: string;
    header_colour?: string;
    logo_url?: string | null;
    parent_url?: string | null;
    sms_enabled?: boolean;
    external_id?: string | null;
  },
): Promise<Enterprise> {
  return db
    .insertInto('enterprises')
    .values({ header_colour: '#243447', ...row })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertCustomer(
  db: Database,
  row: {
    enterprise_id: number;
    name: string;
    monthly_quota?: number;
    is_reseller?: boolean;
    external_id?: string | null;
  },
): Promise<Customer> {
  return db.insertInto('customers').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertUser(db: Database, row: NewUser): Promise<User> {
  return db.insertInto('users').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateUser(db: Database, id: number, changes: UserUpdate): Promise<User | undefined> {
  return db.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Ends every session of the user (a new password). */
export async function deleteUserSessions(db: Database, userId: number): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

/** Holds the first-start lock until `trx` ends: two processes starting together bootstrap once. */
export async function lockBootstrap(trx: Database): Promise<void> {
  await sql`select pg_advisory_xact_lock(7346001)`.execute(trx);
}

/**
 * The enterprise or customer with this parent-platform id, created or updated with `values`
 * (sign-in by the parent platform's assertion); answers its id.
 */
export async function upsertEnterpriseByExternalId(
  db: Database,
  externalId: string,
  values: {
    name: string;
    header_colour?: string;
    logo_url?: string | null;
    parent_url?: string | null;
    sms_enabled?: boolean;
  },
): Promise<number> {
  const row = await db
    .insertInto('enterprises')
    .values({ header_colour: '#243447', ...values, external_id: externalId })
    .onConflict((oc) => oc.column('external_id').doUpdateSet(values))
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function upsertCustomerByExternalId(
  db: Database,
  externalId: string,
  values: { name: string; enterprise_id: number; is_reseller?: boolean },
): Promise<number> {
  const row = await db
    .insertInto('customers')
    .values({ ...values, external_id: externalId })
    .onConflict((oc) => oc.column('external_id').doUpdateSet(values))
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function findEnterprise(db: Database, id: number): Promise<Enterprise | undefined> {
  return db.selectFrom('enterprises').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findCustomer(db: Database, id: number): Promise<Customer | undefined> {
  return db.selectFrom('customers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findCustomerByName(db: Database, name: string): Promise<Customer[]> {
  return db.selectFrom('customers').selectAll().where(sql`lower(name)`, '=', name.toLowerCase()).execute();
}

export async function findUserByEmail(db: Database, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where(sql`lower(email)`, '=', email.toLowerCase()).executeTakeFirst();
}

export async function findByExternalId<T extends 'enterprises' | 'customers' | 'users'>(
  db: Database,
  table: T,
  externalId: string,
) {
  return db
    .selectFrom(table as 'users')
    .selectAll()
    .where('external_id', '=', externalId)
    .executeTakeFirst() as Promise<
    T extends 'enterprises' ? Enterprise | undefined : T extends 'customers' ? Customer | undefined : User | undefined
  >;
}

export async function countUsers(db: Database): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** An enterprise and one of its customers, as the account lists name them. */
const ORGANISATION_COLUMNS = [
  'enterprises.id as enterprise_id',
  'enterprises.name as enterprise_name',
  'customers.id as customer_id',
  'customers.name as customer_name',
] as const;

export async function listAccounts(db: Database) {
  return db
    .selectFrom('users')
    .innerJoin('customers', 'customers.id', 'users.customer_id')
    .innerJoin('enterprises', 'enterprises.id', 'customers.enterprise_id')
    .select([...ORGANISATION_COLUMNS, 'users.id as user_id', 'users.email', 'users.name as user_name'])
    .orderBy('enterprises.id')
    .orderBy('customers.id')
    .orderBy('users.id')
    .execute();
}

export async function listEnterprisesAndCustomers(db: Database) {
  return db
    .selectFrom('enterprises')
    .leftJoin('customers', 'customers.enterprise_id', 'enterprises.id')
    .select(ORGANISATION_COLUMNS)
    .orderBy('enterprises.id')
    .orderBy('customers.id')
    .execute();
}
