// The suppression list in Resend's words (contract/resend-suppressions.ts): the same list, rows and
// rules as the console's (suppressions.service.ts) — addresses compared in any case, an address
// listed already kept as it is, a removal taking every spelling — with Resend's ids and origins.
import type { ResendSuppression, ResendSuppressionOrigin } from '../../contract/resend-suppressions.ts';
import type { AppContext } from '../core/context.ts';
import type { Database } from '../db/database.ts';
import type { SuppressionOrigin } from '../db/schema.ts';
import { DomainError } from '../core/errors.ts';
import { inTransaction } from '../core/transaction.ts';
import { AddressError, parseEmail } from '../core/addresses.ts';
import * as repo from './suppressions.repository.ts';

const NOT_FOUND = 'Suppression not found';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Resend's origin of each of ours: an unsubscribe is, like a complaint, the recipient's own word. */
const RESEND_ORIGIN: Record<SuppressionOrigin, ResendSuppressionOrigin> = {
  user: 'manual',
  bounce: 'bounce',
  complaint: 'complaint',
  unsubscribe: 'complaint',
};
const ORIGINS_OF: Record<ResendSuppressionOrigin, SuppressionOrigin[]> = {
  manual: ['user'],
  bounce: ['bounce'],
  complaint: ['complaint', 'unsubscribe'],
};

type Ref = { object: 'suppression'; id: string };

function toWire(e: repo.SuppressionEntry): ResendSuppression {
  return {
    object: 'suppression',
    id: e.id,
    email: e.email,
    origin: RESEND_ORIGIN[e.origin],
    source_id: e.source_id,
    created_at: new Date(e.created_at).toISOString(),
  };
}

/** An address as sending compares it (lower case), or null for text that is none. */
function addressKey(value: string): string | null {
  try {
    return parseEmail(value).toLowerCase();
  } catch (err) {
    if (!(err instanceof AddressError)) throw err;
    return null;
  }
}

/**
 * What a path's `idOrEmail` names: a uuid is an id; text with an `@` an address (normalised as
 * sending does, or as stored when it is not one we would accept today); anything else nothing.
 */
function keyOf(value: string): { id: string } | { email: string } | null {
  const text = value.trim();
  if (UUID.test(text)) return { id: text.toLowerCase() };
  if (!text.includes('@') || text.length > 320) return null;
  return { email: addressKey(text) ?? text.toLowerCase() };
}

async function findOne(db: Database, customerId: number, value: string): Promise<repo.SuppressionEntry> {
  const key = keyOf(value);
  const [entry] = !key
    ? []
    : 'id' in key
      ? await repo.findEntriesByIds(db, customerId, [key.id])
      : await repo.findEntriesByEmails(db, customerId, [key.email]);
  if (!entry) throw new DomainError('not_found', NOT_FOUND);
  return entry;
}

/**
 * POST /resend/suppressions/batch/add (and POST /resend/suppressions, one address): lists each
 * address with origin user (Resend's manual), in one database transaction; an address listed
 * already, in any spelling or origin, keeps its entry. Answers each address's entry, in order.
 */
export function addSuppressionEntries(ctx: AppContext, customerId: number, emails: string[]): Promise<Ref[]> {
  const parsed = emails.map((value, i) => {
    try {
      return parseEmail(value);
    } catch (err) {
      if (!(err instanceof AddressError)) throw err;
      const where = emails.length > 1 ? `emails.${i}: ` : '';
      throw new DomainError('unprocessable', `${where}${err.message}`);
    }
  });
  return inTransaction(ctx.db, async (trx) => {
    const keys = [...new Set(parsed.map((e) => e.toLowerCase()))];
    const ids = new Map<string, string>();
    const known = async () => {
      for (const e of await repo.findEntriesByEmails(trx, customerId, keys))
        if (!ids.has(e.email.toLowerCase())) ids.set(e.email.toLowerCase(), e.id);
    };
    await known();
    const fresh = new Map<string, string>();
    for (const email of parsed) if (!ids.has(email.toLowerCase())) fresh.set(email.toLowerCase(), email);
    if (fresh.size > 0) {
      for (const row of await repo.insertSuppressions(trx, customerId, [...fresh.values()], 'user'))
        ids.set(row.email.toLowerCase(), row.id);
      // a concurrent add of the same spelling won the primary key: its entry is the answer
      if (keys.some((k) => !ids.has(k))) await known();
    }
    return parsed.map((email) => ({ object: 'suppression' as const, id: ids.get(email.toLowerCase())! }));
  });
}

/** GET /resend/suppressions/{idOrEmail}: the customer's entry; 404 for anything else. */
export async function getSuppressionEntry(
  ctx: AppContext,
  customerId: number,
  idOrEmail: string,
): Promise<ResendSuppression> {
  return toWire(await findOne(ctx.db, customerId, idOrEmail));
}

/** DELETE /resend/suppressions/{idOrEmail}: takes the entry's address off the list in every spelling. */
export function removeSuppressionEntry(
  ctx: AppContext,
  customerId: number,
  idOrEmail: string,
): Promise<Ref & { deleted: true }> {
  return inTransaction(ctx.db, async (trx) => {
    const entry = await findOne(trx, customerId, idOrEmail);
    await repo.deleteByEmails(trx, customerId, [entry.email.toLowerCase()]);
    return { object: 'suppression' as const, id: entry.id, deleted: true as const };
  });
}

/**
 * POST /resend/suppressions/batch/remove: the entries named by `ids` or `emails` taken off the list
 * (each address in every spelling); answers those removed, in the order asked. Text that names no
 * entry of the customer (a malformed id, another account's) is left out.
 */
export function removeSuppressionEntries(
  ctx: AppContext,
  customerId: number,
  named: { ids?: string[]; emails?: string[] },
): Promise<(Ref & { deleted: true })[]> {
  return inTransaction(ctx.db, async (trx) => {
    let entries: repo.SuppressionEntry[];
    if (named.ids) {
      const ids = [...new Set(named.ids.map((v) => v.trim().toLowerCase()).filter((v) => UUID.test(v)))];
      const found = new Map((await repo.findEntriesByIds(trx, customerId, ids)).map((e) => [e.id, e]));
      entries = ids.flatMap((id) => found.get(id) ?? []);
    } else {
      const keys = [...new Set((named.emails ?? []).map((v) => addressKey(v) ?? v.trim().toLowerCase()))];
      const found = new Map<string, repo.SuppressionEntry>();
      for (const e of await repo.findEntriesByEmails(trx, customerId, keys))
        if (!found.has(e.email.toLowerCase())) found.set(e.email.toLowerCase(), e);
      entries = keys.flatMap((k) => found.get(k) ?? []);
    }
    await repo.deleteByEmails(trx, customerId, [...new Set(entries.map((e) => e.email.toLowerCase()))]);
    return entries.map((e) => ({ object: 'suppression' as const, id: e.id, deleted: true as const }));
  });
}

/** The cursor entry a page starts from: 404 unless it is the customer's. */
async function cursorOf(ctx: AppContext, customerId: number, id: string | undefined): Promise<string | undefined> {
  if (id === undefined) return undefined;
  const key = id.trim().toLowerCase();
  const [entry] = UUID.test(key) ? await repo.findEntriesByIds(ctx.db, customerId, [key]) : [];
  if (!entry) throw new DomainError('not_found', `${NOT_FOUND} (the cursor)`);
  return entry.id;
}

/** GET /resend/suppressions: a cursor page of the customer's list, newest first, of one origin or all. */
export async function listSuppressionEntries(
  ctx: AppContext,
  customerId: number,
  query: { limit: number; after?: string; before?: string; origin?: ResendSuppressionOrigin },
): Promise<{ object: 'list'; has_more: boolean; data: ResendSuppression[] }> {
  const after = await cursorOf(ctx, customerId, query.after);
  const before = await cursorOf(ctx, customerId, query.before);
  const rows = await repo.pageOfEntries(ctx.db, customerId, {
    origins: query.origin ? ORIGINS_OF[query.origin] : null,
    limit: query.limit,
    after,
    before,
  });
  const page = rows.slice(0, query.limit);
  if (before !== undefined) page.reverse(); // read oldest first: newest first again
  return { object: 'list', has_more: rows.length > query.limit, data: page.map(toWire) };
}
