// The queues' claims (delivery, webhooks: docs/architecture.md §6.1) read due rows in next_attempt_at
// order along their partial due index, stopping at the limit. PGlite has no autovacuum, so without
// statistics the planner guesses a handful of due rows and reads them all with a bitmap scan and a
// sort instead: every claim then costs as much as the whole backlog (EXPLAIN ANALYZE, webhooks at
// 3,000 due: 10 ms, against 1.5 ms along the index; transactions at 3,000 due of which 500 leased:
// 5 ms for the scan and sort, 0.3 ms along the index). Turning those two plans off for the claim's
// transaction leaves the index. Only there: on PostgreSQL the same settings made two webhook worker
// processes crawl (webhooks-two-workers.test.ts), and its autovacuum keeps the statistics.
import { sql } from 'kysely';
import type { Database } from './database.ts';

/** Forces the index-ordered plan for the rest of `trx`, which must be a transaction (the settings are `local`). */
export async function forceIndexOrder(trx: Database): Promise<void> {
  // both in one statement (set_config with is_local = true is SET LOCAL): one round trip to PGlite
  await sql`select set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true)`.execute(trx);
}
