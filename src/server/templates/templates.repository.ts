// Templates (migration 010): the customer's own rows and the gallery's (customer_id null). Every
// read of a customer template is bounded by customer_id, so another account's id is not found.
import { type SelectQueryBuilder, type Updateable, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { deleteCustomerRow } from '../db/customer-row.ts';
import type { Tables, Template, TemplateStatus, TemplatesTable } from '../db/schema.ts';
import { escapeLike } from '../suppressions/suppressions.repository.ts';

export type TemplateSort = 'name' | 'description' | 'published' | 'updated';

export interface TemplateFilter {
  /** The customer's templates, or the gallery's when null. */
  customerId: number | null;
  /** Lower-cased text the name must contain; '' for any. */
  contains: string;
  status: TemplateStatus | null;
}

function filtered(db: Database, filter: TemplateFilter): SelectQueryBuilder<Tables, 'templates', object> {
  let query = db.selectFrom('templates');
  query =
    filter.customerId === null
      ? query.where('customer_id', 'is', null)
      : query.where('customer_id', '=', filter.customerId);
  if (filter.contains !== '') query = query.where(sql<string>`lower(name)`, 'like', `%${escapeLike(filter.contains)}%`);
  if (filter.status) query = query.where('status', '=', filter.status);
  return query;
}

const SORT_COLUMNS = {
  name: sql`lower(name)`,
  description: sql`coalesce(description, '')`,
  published: sql`published_at`,
  updated: sql`updated_at`,
} as const;

/** One page of templates matching `filter`; the id breaks ties so pages are stable. */
export async function searchTemplates(
  db: Database,
  filter: TemplateFilter,
  sort: TemplateSort,
  order: 'asc' | 'desc',
  limit: number,
  offset: number,
): Promise<Template[]> {
  return filtered(db, filter)
    .selectAll()
    .orderBy(SORT_COLUMNS[sort], sql.raw(order === 'asc' ? 'asc nulls first' : 'desc nulls last'))
    .orderBy('id', order)
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countTemplates(db: Database, filter: TemplateFilter): Promise<number> {
  const row = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A template the customer may read: its own, or a gallery template. */
export async function findReadable(db: Database, customerId: number, uuid: string): Promise<Template | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('uuid', '=', uuid)
    .where((eb) => eb.or([eb('customer_id', '=', customerId), eb('customer_id', 'is', null)]))
    .executeTakeFirst();
}

/** One of the customer's own templates by id or alias (what a send names). */
export async function findOwn(db: Database, customerId: number, idOrAlias: string): Promise<Template | undefined> {
  return db
    .selectFrom('templates')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where((eb) => eb.or([eb('uuid', '=', idOrAlias), eb('alias', '=', idOrAlias)]))
    .orderBy(sql`uuid = ${idOrAlias}`, 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertTemplate(
  db: Database,
  row: Omit<
    TemplatesTable,
    'id' | 'created_at' | 'updated_at' | 'version' | 'status' | 'content_html' | 'variables' | 'published_variables'
  > & {
    status: TemplateStatus;
    content_html: string;
    updated_at?: Date;
    /** JSON text, as jsonb columns are written */
    variables: string | null;
    published_variables: string | null;
  },
): Promise<Template> {
  return db.insertInto('templates').values(row).returningAll().executeTakeFirstOrThrow();
}

/** Updates one of the customer's templates and moves it to the next version; undefined when it is not theirs. */
export async function updateTemplate(
  db: Database,
  customerId: number,
  uuid: string,
  changes: Updateable<TemplatesTable>,
): Promise<Template | undefined> {
  return db
    .updateTable('templates')
    .set({ ...changes, version: sql`version + 1`, updated_at: changes.updated_at ?? sql`now()` })
    .where('customer_id', '=', customerId)
    .where('uuid', '=', uuid)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes one of the customer's templates; false when it has no such template. */
export function deleteTemplate(db: Database, customerId: number, uuid: string): Promise<boolean> {
  return deleteCustomerRow(db, 'templates', customerId, 'uuid', uuid);
}

/** What a list of templates shows of each. */
export type ListedTemplate = Pick<
  Template,
  'id' | 'uuid' | 'name' | 'alias' | 'status' | 'created_at' | 'updated_at' | 'published_at'
>;

/**
 * Up to `limit` of the customer's templates, newest first after the row `after` names (by its
 * numeric id), or oldest first before the row `before` names; ties of creation time go by id.
 */
export async function pageOfOwn(
  db: Database,
  customerId: number,
  page: { limit: number; after?: number; before?: number },
): Promise<ListedTemplate[]> {
  let query = db
    .selectFrom('templates')
    .select(['id', 'uuid', 'name', 'alias', 'status', 'created_at', 'updated_at', 'published_at'])
    .where('customer_id', '=', customerId);
  // the cursor's own time is read in SQL: a JavaScript Date would drop its microseconds
  const at = (id: number) => sql`(select created_at, id from templates where id = ${id})`;
  if (page.after !== undefined) query = query.where(sql<boolean>`(created_at, id) < ${at(page.after)}`);
  if (page.before !== undefined) query = query.where(sql<boolean>`(created_at, id) > ${at(page.before)}`);
  const order = page.before !== undefined ? 'asc' : 'desc';
  return query.orderBy('created_at', order).orderBy('id', order).limit(page.limit).execute();
}
