// Room for HOT updates in the queue. A claim and a lease renewal now change only
// `attempts` and `locked_until`, which no index covers (docs/architecture.md §6.1), so PostgreSQL
// can write the new row version as a heap-only tuple (HOT) — without an entry in each of the
// table's indexes — but only when it fits on the same page as the old one. Pages filled to the
// default 100 % leave no room; 85 % keeps about 1.2 kB of each 8 kB page free for the row versions of
// claims, renewals and outcomes, and a page's dead versions are pruned in place when it fills.
// The setting applies to pages written from now on; existing rows keep their pages until they are
// rewritten (VACUUM FULL or CLUSTER), which this migration does not force on a large table.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions set (fillfactor = 85)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table transactions reset (fillfactor)`.execute(db);
}
