// Reading transaction groups for the Groups tab (docs/console.md §2 Transactions). A customer has far
// fewer groups than transactions, so the name search may match anywhere in the name; their figures
// come from stats/figures.ts, summed per group when a page needs them.
import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Tables } from '../db/schema.ts';
import { type GroupFigure, groupFigureSubquery } from '../stats/figures.ts';
import { type Direction, likeLiteral } from './report-input.ts';

/** Group orders: by a column of the group, or by one of its all-time totals. */
export type GroupOrder = 'name' | 'created' | 'last_send' | GroupFigure;

const COLUMN_ORDERS: Partial<Record<GroupOrder, { expression: RawBuilder<unknown>; nullable: boolean }>> = {
  name: { expression: sql`lower(g.name)`, nullable: false },
  created: { expression: sql`g.created_at`, nullable: false },
  last_send: { expression: sql`g.last_send_at`, nullable: true },
};

type Query = SelectQueryBuilder<Tables & { g: Tables['transaction_groups'] }, 'g', object>;

/** The customer's groups whose name contains `contains` (any case; null: all). */
function matching(db: Database, customerId: number, contains: string | null): Query {
  let query: Query = db.selectFrom('transaction_groups as g').where('g.customer_id', '=', customerId);
  if (contains !== null) query = query.where(sql<boolean>`g.name ilike ${`%${likeLiteral(contains)}%`}`);
  return query;
}

export interface GroupRow {
  id: number;
  uuid: string;
  name: string;
  created_at: Date;
  last_send_at: Date | null;
}

/** One page of the customer's groups in the requested order (the id breaks ties). */
export async function pageGroups(
  db: Database,
  customerId: number,
  contains: string | null,
  sort: { by: GroupOrder; direction: Direction },
  limit: number,
  offset: number,
): Promise<GroupRow[]> {
  const column = COLUMN_ORDERS[sort.by];
  let query = matching(db, customerId, contains).select(['g.id', 'g.uuid', 'g.name', 'g.created_at', 'g.last_send_at']);
  if (column) {
    query = query.orderBy(column.expression, (ob) => {
      const ordered = sort.direction === 'asc' ? ob.asc() : ob.desc();
      return column.nullable ? ordered.nullsLast() : ordered;
    });
  } else {
    // ordering by a figure needs every group's: one aggregate over the customer's rollup rows
    const totals = groupFigureSubquery(db, customerId, sort.by as GroupFigure);
    query = query.leftJoin(totals, 's.group_id', 'g.id').orderBy(sql`coalesce(s.total, 0)`, sort.direction);
  }
  const rows = await query.orderBy('g.id', sort.direction).limit(limit).offset(offset).execute();
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** How many of the customer's groups match. */
export async function countGroups(db: Database, customerId: number, contains: string | null): Promise<number> {
  const row = await matching(db, customerId, contains)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The customer's group with this uuid (a report page's header), or undefined: unknown or another customer's. */
export async function findGroup(
  db: Database,
  customerId: number,
  uuid: string,
): Promise<{ id: number; uuid: string; name: string } | undefined> {
  return db
    .selectFrom('transaction_groups')
    .select(['id', 'uuid', 'name'])
    .where('customer_id', '=', customerId)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
}
