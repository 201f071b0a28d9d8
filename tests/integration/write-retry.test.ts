// Opens and clicks, and delivery outcomes, are answered (or sent) first and written in batches
// (src/server/db/batch-writer.ts): a batch the database does not take must not lose them, nor send
// a message twice. Real failures, no mocks: the events table renamed away for a while (a passing
// failure: written once it is back), and a click whose transaction was deleted before the write
// (refused by the database: given up alone, the batch's other hits kept).
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, type TestApp } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { flushTracking, openToken, trackedContent } from '../../src/server/tracking/tracking.service.ts';

let app: TestApp;
let sink: SmtpSink;
let customerId: number;
let apiKey: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url, RETURN_PATH_DOMAIN: 'rp.transact.test' });
  customerId = (await app.createAccount()).customerId;
  await addDomain(app.ctx, customerId, 'retry.example', { verified: true });
  apiKey = (await credentialsForConsole(app.ctx, customerId)).apiCredentials.apiKey;
});
afterAll(async () => {
  await app?.close();
  await sink?.close();
});

/** Accepts a message to `to`; returns its transaction (uuid and id). */
async function send(to: string): Promise<{ uuid: string; id: number }> {
  const res = await app.api.request(`${ORIGIN}/v1/mail`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      from: 'news@retry.example',
      to: [to],
      subject: 'Tracked',
      html: '<p><a href="https://retry.example/a">A</a></p>',
    }),
  });
  expect(res.status).toBe(202);
  const uuid = (await res.json()).data[0].trans_uuid as string;
  const row = await app.ctx.db
    .selectFrom('transactions')
    .select('id')
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();
  return { uuid, id: Number(row.id) };
}

/** The path of the transaction's tracked link, stored as the worker stores it before delivery. */
async function clickPath(tx: { uuid: string; id: number }): Promise<string> {
  const content = await trackedContent(
    app.ctx,
    { ...tx, customer_id: customerId },
    {
      html: '<p><a href="https://retry.example/a">A</a></p>',
      text: null,
      raw: null,
      track_opens: true,
      track_links: true,
    },
  );
  return /\/t\/c\/[A-Za-z0-9_-]{22}/.exec(content.html!)![0];
}

const transaction = (id: number) =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['status', 'delivered_status'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const get = async (path: string) =>
  (await app.api.request(`${ORIGIN}${path}`, { headers: { 'User-Agent': 'RetryTest' } })).status;
const counters = (id: number) =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['open_count', 'click_count'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
const hitEvents = async (id: number) =>
  Number(
    (
      await sql<{
        n: string;
      }>`select count(*) n from events where transaction_id = ${id} and type in ('open', 'click')`.execute(app.ctx.db)
    ).rows[0].n,
  );

describe('writing opens and clicks', () => {
  it('keeps hits whose write fails for a passing reason and writes them once the database takes them', async () => {
    const tx = await send('alice@people.example');
    const click = await clickPath(tx);
    await sql`alter table events rename to events_away`.execute(app.ctx.db);
    try {
      expect(await get(`/t/o/${openToken(app.ctx.config.secret!, tx.uuid)}`)).toBe(200);
      expect(await get(click)).toBe(302);
      await flushTracking(app.ctx); // fails: no events table
      expect(await counters(tx.id)).toEqual({ open_count: 0, click_count: 0 });
      await flushTracking(app.ctx); // fails again, still kept
    } finally {
      await sql`alter table events_away rename to events`.execute(app.ctx.db);
    }
    await flushTracking(app.ctx);
    expect(await counters(tx.id)).toEqual({ open_count: 1, click_count: 1 });
    expect(await hitEvents(tx.id)).toBe(2);
    // written once: a further flush has nothing left
    await flushTracking(app.ctx);
    expect(await hitEvents(tx.id)).toBe(2);
  });

  it('gives up only the hit the database refuses, keeping the others of its batch', async () => {
    const kept = await send('bob@people.example');
    const gone = await send('carol@people.example');
    const goneClick = await clickPath(gone);
    expect(await get(`/t/o/${openToken(app.ctx.config.secret!, kept.uuid)}`)).toBe(200);
    expect(await get(goneClick)).toBe(302);
    // the clicked transaction disappears before the batch is written: its click event cannot be stored
    await sql`delete from transactions where id = ${gone.id}`.execute(app.ctx.db);
    await flushTracking(app.ctx);
    expect(await counters(kept.id)).toEqual({ open_count: 1, click_count: 0 });
    expect(await hitEvents(kept.id)).toBe(1);
    // and the refused click is not tried again
    await flushTracking(app.ctx);
    expect(await hitEvents(kept.id)).toBe(1);
  });
});

describe('writing delivery outcomes', () => {
  it(
    'records a delivery whose outcome write failed once the ' + 'database takes it, without sending the message again',
    async () => {
      const tx = await send('dave@people.example');
      const copies = () => sink.messages.filter((m) => m.from.includes(tx.uuid.replace(/-/g, ''))).length;
      await sql`alter table events rename to events_away`.execute(app.ctx.db);
      // the worker's log says when writing the outcome has failed
      const logged: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
      const worker = new DeliveryWorker({ ...app.ctx, logger });
      try {
        worker.start();
        worker.poke();
        await expect.poll(copies, { timeout: 15_000 }).toBe(1);
        await expect
          .poll(() => logged.some((line) => line.includes('recording delivery outcomes failed')), { timeout: 15_000 })
          .toBe(true);
        // the outcome could not be written: the row stays queued (under its lease)
        expect(await transaction(tx.id)).toEqual({ status: 'queued', delivered_status: 'pending' });
      } finally {
        await sql`alter table events_away rename to events`.execute(app.ctx.db);
      }
      await expect
        .poll(() => transaction(tx.id), { timeout: 15_000 })
        .toEqual({ status: 'sent', delivered_status: 'delivered' });
      await worker.stop();
      const { rows } = await sql<{
        type: string;
      }>`select type from events where transaction_id = ${tx.id} order by id`.execute(app.ctx.db);
      expect(rows.map((r) => r.type)).toEqual(['queued', 'sent', 'delivered']);
      expect(copies()).toBe(1);
    },
  );
});
