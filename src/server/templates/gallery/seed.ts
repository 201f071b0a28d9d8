// Puts the gallery in the templates table (migration 010) as read-only system rows. Idempotent:
// a row is found by its system_key and updated, so running it again changes nothing but content.
import { randomUUID } from 'node:crypto';
import juice from 'juice';
import { type Kysely, sql } from 'kysely';
import type { Tables } from '../../db/schema.ts';
import { GALLERY } from './templates.ts';

export async function seedGallery(database: Kysely<unknown>): Promise<void> {
  const db = database as unknown as Kysely<Tables>;
  for (const t of GALLERY) {
    const content = {
      name: t.name,
      description: t.description,
      subject: t.subject,
      content_html: t.html,
      content_text: t.text,
      published_html: juice(t.html, { preserveMediaQueries: true, applyWidthAttributes: true, applyHeightAttributes: false }),
    };
    await db
      .insertInto('templates')
      .values({ uuid: randomUUID(), customer_id: null, system_key: t.key, status: 'published', published_at: new Date(), ...content })
      .onConflict((oc) => oc.column('system_key').doUpdateSet({ ...content, version: sql`templates.version + 1`, updated_at: sql`now()` }))
      .execute();
  }
}
