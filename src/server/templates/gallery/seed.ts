// Keeps the gallery's read-only system rows (customer_id null, one per system_key) equal to the
// gallery in this source tree. Run at every start after the migrations (src/server/create-context.ts):
// migration 010 stored its own frozen copy, so an edit here reaches databases migrated before it
// through this upsert, never through an old migration. Idempotent: a row is found by its
// system_key; it is written, and its version moves on, only when its content differs, so a start
// with an unchanged gallery reads its rows and writes nothing. Several processes starting together
// upsert the same keys in the same order, which PostgreSQL serialises on the unique index.
import { randomUUID } from 'node:crypto';
import juice from 'juice';
import { sql } from 'kysely';
import type { Database } from '../../db/database.ts';
import { GALLERY } from './templates.ts';

/** The columns the gallery decides; sending and the console read the published_* ones (migration 015). */
function galleryColumns(t: (typeof GALLERY)[number]) {
  return {
    name: t.name,
    description: t.description,
    subject: t.subject,
    content_html: t.html,
    content_text: t.text,
    published_html: juice(t.html, {
      preserveMediaQueries: true,
      applyWidthAttributes: true,
      applyHeightAttributes: false,
    }),
    published_subject: t.subject,
    published_text: t.text,
  };
}

let inlined: { key: string; columns: ReturnType<typeof galleryColumns> }[] | undefined;

/** Upserts every gallery template that differs from its row; answers how many rows it added or changed. */
export async function syncGallery(db: Database): Promise<number> {
  // juice runs once per process, not at every start of a context (the tests start many)
  inlined ??= GALLERY.map((t) => ({ key: t.key, columns: galleryColumns(t) }));
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
  for (const { key, columns } of inlined) {
    const row = stored.get(key);
    if (
      row?.status === 'published' &&
      (Object.keys(columns) as (keyof typeof columns)[]).every((c) => row[c] === columns[c])
    )
      continue;
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
