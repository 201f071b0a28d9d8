// Exact totals for filtered transaction searches. The status filters and report types of
// the transaction table (Sent, Failed, Delivered, Bounced, Opens, Clicks, one group) were counted by
// walking matching rows up to a cap of 10,000: at 10 M transactions the walk stopped at the cap, at
// 1 M it read every match, so the cost grew with the account (10 M / 1 M up to 1.64 in
// `npm run bench:reports`) and the console showed "10,000+" instead of a number.
//
// transaction_counts holds, per customer, group and UTC day of acceptance, how many transactions
// are in each state the searches filter on (status, delivered status, opened, clicked). A search
// narrowed by those and whole days sums at most days × groups × states rows, whatever the size.
//
// Statement-level triggers with transition tables keep it: every INSERT, UPDATE and DELETE of
// transactions adds one grouped upsert in the same database transaction (docs/architecture.md §4.2: rollups in
// batches, inside the transaction of the change), whichever code path made the change — the send
// path, the worker, bounces, tracking, the demo and bulk loads alike — so it cannot drift from the
// rows. Statements that change no counted column (a claim's lease) group to nothing and write
// nothing.
import { type Kysely, sql } from 'kysely';

/** The rollup key and sign of each row of a transition table. */
function counted(table: 'new_rows' | 'old_rows' | 'transactions', sign: 1 | -1) {
  return `select customer_id, group_id, (queued_at at time zone 'UTC')::date as day, status, delivered_status,
                 open_count > 0 as opened, click_count > 0 as clicked, ${sign} as n
            from ${table}`;
}

/**
 * A trigger function adding the grouped rows to transaction_counts; the key order keeps concurrent statements from
 * deadlocking.
 */
function applyFunction(name: string, rows: string): string {
  return (
    `create function ${name}() returns trigger language plpgsql as $$
begin
  insert into transaction_counts as c (customer_id, group_id, day, status, delivered_status, opened, clicked, n)
  select customer_id, group_id, day, status, delivered_status, opened, clicked, sum(n)
    from (${rows}) as changed
   group by customer_id, group_id, day, status, delivered_status, opened, clicked
  having sum(n) <> 0
   order by customer_id, group_id, day, status, delivered_status, opened, clicked
  on conflict (customer_id, day, group_id, status, delivered_status, opened, clicked) do update set n = c.n + ` +
    `excluded.n;
  return null;
end $$`
  );
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // day before group: searches read a customer's days, in one group or all
  await sql`
    create table transaction_counts (
      customer_id bigint not null,
      group_id bigint not null,
      day date not null,
      status text not null,
      delivered_status text not null,
      opened boolean not null,
      clicked boolean not null,
      n bigint not null,
      constraint transaction_counts_pk primary key (customer_id, day, group_id, status, delivered_status, opened,
        clicked)
    )`.execute(db);
  await sql.raw(applyFunction('transaction_counts_insert', counted('new_rows', 1))).execute(db);
  await sql
    .raw(applyFunction('transaction_counts_update', `${counted('new_rows', 1)} union all ${counted('old_rows', -1)}`))
    .execute(db);
  await sql.raw(applyFunction('transaction_counts_delete', counted('old_rows', -1))).execute(db);
  await sql`create trigger transaction_counts_insert after insert on transactions referencing new table as new_rows
    for each statement execute function transaction_counts_insert()`.execute(db);
  await sql`create trigger transaction_counts_update after update on transactions referencing old table as old_rows
    new table as new_rows for each statement execute function transaction_counts_update()`.execute(db);
  await sql`create trigger transaction_counts_delete after delete on transactions referencing old table as old_rows
    for each statement execute function transaction_counts_delete()`.execute(db);
  // the transactions already there (creating the triggers locked writers out until this migration commits)
  await sql
    .raw(`
    insert into transaction_counts (customer_id, group_id, day, status, delivered_status, opened, clicked, n)
    select customer_id, group_id, day, status, delivered_status, opened, clicked, count(*)
      from (${counted('transactions', 1)}) as existing
     group by customer_id, group_id, day, status, delivered_status, opened, clicked`)
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const op of ['insert', 'update', 'delete']) {
    await sql.raw(`drop trigger transaction_counts_${op} on transactions`).execute(db);
    await sql.raw(`drop function transaction_counts_${op}()`).execute(db);
  }
  await sql`drop table transaction_counts`.execute(db);
}
