// A step several down migrations take: dropping the indexes their up created, by name.
import { type Kysely, sql } from 'kysely';

/** Drops the named indexes one after another, in the order given. */
export async function dropIndexes(db: Kysely<unknown>, names: string[]): Promise<void> {
  for (const name of names) await sql`drop index ${sql.id(name)}`.execute(db);
}
