// Queries of the DNS check: storing a domain's results and claiming the domains that are due, so
// several worker processes on one PostgreSQL never check the same domain in the same round.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { DnsCheckResults } from './dns-check.ts';

export async function storeDnsResults(db: Database, domainId: number, results: DnsCheckResults): Promise<void> {
  await db
    .updateTable('domains')
    .set({ dns_results: JSON.stringify(results), dns_checked_at: sql`now()` })
    .where('id', '=', domainId)
    .execute();
}

/**
 * Marks up to `limit` domains checked now whose last check is older than `intervalMinutes` (never
 * checked first) and returns their ids; rows another process is claiming are skipped, not waited for.
 */
export async function claimDueDomains(db: Database, intervalMinutes: number, limit: number): Promise<number[]> {
  const result = await sql<{ id: number }>`
    update domains
       set dns_checked_at = now()
     where id in (
       select id from domains
        where dns_checked_at is null or dns_checked_at < now() - make_interval(mins => ${intervalMinutes})
        order by dns_checked_at nulls first
        limit ${limit}
        for update skip locked)
    returning id`.execute(db);
  return result.rows.map((r) => Number(r.id));
}
