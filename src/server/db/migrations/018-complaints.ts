// Spam complaints (feedback-loop reports, RFC 5965) counted in the daily_stats rollup beside the
// bounces, so the dashboard and the group reports show a complaint rate without reading events.
// Bumped by the bounce receiver on the UTC day a report arrives, in the transaction that records the
// complaint. A column with a constant default is added without rewriting the table.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('daily_stats')
    .addColumn('complaints', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('daily_stats').dropColumn('complaints').execute();
}
