// Opens and clicks of machines (src/server/tracking/machine-rules.ts: mail privacy proxies, link
// scanners) are recorded as events but counted apart from people's: daily_stats keeps them in
// machine_opens and machine_clicks, so the reports can show them beside the people's figures while
// opens, unique_opens, clicks and unique_clicks count people only. Hits recorded before this
// migration stay as they were counted: their events carry nothing to tell them apart.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('daily_stats')
    .addColumn('machine_opens', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('machine_clicks', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('daily_stats').dropColumn('machine_opens').dropColumn('machine_clicks').execute();
}
