// Keeps the gallery's read-only system rows (customer_id null, one per system_key) equal to the
// gallery in this source tree. Run at every start after the migrations (src/server/create-context.ts):
// migration 010 stored its own frozen copy, so an edit here reaches databases migrated before it
// through this upsert, never through an old migration. Idempotent: a row is found by its
// system_key; it is written, and its version moves on, only when its content differs, so a start
// with an unchanged gallery reads its rows and writes nothing. published_html is juice's inlining
// of content_html: a row whose source columns equal the gallery's keeps it, and juice (a large
// library) is loaded only to inline a template that changed, so a start with an unchanged gallery
// never loads it. Several processes starting together upsert the same keys in the same order,
// which PostgreSQL serialises on the unique index.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { GALLERY } from './templates.ts';

type GalleryTemplate = (typeof GALLERY)[number];

/** The columns the gallery's source decides as written (sending and the console read the published_* ones). */
function sourceColumns(t: GalleryTemplate) {
  return {
    name: t.name,
    description: t.description,
    subject: t.subject,
    content_html: t.html,
    content_text: t.text,
    published_subject: t.subject,
    published_text: t.text,
  };
}

// juice runs once per template and process, not at every start of a context (the tests start many)
const inlined = new Map<string, string>();

/** The template's HTML with its CSS inlined (migration 015's published_html). */
async function inlinedHtml(t: GalleryTemplate): Promise<string> {
  let html = inlined.get(t.key);
  if (html === undefined) {
    const { default: juice } = await import('juice');
    html = juice(t.html, { preserveMediaQueries: true, applyWidthAttributes: true, applyHeightAttributes: false });
    inlined.set(t.key, html);
  }
  return html;
}

/** Upserts every gallery template that differs from its row; answers how many rows it added or changed. */
export async function syncGallery(db: Database): Promise<number> {
  // read first: a start with an unchanged gallery writes (and locks) nothing
  const stored = new Map(
    (
      await db
        .selectFrom('templates')
        .where('customer_id', 'is', null)
        .where('system_key', 'is not', null)
        .selectAll()
        .execute()
    ).map((r) => [r.system_key, r]),
  );
  let written = 0;
  for (const t of GALLERY) {
    const key = t.key;
    const row = stored.get(key);
    const source = sourceColumns(t);
    if (
      row?.status === 'published' &&
      (Object.keys(source) as (keyof typeof source)[]).every((c) => row[c] === source[c])
    )
      continue;
    const columns = { ...source, published_html: await inlinedHtml(t) };
    const result = await db
      .insertInto('templates')
      .values({
        uuid: randomUUID(),
        customer_id: null,
        system_key: key,
        status: 'published',
        published_at: new Date(),
        ...columns,
      })
      .onConflict((oc) =>
        oc
          .column('system_key')
          .doUpdateSet({ ...columns, status: 'published', version: sql`templates.version + 1`, updated_at: sql`now()` })
          // another process may have written the same content since the read above
          .where(
            sql<boolean>`(templates.name, templates.description, templates.subject, templates.content_html,
              templates.content_text,
              templates.published_html, templates.published_subject, templates.published_text, templates.status)
              is distinct from (excluded.name, excluded.description, excluded.subject, excluded.content_html,
                excluded.content_text,
              excluded.published_html, excluded.published_subject, excluded.published_text, excluded.status)`,
          ),
      )
      .executeTakeFirst();
    written += Number(result.numInsertedOrUpdatedRows ?? 0);
  }
  return written;
}
