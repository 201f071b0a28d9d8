// Writes many rows' outcomes in one statement: an UPDATE joined to a VALUES list of typed rows, for
// the workers that write a batch of results at once (lifecycle/, webhooks/).
import { type RawBuilder, sql } from 'kysely';
import type { Database } from './database.ts';

type ValueType = 'bigint' | 'int' | 'text' | 'timestamptz' | 'jsonb';

/** The SQL type of each field of a row, in the order of the list's columns; a jsonb field goes as its JSON text. */
export type ValuesColumns<R> = { readonly [K in keyof R]-?: ValueType };

/** `(values (…), (…)) as v(…)`: one tuple per row, each field cast to its column's type. */
function valuesList<R>(columns: ValuesColumns<R>, rows: readonly R[]): RawBuilder<unknown> {
  const names = Object.keys(columns) as (keyof R & string)[];
  const tuples = rows.map(
    (row) =>
      sql`(${sql.join(
        names.map((name) => {
          const value = row[name];
          const sent = columns[name] === 'jsonb' && value !== null ? JSON.stringify(value) : value;
          return sql`${sent}::${sql.raw(columns[name])}`;
        }),
      )})`,
  );
  return sql`(values ${sql.join(tuples)}) as v(${sql.join(names.map((name) => sql.ref(name)))})`;
}

/**
 * Updates the rows of `table` (as t) from `rows` (as v), matched by id and by `where` (over t and
 * v), with `set`; returns the ids of the rows written.
 */
export async function updateFromValues<R extends { id: number }>(
  db: Database,
  table: 'transactions' | 'webhook_requests',
  columns: ValuesColumns<R>,
  rows: readonly R[],
  statement: { set: RawBuilder<unknown>; where: RawBuilder<unknown> },
): Promise<Set<number>> {
  if (rows.length === 0) return new Set();
  const result = await sql<{ id: number }>`
    update ${sql.table(table)} as t
       set ${statement.set}
      from ${valuesList(columns, rows)}
     where t.id = v.id and ${statement.where}
    returning t.id`.execute(db);
  return new Set(result.rows.map((r) => Number(r.id)));
}
