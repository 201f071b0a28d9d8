// The existence checks of the repositories: whether a query finds a row, reading its first at most.
import type { SelectQueryBuilder } from 'kysely';
import type { Tables } from './schema.ts';

/** Whether `query` finds any row (it stops at the first). */
export async function hasRow<TB extends keyof Tables, O>(query: SelectQueryBuilder<Tables, TB, O>): Promise<boolean> {
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}
