// The published version of a template apart from the one being edited (Save keeps any
// draft, even one that does not compile; only Publish requires a template that compiles). Sending
// reads only these columns and `published_html`, so saving unfinished edits of a published template
// never changes or breaks what is sent; Publish copies the edited fields here.
import { type Kysely, sql } from 'kysely';

const COLUMNS = [
  'published_subject',
  'published_text',
  'published_from_name',
  'published_from_email',
  'published_reply_email',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('templates').addColumn(column, 'text').execute();
  // until now a save of a published template published it: what is stored is what was sent
  await sql`update templates set published_subject = subject, published_text = content_text, published_from_name =
    from_name,
    published_from_email = from_email, published_reply_email = reply_email where status = 'published'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('templates').dropColumn(column).execute();
}
