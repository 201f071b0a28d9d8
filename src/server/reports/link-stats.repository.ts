// The link_stats rollup (migration 009): clicks per link (URL and subject) of a group, per UTC day
// of the transactions' acceptance. Written by the click recorder in the transaction that counts
// the clicks; read by the Clicks report's Links tab (docs/console-reports.md §2, §7 POST/GET v1/links).
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { Direction } from './report-input.ts';

/**
 * Adds a batch of clicks (link id → clicks in this batch) to link_stats. Must run after the same
 * transaction has added them to links.clicks (tracking.repository.ts addLinkClicks): the update holds
 * the links' row locks, so `clicks = n` reliably means "no click before this batch" — the click that
 * makes the transaction one more distinct clicker of the URL.
 */
export async function bumpLinkStats(db: Database, deltas: readonly { id: number; count: number }[]): Promise<void> {
  if (deltas.length === 0) return;
  const rows = deltas.map((d) => sql`(${d.id}::bigint, ${d.count}::bigint)`);
  // grouped and sorted: one row per key, in a stable order so concurrent batches cannot deadlock
  await sql`
    insert into link_stats as s (customer_id, group_id, day, link_key, url, subject, clicks, unique_clicks)
    select l.customer_id, t.group_id, (t.queued_at at time zone 'UTC')::date, md5(l.url || chr(10) || m.subject)::uuid,
           min(l.url), min(m.subject), sum(v.n), sum(case when l.clicks = v.n then 1 else 0 end)
      from (values ${sql.join(rows)}) as v(id, n)
      join links l on l.id = v.id
      join transactions t on t.id = l.transaction_id
      join messages m on m.id = t.message_id
     group by 1, 2, 3, 4
     order by 1, 2, 3, 4
    on conflict (customer_id, group_id, day, link_key)
    do update set clicks = s.clicks + excluded.clicks, unique_clicks = s.unique_clicks +
      excluded.unique_clicks`.execute(db);
}

export type LinkOrder = 'clicks' | 'unique_clicks' | 'url' | 'subject';

export interface LinkStatRow {
  url: string;
  subject: string;
  clicks: number;
  unique_clicks: number;
}

export interface LinkFilter {
  groupId: number;
  firstDay: string;
  lastDay: string;
  /** Part of the URL or subject (any case), or null. */
  contains: string | null;
}

function matching(db: Database, customerId: number, filter: LinkFilter) {
  let query = db
    .selectFrom('link_stats')
    .where('customer_id', '=', customerId)
    .where('group_id', '=', filter.groupId)
    .where('day', '>=', filter.firstDay)
    .where('day', '<=', filter.lastDay);
  if (filter.contains !== null) {
    const pattern = `%${filter.contains.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) => eb.or([eb('url', 'ilike', pattern), eb('subject', 'ilike', pattern)]));
  }
  return query;
}

const ORDER_EXPRESSIONS: Record<LinkOrder, ReturnType<typeof sql>> = {
  clicks: sql`sum(clicks)`,
  unique_clicks: sql`sum(unique_clicks)`,
  url: sql`min(url)`,
  subject: sql`min(subject)`,
};

/** One page of the group's links over the days, summed per link; the key breaks ties. */
export async function pageLinks(
  db: Database,
  customerId: number,
  filter: LinkFilter,
  sort: { by: LinkOrder; direction: Direction },
  limit: number,
  offset: number,
): Promise<LinkStatRow[]> {
  const rows = await matching(db, customerId, filter)
    .select([
      sql<string>`min(url)`.as('url'),
      sql<string>`min(subject)`.as('subject'),
      sql<string | number>`sum(clicks)`.as('clicks'),
      sql<string | number>`sum(unique_clicks)`.as('unique_clicks'),
    ])
    .groupBy('link_key')
    .orderBy(ORDER_EXPRESSIONS[sort.by], sort.direction)
    .orderBy('link_key', sort.direction)
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((r) => ({
    url: r.url,
    subject: r.subject,
    clicks: Number(r.clicks),
    unique_clicks: Number(r.unique_clicks),
  }));
}

/** How many distinct links the filter selects. */
export async function countLinks(db: Database, customerId: number, filter: LinkFilter): Promise<number> {
  const row = await matching(db, customerId, filter)
    .select(sql<string | number>`count(distinct link_key)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
