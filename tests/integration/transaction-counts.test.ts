// transaction_counts (migration 007): the triggers on transactions keep it equal to the rows it
// counts through inserts (mail accepted by POST /v1/mail), updates of a counted column, and
// deletes; updates of other columns (a worker's lease) write nothing; and running the migration on
// a database that already has transactions builds it from them.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { countsDrift } from '../helpers/transaction-counts.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { migrateToLatest, migrator } from '../../src/server/db/migrate.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';

const DOMAIN = 'counts.example';

let app: TestApp;
let customerId: number;
let apiKey: string;

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  customerId = account.customerId;
  await app.ctx.db.updateTable('customers').set({ monthly_quota: 1000 }).where('id', '=', customerId).execute();
  await addDomain(app.ctx, customerId, DOMAIN, { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, customerId)).apiCredentials.apiKey;
});
afterAll(async () => {
  await app?.close();
});

/** Accepts one message to each of `count` recipients in `group`; returns their transaction uuids. */
async function send(group: string, count: number, first = 0): Promise<string[]> {
  const to = Array.from({ length: count }, (_, i) => `r${first + i}@people.example`);
  const res = await app.api.request('http://localhost:4321/v1/mail', {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ from: `news@${DOMAIN}`, to, subject: 'Counted', text: 'Hello', group }),
  });
  expect(res.status).toBe(202);
  return ((await res.json()).data as { trans_uuid: string }[]).map((d) => d.trans_uuid);
}

async function counts() {
  const { rows } = await sql<{
    status: string;
    delivered_status: string;
    opened: boolean;
    clicked: boolean;
    n: number;
  }>`
    select status, delivered_status, opened, clicked, sum(n)::int n from transaction_counts
     where customer_id = ${customerId} group by 1, 2, 3, 4 having sum(n) <> 0 order by 1, 2, 3, 4`.execute(app.ctx.db);
  return rows;
}

const update = (set: ReturnType<typeof sql>, uuids: string[]) =>
  sql`update transactions set ${set} where uuid in (${sql.join(uuids.map((u) => sql`${u}::uuid`))})`.execute(
    app.ctx.db,
  );

let orders: string[];
let receipts: string[];

describe('transaction_counts', () => {
  it('counts each accepted transaction once, in its group and day, queued and pending', async () => {
    orders = await send('Orders', 6);
    receipts = await send('Receipts', 4, 100);
    expect(await counts()).toEqual([
      { status: 'queued', delivered_status: 'pending', opened: false, clicked: false, n: 10 },
    ]);
    expect(await countsDrift(app.ctx.db, customerId)).toEqual([]);
  });

  it('moves a transaction between states on each counted change, and writes nothing for other columns', async () => {
    await update(sql`status = 'sent', delivered_status = 'delivered', sent_at = now()`, orders.slice(0, 4));
    await update(sql`open_count = open_count + 2, first_open_at = now()`, orders.slice(0, 2));
    await update(sql`click_count = 1, first_click_at = now()`, orders.slice(0, 1));
    await update(sql`delivered_status = 'bounced'`, orders.slice(3, 4));
    await update(sql`status = 'failed', delivered_status = 'failed'`, receipts.slice(0, 1));
    expect(await counts()).toEqual([
      { status: 'failed', delivered_status: 'failed', opened: false, clicked: false, n: 1 },
      { status: 'queued', delivered_status: 'pending', opened: false, clicked: false, n: 5 },
      { status: 'sent', delivered_status: 'bounced', opened: false, clicked: false, n: 1 },
      { status: 'sent', delivered_status: 'delivered', opened: false, clicked: false, n: 1 },
      { status: 'sent', delivered_status: 'delivered', opened: true, clicked: false, n: 1 },
      { status: 'sent', delivered_status: 'delivered', opened: true, clicked: true, n: 1 },
    ]);
    expect(await countsDrift(app.ctx.db, customerId)).toEqual([]);

    // a claim's lease, and a second open of an opened message: no counted column changes state
    const before = await sql`select * from transaction_counts order by 1, 2, 3, 4, 5, 6, 7`.execute(app.ctx.db);
    await update(sql`next_attempt_at = now() + interval '5 minutes', attempts = attempts + 1`, [
      ...orders,
      ...receipts,
    ]);
    await update(sql`open_count = open_count + 1`, orders.slice(0, 2));
    const after = await sql`select * from transaction_counts order by 1, 2, 3, 4, 5, 6, 7`.execute(app.ctx.db);
    expect(after.rows).toEqual(before.rows);
  });

  it('subtracts deleted transactions', async () => {
    await sql`delete from transactions where uuid in
      (${sql.join([orders[5], receipts[3]].map((u) => sql`${u}::uuid`))})`.execute(app.ctx.db);
    expect(await countsDrift(app.ctx.db, customerId)).toEqual([]);
    expect((await counts()).reduce((sum, c) => sum + c.n, 0)).toBe(8);
  });

  it('is built from the rows when migration 007 runs on a database that already has transactions', async () => {
    // mail accepted by today's code (which needs the later migrations' columns), then down to 006
    await send('Welcome', 3, 200);
    const down = await migrator(app.ctx.db).migrateTo('006-report-speed');
    expect(down.error).toBeUndefined();
    expect(down.results?.map((r) => [r.migrationName, r.status]).at(-1)).toEqual(['007-transaction-counts', 'Success']);
    const { rows } = await sql<{ t: string | null }>`select to_regclass('transaction_counts')::text as t`.execute(
      app.ctx.db,
    );
    expect(rows[0].t).toBeNull();

    // changes while the rollup does not exist
    await update(sql`status = 'sent', delivered_status = 'delivered', open_count = 1`, receipts.slice(1, 3));

    await migrateToLatest(app.ctx.db);
    expect(await countsDrift(app.ctx.db, customerId)).toEqual([]);
    expect((await counts()).reduce((sum, c) => sum + c.n, 0)).toBe(11);
    // and the triggers work again
    await send('Welcome', 1, 300);
    expect(await countsDrift(app.ctx.db, customerId)).toEqual([]);
  });
});
