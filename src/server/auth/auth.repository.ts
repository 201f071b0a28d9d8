// Sessions, failed sign-in records and parent-platform challenges.
import type { Database } from '../db/database.ts';
import { PERMISSIONS, type Permission } from '../../contract/values.ts';
import type { User } from '../db/schema.ts';

export async function insertSession(
  db: Database,
  row: { token_hash: string; user_id: number; expires_at: Date; ip: string | null; user_agent: string | null },
): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/** The session with its user, customer and enterprise (one query), if it exists and has not expired. */
export async function findLiveSession(db: Database, tokenHash: string) {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .innerJoin('customers', 'customers.id', 'users.customer_id')
    .innerJoin('enterprises', 'enterprises.id', 'customers.enterprise_id')
    .select([
      'sessions.token_hash',
      'sessions.expires_at',
      'users.id as user_id',
      'users.name as user_name',
      'users.email as user_email',
      'users.picture_url as user_picture_url',
      ...PERMISSIONS.map((p) => `users.can_${p}` as const),
      'customers.id as customer_id',
      'customers.name as customer_name',
      'enterprises.id as enterprise_id',
      'enterprises.name as enterprise_name',
      'enterprises.header_colour',
      'enterprises.logo_url',
      'enterprises.parent_url',
      'enterprises.sms_enabled',
    ])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', new Date())
    .executeTakeFirst();
  if (!row) return undefined;
  const flags = Object.fromEntries(PERMISSIONS.map((p) => [`can_${p}`, row[`can_${p}`]])) as Pick<
    User,
    `can_${Permission}`
  >;
  return {
    tokenHash: row.token_hash,
    expiresAt: new Date(row.expires_at),
    user: { id: row.user_id, name: row.user_name, email: row.user_email, picture_url: row.user_picture_url, ...flags },
    customer: { id: row.customer_id, name: row.customer_name },
    enterprise: {
      id: row.enterprise_id,
      name: row.enterprise_name,
      header_colour: row.header_colour,
      logo_url: row.logo_url,
      parent_url: row.parent_url,
      sms_enabled: row.sms_enabled,
    },
  };
}

export async function extendSession(db: Database, tokenHash: string, expiresAt: Date): Promise<void> {
  await db.updateTable('sessions').set({ expires_at: expiresAt }).where('token_hash', '=', tokenHash).execute();
}

export async function deleteSession(db: Database, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

export async function deleteExpiredSessions(db: Database): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<', new Date()).execute();
}

export async function countFailuresSince(db: Database, keys: string[], since: Date): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('login_failures')
    .select(['key', (eb) => eb.fn.countAll<number>().as('n')])
    .where('key', 'in', keys)
    .where('at', '>', since)
    .groupBy('key')
    .execute();
  return new Map(rows.map((r) => [r.key, Number(r.n)]));
}

export async function oldestFailureSince(db: Database, key: string, since: Date): Promise<Date | undefined> {
  const row = await db
    .selectFrom('login_failures')
    .select((eb) => eb.fn.min('at').as('first'))
    .where('key', '=', key)
    .where('at', '>', since)
    .executeTakeFirst();
  return row?.first ? new Date(row.first as Date) : undefined;
}

/** Records one failure per key; returns the ids of the new rows. */
export async function recordFailures(db: Database, keys: string[]): Promise<number[]> {
  const rows = await db
    .insertInto('login_failures')
    .values(keys.map((key) => ({ key })))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function deleteFailures(db: Database, ids: number[]): Promise<void> {
  if (ids.length) await db.deleteFrom('login_failures').where('id', 'in', ids).execute();
}

export async function clearFailures(db: Database, key: string): Promise<void> {
  await db.deleteFrom('login_failures').where('key', '=', key).execute();
}

export async function pruneFailures(db: Database, before: Date): Promise<void> {
  await db.deleteFrom('login_failures').where('at', '<', before).execute();
}

export async function insertChallenge(
  db: Database,
  row: { nonce_hash: string; redirect: string | null; expires_at: Date },
): Promise<void> {
  await db.insertInto('auth_challenges').values(row).execute();
}

/** Removes and returns a live challenge: each one can be used once. */
export async function takeChallenge(db: Database, nonceHash: string) {
  return db
    .deleteFrom('auth_challenges')
    .where('nonce_hash', '=', nonceHash)
    .where('expires_at', '>', new Date())
    .returning(['redirect'])
    .executeTakeFirst();
}
