// A sending domain's own options, as Resend's domains API sets them (docs/integrating.md "Domains by
// API"): open and click tracking (null: the account's setting applies), TLS for delivery
// (`enforced`: no delivery without a verified TLS session), and what is stored and answered only:
// region, capabilities (as given), the return-path subdomain and the tracking subdomain.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .addColumn('open_tracking', 'boolean')
    .addColumn('click_tracking', 'boolean')
    .addColumn('tls', 'text', (c) =>
      c.notNull().defaultTo('opportunistic').check(sql`tls in ('opportunistic', 'enforced')`),
    )
    .addColumn('region', 'text', (c) => c.notNull().defaultTo('us-east-1'))
    .addColumn('capabilities', 'jsonb', (c) =>
      c.notNull().defaultTo(sql`'{"sending":"enabled","receiving":"disabled"}'::jsonb`),
    )
    .addColumn('custom_return_path', 'text')
    .addColumn('tracking_subdomain', 'text')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('domains')
    .dropColumn('open_tracking')
    .dropColumn('click_tracking')
    .dropColumn('tls')
    .dropColumn('region')
    .dropColumn('capabilities')
    .dropColumn('custom_return_path')
    .dropColumn('tracking_subdomain')
    .execute();
}
