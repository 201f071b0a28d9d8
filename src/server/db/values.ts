// Writes many rows' outcomes in one statement: an UPDATE joined to a VALUES list of typed rows, for
// the workers that write a batch of results at once (lifecycle/, webhooks/).
import { type RawBuilder, sql } from 'kysely';
import type { Database } from './database.ts';

type ValueType = 'bigint' | 'int' | 'text' | 'timestamptz' | 'jsonb';

/** The SQL type of each field of a row, in the order of the list's columns; a jsonb field goes as its JSON text. */
export type ValuesColumns<R> = { readonly [K in keyof R]-?: ValueType };

/**
 * `(values (…), (…)) as v(…)`: one tuple per row, each field cast to its column's type, and last
 * the status the row must still have, as `expected_status`.
 */
function valuesList<R>(columns: ValuesColumns<R>, rows: readonly R[], status: string): RawBuilder<unknown> {
  const names = Object.keys(columns) as (keyof R & string)[];
  const tuples = rows.map(
    (row) =>
      sql`(${sql.join([
        ...names.map((name) => {
          const value = row[name];
          const sent = columns[name] === 'jsonb' && value !== null ? JSON.stringify(value) : value;
          return sql`${sent}::${sql.raw(columns[name])}`;
        }),
        sql`${status}::text`,
      ])})`,
  );
  const aliases = [...names.map((name) => sql.ref(name)), sql.ref('expected_status')];
  return sql`(values ${sql.join(tuples)}) as v(${sql.join(aliases)})`;
}

/**
 * Updates the rows of `table` (as t) from `rows` (as v), matched by id, by `status` (the status
 * each row must still have) and by `where` (over t and v), with `set`; returns the ids of the rows
 * written.
 *
 * The status is compared with a field of each row rather than a constant: a constant lets the
 * planner reach the rows through the partial index of that status (the queue's) and then look for
 * the listed ids among every row it holds, which it does when it has no statistics (PGlite runs no
 * autovacuum, so it never has them): each write of a few outcomes then read the whole queue and
 * every dead entry of that index (docs/benchmarks.md). Compared with a field, the rows are only
 * reached by their primary key.
 */
export async function updateFromValues<R extends { id: number }>(
  db: Database,
  table: 'transactions' | 'webhook_requests',
  columns: ValuesColumns<R>,
  rows: readonly R[],
  statement: { set: RawBuilder<unknown>; status: string; where: RawBuilder<unknown> },
): Promise<Set<number>> {
  if (rows.length === 0) return new Set();
  const result = await sql<{ id: number }>`
    update ${sql.table(table)} as t
       set ${statement.set}
      from ${valuesList(columns, rows, statement.status)}
     where t.id = v.id and t.status = v.expected_status and ${statement.where}
    returning t.id`.execute(db);
  return new Set(result.rows.map((r) => Number(r.id)));
}
