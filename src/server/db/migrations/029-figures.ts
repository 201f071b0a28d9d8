// One definition per figure (docs/console-reports.md "Figures"). Every figure of a transaction's
// state (delivered, bounced hard or soft, failed, pending, opened and clicked by a person) is read
// from transaction_counts, which holds the transactions accepted on each UTC day by the state they
// are in now: for any range of days the states add up to the transactions accepted in it, on every
// page. Two changes follow:
// - transaction_counts gains the bounce kind of each transaction ('hard', 'soft' or ''), so that
//   hard and soft bounces add up to the bounced; it is filled anew from transactions.
// - daily_stats keeps what happens on a day to messages of any day (people's opens and clicks,
//   machines' beside them, spam complaints received) and loses its state counters, which counted a
//   message on the day each change happened: a message bounced after delivery was counted both
//   delivered and bounced, and a bounce at delivery both failed and bounced.
import { type Kysely, sql } from 'kysely';

const KEY = 'customer_id, group_id, day, status, delivered_status, opened, clicked, bounce';

/** The rollup key and sign of each row of a transition table. */
function counted(table: 'new_rows' | 'old_rows' | 'transactions', sign: 1 | -1) {
  return `select customer_id, group_id, (queued_at at time zone 'UTC')::date as day, status, delivered_status,
                 open_count > 0 as opened, click_count > 0 as clicked, coalesce(bounce_type, '') as bounce,
                 ${sign} as n
            from ${table}`;
}

/** The trigger function that adds the grouped rows to transaction_counts, in key order (no deadlocks). */
function applyFunction(name: string, rows: string): string {
  return `create or replace function ${name}() returns trigger language plpgsql as $$
begin
  insert into transaction_counts as c (${KEY}, n)
  select ${KEY}, sum(n)
    from (${rows}) as changed
   group by ${KEY}
  having sum(n) <> 0
   order by ${KEY}
  on conflict (customer_id, day, group_id, status, delivered_status, opened, clicked, bounce)
  do update set n = c.n + excluded.n;
  return null;
end $$`;
}

const STATE_COLUMNS = [
  'requests',
  'sent',
  'failed',
  'delivered',
  'bounced',
  'bounces_hard',
  'bounces_soft',
  'unique_opens',
  'unique_clicks',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  // the functions are replaced while the triggers stay: no write can fall between an old and a new one
  await sql`lock table transactions in share row exclusive mode`.execute(db);
  await sql`alter table transaction_counts add column bounce text not null default ''`.execute(db);
  await sql`alter table transaction_counts drop constraint transaction_counts_pk`.execute(db);
  await sql`alter table transaction_counts add constraint transaction_counts_pk
    primary key (customer_id, day, group_id, status, delivered_status, opened, clicked, bounce)`.execute(db);
  await sql.raw(applyFunction('transaction_counts_insert', counted('new_rows', 1))).execute(db);
  await sql
    .raw(applyFunction('transaction_counts_update', `${counted('new_rows', 1)} union all ${counted('old_rows', -1)}`))
    .execute(db);
  await sql.raw(applyFunction('transaction_counts_delete', counted('old_rows', -1))).execute(db);
  await sql`delete from transaction_counts`.execute(db);
  await sql
    .raw(`insert into transaction_counts (${KEY}, n)
    select ${KEY}, count(*) from (${counted('transactions', 1)}) as existing group by ${KEY}`)
    .execute(db);
  for (const column of STATE_COLUMNS) await sql`alter table daily_stats drop column ${sql.ref(column)}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of STATE_COLUMNS)
    await sql`alter table daily_stats add column ${sql.ref(column)} integer not null default 0`.execute(db);
  await sql`lock table transactions in share row exclusive mode`.execute(db);
  const key = 'customer_id, group_id, day, status, delivered_status, opened, clicked';
  for (const [name, rows] of [
    ['transaction_counts_insert', 'new_rows'],
    ['transaction_counts_update', null],
    ['transaction_counts_delete', 'old_rows'],
  ] as const) {
    const source = (table: string, sign: number) =>
      `select customer_id, group_id, (queued_at at time zone 'UTC')::date as day, status, delivered_status,
              open_count > 0 as opened, click_count > 0 as clicked, ${sign} as n from ${table}`;
    const changed =
      rows === null
        ? `${source('new_rows', 1)} union all ${source('old_rows', -1)}`
        : source(rows, rows === 'new_rows' ? 1 : -1);
    await sql
      .raw(`create or replace function ${name}() returns trigger language plpgsql as $$
begin
  insert into transaction_counts as c (${key}, n)
  select ${key}, sum(n) from (${changed}) as changed group by ${key} having sum(n) <> 0 order by ${key}
  on conflict (customer_id, day, group_id, status, delivered_status, opened, clicked)
  do update set n = c.n + excluded.n;
  return null;
end $$`)
      .execute(db);
  }
  await sql`delete from transaction_counts`.execute(db);
  await sql`alter table transaction_counts drop constraint transaction_counts_pk`.execute(db);
  await sql`alter table transaction_counts drop column bounce`.execute(db);
  await sql`alter table transaction_counts add constraint transaction_counts_pk
    primary key (customer_id, day, group_id, status, delivered_status, opened, clicked)`.execute(db);
  await sql
    .raw(`insert into transaction_counts (${key}, n)
    select ${key}, count(*) from (select customer_id, group_id, (queued_at at time zone 'UTC')::date as day, status,
      delivered_status, open_count > 0 as opened, click_count > 0 as clicked from transactions) as existing
     group by ${key}`)
    .execute(db);
}
