// A template's declared variables (docs/integrating.md "Templates by API"): each one's key, type
// (string or number) and fallback, as Resend's templates declare them. `variables` belongs to the
// version being edited and `published_variables` to the published one sending reads (as the other
// published_* columns of migration 015), so a saved change of a declaration is not sent before its
// Publish. Null for a template that declares none (the console's): its variables are the ones its
// Handlebars reads.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('templates').addColumn('variables', 'jsonb').execute();
  await db.schema.alterTable('templates').addColumn('published_variables', 'jsonb').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('templates').dropColumn('published_variables').execute();
  await db.schema.alterTable('templates').dropColumn('variables').execute();
}
