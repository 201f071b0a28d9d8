// Counter columns moved by a batch of hits in one statement: the opens and clicks of transactions
// (lifecycle/) and the clicks of links (tracking/).
import { sql } from 'kysely';
import type { Database } from './database.ts';

export interface CounterDelta {
  id: number;
  count: number;
  /** the earliest hit of the batch: becomes the first-hit column when none is set yet */
  at: Date;
}

/** Adds each delta's count to `countColumn` and sets `firstColumn` where it is still null, in id order. */
export async function bumpCounters(
  db: Database,
  table: 'transactions' | 'links',
  countColumn: string,
  firstColumn: string,
  deltas: CounterDelta[],
): Promise<void> {
  if (deltas.length === 0) return;
  const rows = [...deltas]
    .sort((a, b) => a.id - b.id)
    .map((d) => sql`(${d.id}::bigint, ${d.count}::int, ${d.at}::timestamptz)`);
  await sql`
    update ${sql.table(table)} as t
       set ${sql.ref(countColumn)} = t.${sql.ref(countColumn)} + v.n,
           ${sql.ref(firstColumn)} = coalesce(t.${sql.ref(firstColumn)}, v.at)
      from (values ${sql.join(rows)}) as v(id, n, at)
     where t.id = v.id`.execute(db);
}
