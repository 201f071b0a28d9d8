// The acceptance rules of docs/architecture.md §5 "Transaction status": over the monthly quota → (no_quota,
// failed), suppressed recipient → (failed, failed) unless the customer disabled suppression.
import { figuresOf } from '../helpers/figures.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';

let app: TestApp;
let sink: SmtpSink;
let worker: DeliveryWorker;

beforeAll(async () => {
  sink = await startSmtpSink();
  app = await createTestApp({ SMTP_RELAY_URL: sink.url });
  worker = new DeliveryWorker(app.ctx);
  worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await sink?.close();
  await app?.close();
});

/** A customer with a verified domain and the given quota; returns a send function with its API key. */
async function customerWith(opts: { quota: number; domain: string }) {
  const account = await app.createAccount();
  await app.ctx.db
    .updateTable('customers')
    .set({ monthly_quota: opts.quota })
    .where('id', '=', account.customerId)
    .execute();
  await addDomain(app.ctx, account.customerId, opts.domain, { verified: true });
  const { apiKey } = (await credentialsForConsole(app.ctx, account.customerId)).apiCredentials;
  const send = async (to: string[] | string, extra: Record<string, unknown> = {}) => {
    const res = await app.api.request('http://localhost:4321/v1/mail', {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ from: `news@${opts.domain}`, to, subject: 'Rules', text: 'Rules', ...extra }),
    });
    expect(res.status).toBe(202);
    return (await res.json()).data as { trans_uuid: string; to: string; status: string }[];
  };
  return { account, send };
}

const row = (uuid: string) =>
  app.ctx.db
    .selectFrom('transactions')
    .select(['status', 'delivered_status', 'last_reply', 'group_id'])
    .where('uuid', '=', uuid)
    .executeTakeFirstOrThrow();

describe('monthly quota', () => {
  it('queues up to the quota and stores the rest as no_quota, never sent', async () => {
    const { account, send } = await customerWith({ quota: 3, domain: 'quota.example' });
    const before = sink.messages.length;
    const data = await send(['a@q.example', 'b@q.example', 'c@q.example', 'd@q.example', 'e@q.example']);
    expect(data.map((d) => d.status)).toEqual(['queued', 'queued', 'queued', 'no_quota', 'no_quota']);
    const over = await row(data[3].trans_uuid);
    expect(over).toMatchObject({ status: 'no_quota', delivered_status: 'failed' });
    expect(over.last_reply).toMatch(/quota/);
    const next = await send('f@q.example');
    expect(next[0].status).toBe('no_quota');

    const arrived = () =>
      sink.messages
        .slice(before)
        .flatMap((m) => m.to)
        .filter((to) => /^[a-f]@q\.example$/.test(to))
        .sort();
    await expect.poll(arrived, { timeout: 10_000 }).toEqual(['a@q.example', 'b@q.example', 'c@q.example']);
    // the three are recorded sent and nothing of this customer is queued: the worker has nothing left to send
    const statuses = () =>
      app.ctx.db
        .selectFrom('transactions')
        .select('status')
        .where('customer_id', '=', account.customerId)
        .orderBy('id')
        .execute();
    await expect
      .poll(async () => (await statuses()).map((r) => r.status))
      .toEqual(['sent', 'sent', 'sent', 'no_quota', 'no_quota', 'no_quota']);
    expect(arrived()).toEqual(['a@q.example', 'b@q.example', 'c@q.example']);
    const usage = await app.ctx.db
      .selectFrom('quota_usage')
      .select('used')
      .where('customer_id', '=', account.customerId)
      .executeTakeFirstOrThrow();
    expect(usage.used).toBe(3);
    const stats = await figuresOf(app.ctx.db, account.customerId, Number(over.group_id));
    expect(stats.failed).toBe(3);
    const events = await app.ctx.db
      .selectFrom('events')
      .innerJoin('transactions', 'transactions.id', 'events.transaction_id')
      .select('events.type')
      .where('transactions.uuid', '=', data[4].trans_uuid)
      .orderBy('events.id')
      .execute();
    expect(events.map((e) => e.type)).toEqual(['queued', 'failed']);
  });

  it('holds exactly under concurrent sends', async () => {
    const { send } = await customerWith({ quota: 10, domain: 'race-quota.example' });
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => send(`r${i}@q.example`)));
    const statuses = answers.map((a) => a[0].status);
    expect(statuses.filter((s) => s === 'queued')).toHaveLength(10);
    expect(statuses.filter((s) => s === 'no_quota')).toHaveLength(15);
  });
});

describe('suppression list', () => {
  it('fails a suppressed recipient, and sends to it once the customer disables suppression', async () => {
    const { account, send } = await customerWith({ quota: 1000, domain: 'supp.example' });
    await app.ctx.db
      .insertInto('suppressions')
      .values({ customer_id: account.customerId, email: 'Blocked@Q.example', origin: 'user' })
      .execute();
    const [blocked] = await send('blocked@q.example');
    expect(blocked.status).toBe('failed');
    expect(await row(blocked.trans_uuid)).toMatchObject({ status: 'failed', delivered_status: 'failed' });

    await app.ctx.db
      .updateTable('customers')
      .set({ disable_suppression: true })
      .where('id', '=', account.customerId)
      .execute();
    const [sent] = await send('blocked@q.example');
    expect(sent.status).toBe('queued');
    await expect
      .poll(() => sink.messages.flatMap((m) => m.to).includes('blocked@q.example'), { timeout: 10_000 })
      .toBe(true);
  });

  it('suppresses one customer’s recipient for that customer only', async () => {
    const first = await customerWith({ quota: 1000, domain: 'one.example' });
    const second = await customerWith({ quota: 1000, domain: 'two.example' });
    await app.ctx.db
      .insertInto('suppressions')
      .values({ customer_id: first.account.customerId, email: 'shared@q.example', origin: 'unsubscribe' })
      .execute();
    expect((await first.send('shared@q.example'))[0].status).toBe('failed');
    expect((await second.send('shared@q.example'))[0].status).toBe('queued');
  });
});
