// Templates (docs/console-reports.md §3 "Template", §4 "Template status"): the customer's library and the
// read-only gallery (customer_id null, one row per system_key). `version` grows on every change, so
// compiled Handlebars templates can be cached per version (src/server/templates/render.ts).
// `published_html` is the content with its CSS inlined (juice), made when the template is published.
// The gallery rows it adds are its own frozen copy (./010-templates.gallery.ts), never the live
// gallery code: a migration means the same thing forever (docs/architecture.md §3.3). Later gallery
// edits reach every database through syncGallery at start (src/server/templates/gallery/seed.ts).
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { GALLERY_010 } from './010-templates.gallery.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('templates')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    // null: a gallery template every customer may read and copy, none may change
    .addColumn('customer_id', 'bigint', (c) => c.references('customers.id').onDelete('cascade'))
    .addColumn('system_key', 'text', (c) => c.unique())
    .addColumn('alias', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('draft').check(sql`status in ('draft', 'published')`))
    .addColumn('from_name', 'text')
    .addColumn('from_email', 'text')
    .addColumn('reply_email', 'text')
    .addColumn('subject', 'text')
    .addColumn('description', 'text')
    .addColumn('content_html', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('content_text', 'text')
    .addColumn('published_html', 'text')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('published_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // the list and its search walk one customer's rows; sending finds a template by alias
  await sql`create index templates_customer_idx on templates (customer_id, lower(name))`.execute(db);
  await sql`create unique index templates_customer_alias_idx on templates (customer_id, alias) where alias is not
    null`.execute(db);
  for (const row of GALLERY_010) {
    await sql`insert into templates (uuid, customer_id, system_key, status, published_at, name, description,
      subject, content_html, content_text, published_html)
      values (${randomUUID()}, null, ${row.system_key}, 'published', now(), ${row.name}, ${row.description},
        ${row.subject}, ${row.content_html}, ${row.content_text}, ${row.published_html})`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('templates').execute();
}
