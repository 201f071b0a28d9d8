// Small read-through caches for lookups on the send path (API key → customer, customer + domain →
// sending domain), which would otherwise cost a database round trip per message. Anything that
// changes what they hold calls `invalidateLookups`: this process's caches are cleared at once, and
// on PostgreSQL a NOTIFY on transact_changes clears every other process's (src/server/delivery/listen.ts).
// The TTL bounds staleness should a notification ever be lost: 30 s, or less for a cache that asks
// for less (named API keys: 5 s, so a deleted key is refused everywhere within that even then).
import { sql } from 'kysely';
import type { AppContext } from './context.ts';
import type { Database } from '../db/database.ts';

const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

export class TtlCache<V> {
  #entries = new Map<string, { value: V; until: number }>();
  readonly #ttlMs: number;

  constructor(ttlMs = TTL_MS) {
    this.#ttlMs = ttlMs;
  }

  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (!hit) return undefined;
    if (hit.until < Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  set(key: string, value: V): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, { value, until: Date.now() + this.#ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** A context's named caches (AppContext.lookups), each made on first use. */
export class LookupCaches {
  readonly #caches = new Map<string, TtlCache<unknown>>();

  /** The cache called `name`; `ttlMs` at most 30 s. */
  get<V>(name: string, ttlMs = TTL_MS): TtlCache<V> {
    let cache = this.#caches.get(name);
    if (!cache) {
      cache = new TtlCache<unknown>(Math.min(ttlMs, TTL_MS));
      this.#caches.set(name, cache);
    }
    return cache as TtlCache<V>;
  }

  /** Clears every cache of this process (what a transact_changes notification does). */
  clear(): void {
    for (const cache of this.#caches.values()) cache.clear();
  }
}

/** The named cache of a context; `ttlMs` at most 30 s. */
export function lookupCache<V>(ctx: Pick<AppContext, 'lookups'>, name: string, ttlMs = TTL_MS): TtlCache<V> {
  return ctx.lookups.get<V>(name, ttlMs);
}

/** Clears this process's lookup caches (what a transact_changes notification does). */
export function clearLookupCaches(ctx: Pick<AppContext, 'lookups'>): void {
  ctx.lookups.clear();
}

/**
 * After a change to credentials or domains: clears the caches here and tells other processes.
 * `db` may be the transaction making the change; PostgreSQL delivers the notification at its commit.
 */
export async function invalidateLookups(ctx: Pick<AppContext, 'config' | 'lookups'>, db: Database): Promise<void> {
  clearLookupCaches(ctx);
  if (ctx.config.databaseUrl) await sql`select pg_notify('transact_changes', '')`.execute(db);
}
