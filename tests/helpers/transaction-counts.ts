// Checks the transaction_counts rollup (migrations 007, 029) against the rows it counts.
import { sql } from 'kysely';
import type { Database } from '../../src/server/db/database.ts';

export interface CountDrift {
  day: string;
  group_id: number;
  status: string;
  delivered_status: string;
  opened: boolean;
  clicked: boolean;
  bounce: string;
  rollup: number;
  rows: number;
}

/**
 * The rollup's keys whose count differs from counting the customer's transactions by the same key; none when the rollup
 * is right.
 */
export async function countsDrift(db: Database, customerId: number): Promise<CountDrift[]> {
  const { rows } = await sql<CountDrift>`
    with r as (select to_char(day, 'YYYY-MM-DD') d, group_id, status, delivered_status, opened, clicked, bounce,
                 sum(n)::int n
                 from transaction_counts where customer_id = ${customerId} group by 1, 2, 3, 4, 5, 6, 7),
         t as (select to_char(queued_at at time zone 'UTC', 'YYYY-MM-DD') d, group_id, status, delivered_status,
           open_count > 0 opened, click_count > 0 clicked, coalesce(bounce_type, '') bounce, count(*)::int n
                 from transactions where customer_id = ${customerId} group by 1, 2, 3, 4, 5, 6, 7)
    select coalesce(r.d, t.d) as day, coalesce(r.group_id, t.group_id) as group_id, coalesce(r.status, t.status) as
      status,
           coalesce(r.delivered_status, t.delivered_status) as delivered_status, coalesce(r.opened, t.opened) as opened,
           coalesce(r.clicked, t.clicked) as clicked, coalesce(r.bounce, t.bounce) as bounce,
           coalesce(r.n, 0) as rollup, coalesce(t.n, 0) as rows
      from r full join t using (d, group_id, status, delivered_status, opened, clicked, bounce)
     where coalesce(r.n, 0) <> coalesce(t.n, 0)`.execute(db);
  return rows;
}
