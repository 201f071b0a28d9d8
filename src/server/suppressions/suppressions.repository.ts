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
 * Inserts the addresses with `origin`; an address already stored as spelled is left as it was. Returns the rows
 * inserted (their addresses and new ids).
 */
export async function insertSuppressions(
  db: Database,
  customerId: number,
  emails: string[],
  origin: SuppressionOrigin,
): Promise<{ id: string; email: string }[]> {
  const inserted: { id: string; email: string }[] = [];
  for (const chunk of chunks(emails)) {
    const rows = await db
      .insertInto('suppressions')
      .values(chunk.map((email) => ({ customer_id: customerId, email, origin })))
      .onConflict((oc) => oc.columns(['customer_id', 'email']).doNothing())
      .returning(['id', 'email'])
      .execute();
    inserted.push(...rows);
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
  /** The transaction whose outcome lists the address (Resend's `source_id`). */
  transaction_id?: number;
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
          source_transaction_id: rows[i].transaction_id ?? null,
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

/** An entry as the Resend-compatible surface names it: its id, and the uuid of the transaction that listed it. */
export interface SuppressionEntry {
  id: string;
  email: string;
  origin: SuppressionOrigin;
  created_at: Date;
  source_id: string | null;
}

function entries(db: Database, customerId: number) {
  return db
    .selectFrom('suppressions as s')
    .leftJoin('transactions as t', 't.id', 's.source_transaction_id')
    .select(['s.id', 's.email', 's.origin', 's.created_at', 't.uuid as source_id'])
    .where('s.customer_id', '=', customerId);
}

/** The customer's entries with these ids (uuids, checked by the caller), oldest first. */
export function findEntriesByIds(db: Database, customerId: number, ids: string[]): Promise<SuppressionEntry[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return entries(db, customerId).where('s.id', 'in', ids).orderBy('s.created_at').orderBy('s.id').execute();
}

/** The customer's entries for these lower-cased addresses, in every spelling, oldest first. */
export function findEntriesByEmails(db: Database, customerId: number, emails: string[]): Promise<SuppressionEntry[]> {
  if (emails.length === 0) return Promise.resolve([]);
  return entries(db, customerId)
    .where(sql<string>`lower(s.email)`, 'in', emails)
    .orderBy('s.created_at')
    .orderBy('s.id')
    .execute();
}

/**
 * One cursor page of the customer's entries of `origins` (all when null), newest first: older than
 * the entry `after`, or newer than `before` (read oldest first, so the caller turns them round); one
 * more than `limit` to tell whether more follow. The cursor entry is compared in the database, so
 * its timestamp keeps its microseconds.
 */
export function pageOfEntries(
  db: Database,
  customerId: number,
  page: { origins: SuppressionOrigin[] | null; limit: number; after?: string; before?: string },
): Promise<SuppressionEntry[]> {
  let query = entries(db, customerId);
  if (page.origins) query = query.where('s.origin', 'in', page.origins);
  const at = (id: string) => sql`(select c.created_at, c.id from suppressions c where c.id = ${id})`;
  if (page.before !== undefined)
    return query
      .where(sql<boolean>`(s.created_at, s.id) > ${at(page.before)}`)
      .orderBy('s.created_at', 'asc')
      .orderBy('s.id', 'asc')
      .limit(page.limit + 1)
      .execute();
  if (page.after !== undefined) query = query.where(sql<boolean>`(s.created_at, s.id) < ${at(page.after)}`);
  return query
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(page.limit + 1)
    .execute();
}

/** Removes every spelling of the lower-cased `emails` from the customer's list; answers the rows removed. */
export async function deleteByEmails(
  db: Database,
  customerId: number,
  emails: string[],
): Promise<{ id: string; email: string }[]> {
  const removed: { id: string; email: string }[] = [];
  for (const chunk of chunks(emails)) {
    const rows = await db
      .deleteFrom('suppressions')
      .where('customer_id', '=', customerId)
      .where(sql<string>`lower(email)`, 'in', chunk)
      .returning(['id', 'email'])
      .execute();
    removed.push(...rows);
  }
  return removed;
}
