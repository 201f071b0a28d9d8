// The customer's suppression list (docs/console-reports.md §3 "Suppression entry"). Addresses are compared
// as lower(email), exactly as sending does (sending.service.ts), so an entry blocks every spelling
// of its address and deleting it unblocks them all; the index suppressions_lower_idx (migration
// 002) serves those lookups.
import { type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { SuppressionOrigin, Tables } from '../db/schema.ts';

export interface SuppressionRow {
  email: string;
  origin: SuppressionOrigin;
  created_at: Date;
}

export interface SuppressionFilter {
  /** Lower-cased text the address must contain; '' for any. */
  contains: string;
  /** One origin, or null for every origin. */
  origin: SuppressionOrigin | null;
}

// PostgreSQL's bind-parameter limit is 65535; stay far below it per statement
const CHUNK = 1000;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** Which of the lower-cased `emails` the customer already has on the list (as lower-cased addresses). */
export async function findListed(db: Database, customerId: number, emails: string[]): Promise<Set<string>> {
  const listed = new Set<string>();
  for (const chunk of chunks(emails)) {
    const rows = await db
      .selectFrom('suppressions')
      .select(sql<string>`lower(email)`.as('email'))
      .where('customer_id', '=', customerId)
      .where(sql<string>`lower(email)`, 'in', chunk)
      .execute();
    for (const row of rows) listed.add(row.email);
  }
  return listed;
}

/**
 * Inserts the addresses with `origin`; an address already stored as spelled is left as it was. Returns how many were
 * inserted.
 */
export async function insertSuppressions(
  db: Database,
  customerId: number,
  emails: string[],
  origin: SuppressionOrigin,
): Promise<number> {
  let inserted = 0;
  for (const chunk of chunks(emails)) {
    const rows = await db
      .insertInto('suppressions')
      .values(chunk.map((email) => ({ customer_id: customerId, email, origin })))
      .onConflict((oc) => oc.columns(['customer_id', 'email']).doNothing())
      .returning('email')
      .execute();
    inserted += rows.length;
  }
  return inserted;
}

/** `text` for a LIKE pattern that matches it literally (backslash is PostgreSQL's default LIKE escape). */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

function filtered(
  db: Database,
  customerId: number,
  filter: SuppressionFilter,
): SelectQueryBuilder<Tables, 'suppressions', object> {
  let query = db.selectFrom('suppressions').where('customer_id', '=', customerId);
  if (filter.contains !== '')
    query = query.where(sql<string>`lower(email)`, 'like', `%${escapeLike(filter.contains)}%`);
  if (filter.origin) query = query.where('origin', '=', filter.origin);
  return query;
}

/** One page of the customer's entries matching `filter`, newest first. */
export async function searchSuppressions(
  db: Database,
  customerId: number,
  filter: SuppressionFilter,
  limit: number,
  offset: number,
): Promise<SuppressionRow[]> {
  return (
    filtered(db, customerId, filter)
      .select(['email', 'origin', 'created_at'])
      // the address breaks ties, so rows added in one statement keep a stable order across pages
      .orderBy('created_at', 'desc')
      .orderBy('email')
      .limit(limit)
      .offset(offset)
      .execute()
  );
}

/** How many of the customer's entries match `filter`. */
export async function countSuppressions(db: Database, customerId: number, filter: SuppressionFilter): Promise<number> {
  const row = await filtered(db, customerId, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Removes every spelling of the lower-cased `email` from the customer's list; returns how many rows went. */
export async function deleteSuppression(db: Database, customerId: number, email: string): Promise<number> {
  const rows = await db
    .deleteFrom('suppressions')
    .where('customer_id', '=', customerId)
    .where(sql<string>`lower(email)`, '=', email)
    .returning('email')
    .execute();
  return rows.length;
}
