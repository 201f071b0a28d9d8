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

/** A recipient a message's outcome puts on its customer's list (lifecycle/policy.ts). */
export interface RecipientSuppression {
  customer_id: number;
  email: string;
  origin: SuppressionOrigin;
  at: Date;
  /** Listed even when the customer disabled suppression (the recipient's own word). */
  evenWhenDisabled: boolean;
}

/**
 * Lists the recipients, each unless its customer disabled suppression (and it is not the
 * recipient's own word) or the address is listed already under any spelling or origin. Returns
 * the indexes in `rows` that were added.
 */
export async function suppressRecipients(db: Database, rows: RecipientSuppression[]): Promise<Set<number>> {
  const added = new Set<number>();
  if (rows.length === 0) return added;
  const disabled = await db
    .selectFrom('customers')
    .select('id')
    .where('id', 'in', [...new Set(rows.map((r) => r.customer_id))])
    .where('disable_suppression', '=', true)
    .execute();
  const off = new Set(disabled.map((c) => Number(c.id)));
  const wanted = [...rows.entries()].filter(([, r]) => !off.has(r.customer_id) || r.evenWhenDisabled);
  // one lookup per customer, then one insert: an address listed under any spelling stays as it is
  const listed = new Map<number, Set<string>>();
  for (const customerId of new Set(wanted.map(([, r]) => r.customer_id)))
    listed.set(
      customerId,
      await findListed(
        db,
        customerId,
        wanted.filter(([, r]) => r.customer_id === customerId).map(([, r]) => r.email.toLowerCase()),
      ),
    );
  const fresh = new Map<string, number>();
  for (const [i, r] of wanted) {
    const key = `${r.customer_id}\u0000${r.email.toLowerCase()}`;
    if (!listed.get(r.customer_id)!.has(r.email.toLowerCase()) && !fresh.has(key)) fresh.set(key, i);
  }
  for (const chunk of chunks([...fresh.values()])) {
    const inserted = await db
      .insertInto('suppressions')
      .values(
        chunk.map((i) => ({
          customer_id: rows[i].customer_id,
          email: rows[i].email,
          origin: rows[i].origin,
          created_at: rows[i].at,
        })),
      )
      .onConflict((oc) => oc.columns(['customer_id', 'email']).doNothing())
      .returning(['customer_id', 'email'])
      .execute();
    for (const r of inserted) added.add(fresh.get(`${r.customer_id}\u0000${r.email.toLowerCase()}`)!);
  }
  return added;
}

/**
 * Takes the address off the customer's list where an unsubscribe put it (a bounce's, a complaint's
 * or the customer's own entry stays); false when there was none.
 */
export async function removeUnsubscribed(db: Database, customerId: number, email: string): Promise<boolean> {
  const rows = await db
    .deleteFrom('suppressions')
    .where('customer_id', '=', customerId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .where('origin', '=', 'unsubscribe')
    .returning('email')
    .execute();
  return rows.length > 0;
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
