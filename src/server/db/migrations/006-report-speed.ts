// Report speed (measured with `npm run bench:reports`). Sorting the transaction table by
// opens, clicks, first open or first click was a top-N sort over every row of the date range — 90 ms
// at 1 M transactions, ten times that at 10 M. These partial indexes let each such order walk only
// the rows that have the value (transactions.repository.ts SPLIT_ORDERS); rows without it come from
// the range index of migration 005. Each holds only opened or clicked rows, in the order the query
// asks for: (customer, value, acceptance time, id).
//
// The price: an open or click now changes an indexed column, so its update is no longer HOT (it
// writes an entry in every index of the table). Delivery already pays that on every row (status
// and sent_at are indexed); tracking hits are written in batches (tracking.service.ts), so this
// costs the write path far less than the sorts cost the reader.
import { type Kysely, sql } from 'kysely';
import { dropIndexes } from './drop-indexes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index transactions_customer_opens_idx on transactions (customer_id, open_count, queued_at, id)
    where open_count > 0`.execute(db);
  await sql`create index transactions_customer_clicks_idx on transactions (customer_id, click_count, queued_at, id)
    where click_count > 0`.execute(db);
  await sql`create index transactions_customer_first_open_idx on transactions (customer_id, first_open_at,
    queued_at, id) where first_open_at is not null`.execute(db);
  await sql`create index transactions_customer_first_click_idx on transactions (customer_id, first_click_at,
    queued_at, id) where first_click_at is not null`.execute(db);
  // A group's report pages (docs/console-reports.md §2) search within one group: walking the whole range and
  // skipping other groups' rows made a small group's capped count read most of the range.
  await sql`create index transactions_customer_group_idx on transactions (customer_id, group_id, queued_at,
    id)`.execute(db);
  // The Bounced report: bounces are 1–2 % of the mail, so counting them by walking the range read
  // fifty rows per bounce (as the Failed filter had its partial index in migration 005).
  await sql`create index transactions_customer_bounced_idx on transactions (customer_id, queued_at, id) where
    delivered_status = 'bounced'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropIndexes(db, [
    'transactions_customer_bounced_idx',
    'transactions_customer_group_idx',
    'transactions_customer_first_click_idx',
    'transactions_customer_first_open_idx',
    'transactions_customer_clicks_idx',
    'transactions_customer_opens_idx',
  ]);
}
