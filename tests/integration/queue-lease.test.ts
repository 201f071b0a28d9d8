// The delivery queue's lease lives in locked_until alone (docs/architecture.md §6.1): a
// claim, a renewal and a release leave next_attempt_at (the due index) where it was, so they are HOT
// updates, and still a leased row is never claimed twice, comes back when its lease runs out and is
// due at once when given back. Runs on PGlite and, with DATABASE_URL, on PostgreSQL.
import { type CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, sendAsClient } from '../helpers/app.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import type { Database } from '../../src/server/db/database.ts';
import { forceIndexOrder } from '../../src/server/db/index-order.ts';
import { claimDue, releaseClaims, renewLeases } from '../../src/server/delivery/queue.repository.ts';
import { applyAttempts } from '../../src/server/lifecycle/transitions.repository.ts';

let app: TestApp;
let apiKey: string;
const LEASE = 30;

beforeAll(async () => {
  app = await createTestApp();
  const account = await app.createAccount();
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials.apiKey;
}, 60_000);

afterAll(async () => app?.close());

beforeEach(async () => {
  await app.ctx.db.deleteFrom('transactions').execute();
});

/** Accepts `n` messages through the API; they wait in the queue (no worker runs here). */
async function send(n: number): Promise<void> {
  const batch = Array.from({ length: n }, (_, i) => ({
    from: 'Shop <orders@shop.example>',
    to: `customer${i}@customer.example`,
    subject: `Order ${i}`,
    text: `Thanks for order ${i}`,
  }));
  const res = await sendAsClient(app, '/v1/mail/batch', apiKey, batch);
  expect(res.status).toBe(202);
}

const queue = () =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['id', 'attempts', 'next_attempt_at', 'locked_until'])
    .select(sql<Date>`now()`.as('now'))
    .orderBy('id')
    .execute();

/** The claim as the worker runs it on PGlite: along the due index (db/index-order.ts). */
const claimAlongIndex = (limit: number) =>
  app.ctx.db.transaction().execute(async (trx) => {
    await forceIndexOrder(trx);
    return claimDue(trx, limit, LEASE);
  });

const ms = (d: Date | null) => (d === null ? null : new Date(d).getTime());

describe('forceIndexOrder', () => {
  it('turns bitmap scans and sorts off for the rest of the transaction only', async () => {
    const settings = async (db: typeof app.ctx.db) =>
      (
        await sql<{ b: string; s: string }>`select current_setting('enable_bitmapscan') as b,
          current_setting('enable_sort') as s`.execute(db)
      ).rows[0];
    const inside = await app.ctx.db.transaction().execute(async (trx) => {
      await forceIndexOrder(trx);
      return settings(trx);
    });
    expect(inside).toEqual({ b: 'off', s: 'off' });
    expect(await settings(app.ctx.db)).toEqual({ b: 'on', s: 'on' });
  });
});

describe('the delivery lease in locked_until', () => {
  it('claims a row once: only attempts and locked_until change, and a second claim passes it by', async () => {
    await send(3);
    const before = await queue();
    const claimed = await claimAlongIndex(10);
    expect(claimed.map((c) => c.attempts)).toEqual([1, 1, 1]);
    const after = await queue();
    for (const [i, row] of after.entries()) {
      expect(row.attempts).toBe(1);
      expect(ms(row.next_attempt_at)).toBe(ms(before[i].next_attempt_at));
      expect(ms(row.locked_until)! - ms(row.now)!).toBeGreaterThan((LEASE - 5) * 1000);
    }
    expect(await claimDue(app.ctx.db, 10, LEASE)).toEqual([]);
    expect(await claimAlongIndex(10)).toEqual([]);
  });

  it('brings a claim back when its lease has run out; the first attempt can no longer write or renew', async () => {
    await send(2);
    const [first] = await claimDue(app.ctx.db, 1, LEASE);
    // the lease of the first claim runs out (the worker that took it is gone)
    await app.ctx.db
      .updateTable('transactions')
      .set({ locked_until: sql<Date>`now() - interval '1 second'` })
      .where('id', '=', first.id)
      .execute();
    const again = await claimDue(app.ctx.db, 10, LEASE);
    expect(again.map((c) => [c.id, c.attempts]).sort()).toEqual(
      [
        [first.id, 2],
        [again.find((c) => c.id !== first.id)!.id, 1],
      ].sort(),
    );
    expect(await renewLeases(app.ctx.db, [{ id: first.id, attempts: 1 }], LEASE)).toBe(0);
    const written = await applyAttempts(app.ctx.db, [
      {
        id: first.id,
        attempts: 1,
        status: 'sent',
        delivered_status: 'delivered',
        sent_at: new Date(),
        next_attempt_at: null,
        last_reply: '250 OK',
        bounce_type: null,
        bounce_reason: null,
      },
    ]);
    expect(written.size).toBe(0);
    expect(await renewLeases(app.ctx.db, [{ id: first.id, attempts: 2 }], LEASE)).toBe(1);
  });

  it('renews only the lease and gives claims back due at once', async () => {
    await send(2);
    const claimed = await claimDue(app.ctx.db, 10, LEASE);
    const held = claimed.map((c) => ({ id: c.id, attempts: c.attempts }));
    const before = await queue();
    expect(await renewLeases(app.ctx.db, held, LEASE * 2)).toBe(2);
    for (const [i, row] of (await queue()).entries()) {
      expect(ms(row.next_attempt_at)).toBe(ms(before[i].next_attempt_at));
      expect(ms(row.locked_until)! - ms(row.now)!).toBeGreaterThan((LEASE * 2 - 5) * 1000);
    }
    expect(await releaseClaims(app.ctx.db, held.slice(0, 1))).toBe(1);
    const released = (await queue()).find((r) => r.id === held[0].id)!;
    expect(released.locked_until).toBeNull();
    expect(ms(released.next_attempt_at)).toBe(ms(before.find((r) => r.id === held[0].id)!.next_attempt_at));
    expect((await claimDue(app.ctx.db, 10, LEASE)).map((c) => [c.id, c.attempts])).toEqual([[held[0].id, 2]]);
  });

  it('releases at start-up every claim, also one whose lease an older version kept in next_attempt_at', async () => {
    await send(2);
    await claimDue(app.ctx.db, 1, LEASE);
    // a claim as the previous versions wrote it: next_attempt_at pushed past the lease as well
    await sql`update transactions set attempts = attempts + 1, next_attempt_at = now() + interval '30 seconds',
      locked_until = now() + interval '30 seconds' where locked_until is null`.execute(app.ctx.db);
    expect(await releaseClaims(app.ctx.db)).toBe(2);
    for (const row of await queue()) {
      expect(row.locked_until).toBeNull();
      expect(ms(row.next_attempt_at)!).toBeLessThanOrEqual(ms(row.now)!);
    }
    expect(await claimDue(app.ctx.db, 10, LEASE)).toHaveLength(2);
  });

  it('claims, renews and releases with HOT updates (no index entry written)', async () => {
    await send(5);
    await sql`vacuum transactions`.execute(app.ctx.db); // room on the page for the new row versions
    const counted = async (db: Database) => {
      const { rows } = await sql<{ upd: number; hot: number }>`
        select n_tup_upd::int as upd, n_tup_hot_upd::int as hot from pg_stat_xact_user_tables
         where relname = 'transactions'`.execute(db);
      return rows[0] ?? { upd: 0, hot: 0 };
    };
    // deltas within one transaction (pg_stat_xact_user_tables: this transaction's counts, not yet
    // reported; PGlite, a single-user backend, keeps adding to them)
    const counts = await app.ctx.db.transaction().execute(async (trx) => {
      const start = await counted(trx);
      const delta = async () => {
        const now = await counted(trx);
        return { upd: now.upd - start.upd, hot: now.hot - start.hot };
      };
      const claimed = await claimDue(trx, 10, LEASE);
      const held = claimed.map((c) => ({ id: c.id, attempts: c.attempts }));
      const afterClaim = await delta();
      await renewLeases(trx, held, LEASE);
      const afterRenew = await delta();
      await releaseClaims(trx, held);
      return { afterClaim, afterRenew, afterRelease: await delta() };
    });
    expect(counts).toEqual({
      afterClaim: { upd: 5, hot: 5 },
      afterRenew: { upd: 10, hot: 10 },
      afterRelease: { upd: 15, hot: 15 },
    });
  });

  it('writes a batch of outcomes through the primary key, whatever the queue holds', async () => {
    await send(100);
    await send(100);
    const claimed = await claimAlongIndex(8);
    // the statement as sent, kept by a plugin that compiles it on its way
    let sent: CompiledQuery | undefined;
    const db = app.ctx.db.withPlugin({
      transformQuery: (args) => {
        sent = app.ctx.db.getExecutor().compileQuery(args.node, args.queryId);
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const outcome = (c: (typeof claimed)[number]) => ({
      id: c.id,
      attempts: c.attempts,
      status: 'sent' as const,
      delivered_status: 'delivered' as const,
      sent_at: new Date(),
      next_attempt_at: null,
      last_reply: '250 OK',
      bounce_type: null,
      bounce_reason: null,
    });
    expect((await applyAttempts(db, claimed.map(outcome))).size).toBe(8);
    const { rows } = await app.ctx.db.executeQuery<{ 'QUERY PLAN': string }>({
      ...sent!,
      sql: `explain ${sent!.sql}`,
    });
    const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
    // matched by id (a table this small is read whole, a larger one by its primary key), never by
    // walking the queue's partial indexes, whose every entry (192 rows still queued here, and on
    // PGlite the dead entries no vacuum removes) each write would read
    expect(plan).toMatch(/(Index|Hash) Cond: \(\(?t\.id = /);
    expect(plan).not.toMatch(/transactions_queued|transactions_queue_idx/);
  });
});
