// Reports: the indexes the console's searches need to stay fast at 10 M transactions (docs/console.md §2
// Dashboard and Transactions; src/server/reports/). Every search is bounded by customer and ordered
// by an indexed expression with the id as tiebreaker, so a page is an index walk that stops after
// offset + limit rows. Columns that change on every open or click (open_count, first_open_at, …)
// are deliberately not indexed: tracking updates then stay HOT updates, and sorting by them is a
// top-N sort over the customer's rows in the chosen date range.
import { type Kysely, sql } from 'kysely';
import { dropIndexes } from './drop-indexes.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  // the default order (acceptance: queued_at, then id) and every date range; replaces the
  // (customer_id, queued_at) index of migration 002, a prefix of this one
  await sql`create index transactions_customer_queued_id_idx on transactions (customer_id, queued_at, id)`.execute(db);
  await sql`drop index transactions_customer_queued_idx`.execute(db);
  // the table's date column, "sent date, or queued date when sent date is 0" (docs/console.md §2); the
  // expression must stay textually equal to the one in transactions.repository.ts
  await sql`create index transactions_customer_date_idx on transactions (customer_id, (coalesce(sent_at,
    queued_at)), id)`.execute(db);
  // failures are few: the Failed filter finds and counts them without walking every delivered row
  await sql`create index transactions_customer_failed_idx on transactions (customer_id, queued_at, id) where status
    in ('failed', 'no_quota')`.execute(db);
  // the search box matches the start of the address or of its domain, case-insensitively.
  // text_pattern_ops serves LIKE 'prefix%' (and =) whatever the database collation. A substring
  // search would need a trigram index (pg_trgm), which embedded PGlite may lack, or a scan of all
  // the customer's rows; prefixes cover the common searches (a person, a domain) at index speed.
  await sql`create index transactions_customer_email_idx on transactions (customer_id, lower(to_email)
    text_pattern_ops)`.execute(db);
  await sql`create index transactions_customer_email_domain_idx on transactions (customer_id,
    split_part(lower(to_email), '@', 2) text_pattern_ops)`.execute(db);
  // the overview chart sums all of a customer's groups per day; the primary key leads with the group
  await sql`create index daily_stats_customer_day_idx on daily_stats (customer_id, day)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await dropIndexes(db, [
    'daily_stats_customer_day_idx',
    'transactions_customer_email_domain_idx',
    'transactions_customer_email_idx',
    'transactions_customer_failed_idx',
    'transactions_customer_date_idx',
  ]);
  await sql`create index transactions_customer_queued_idx on transactions (customer_id, queued_at)`.execute(db);
  await dropIndexes(db, ['transactions_customer_queued_id_idx']);
}
