// The in-process part of `npm run bench:webhooks` (bundled by scripts/bench-webhooks.mjs): a fresh
// PGlite database in memory, one customer with a verified domain and a webhook, the service's own
// modules. Exposes the two measurements; the receiver and the SMTP sink live in other processes.
import http from 'node:http';
import pino from 'pino';
import { loadConfig } from '../../src/server/core/config.ts';
import { createContext } from '../../src/server/create-context.ts';
import { createApi } from '../../src/server/app.ts';
import { insertCustomer, insertEnterprise } from '../../src/server/accounts/accounts.repository.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { insertEvents } from '../../src/server/events/events.repository.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { WebhookWorker } from '../../src/server/webhooks/worker.ts';
import { saveWebhook } from '../../src/server/webhooks/webhooks.service.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/contract/values.ts';

const SECRET = 'bench-secret-bench-secret-bench-secret-00';

// set by scripts/bench-webhooks.mjs for --database-url: each measurement gets a fresh database from it
let nextDatabase: (() => Promise<string>) | null = null;
export function useDatabases(factory: () => Promise<string>): void {
  nextDatabase = factory;
}

async function setup(env: Record<string, string>) {
  const store = nextDatabase ? { DATABASE_URL: await nextDatabase() } : { DATA_DIR: 'memory://' };
  const config = loadConfig({
    TRANSACT_SECRET: SECRET,
    ...store,
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
    ...env,
  });
  const { ctx, close } = await createContext(config, {
    logger: pino({ level: 'silent' }),
    collectDefaultMetrics: false,
  });
  const enterprise = await insertEnterprise(ctx.db, { name: 'Bench' });
  const customer = await insertCustomer(ctx.db, { enterprise_id: enterprise.id, name: 'Bench Shop' });
  await addDomain(ctx, customer.id, 'shop.example', { verified: true });
  const apiKey = (await credentialsForConsole(ctx, customer.id)).apiCredentials.apiKey;
  return { ctx, close, customerId: customer.id, apiKey };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Events delivered per second by the webhook worker to `receiverUrl`. */
export async function workerRate(receiverUrl: string, events: number) {
  const { ctx, close, customerId, apiKey } = await setup({});
  await saveWebhook(ctx, customerId, {
    url: receiverUrl,
    verb: 'post',
    status: 'enabled',
    event_types: ['open'],
    field_set: 'standard',
  });
  const api = createApi(ctx);
  // transactions to hang the events on (never delivered: no worker for mail here)
  for (let offset = 0; offset < events; offset += 500) {
    const batch = Array.from({ length: Math.min(500, events - offset) }, (_, i) => ({
      from: 'Shop <orders@shop.example>',
      to: `c${offset + i}@customer.example`,
      subject: `Order ${offset + i}`,
      text: 'Thanks',
      tags: ['bench'],
      metadata: { order: offset + i },
    }));
    const res = await api.request('http://localhost/v1/mail/batch', {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(batch),
    });
    if (res.status !== 202) throw new Error(`accept failed: ${res.status}`);
  }
  const txs = await ctx.db.selectFrom('transactions').select(['id', 'customer_id']).execute();
  await insertEvents(
    ctx.db,
    txs.map((t) => ({
      customer_id: Number(t.customer_id),
      transaction_id: Number(t.id),
      type: 'open' as const,
      data: { ip: '203.0.113.1', user_agent: 'Mail/1.0' },
    })),
    ctx,
  );
  // one customer: the per-customer bound is the worker's concurrency here
  const worker = new WebhookWorker(ctx, { concurrency: 64, perCustomer: 64 });
  const started = performance.now();
  worker.start();
  // a cheap check (the partial index of due requests), not a count: it shares PGlite's one connection
  while (
    await ctx.db.selectFrom('webhook_requests').select('id').where('status', '=', 'pending').limit(1).executeTakeFirst()
  )
    await sleep(50);
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  const sample = await ctx.db.selectFrom('webhook_requests').select('payload').limit(1).executeTakeFirstOrThrow();
  await close();
  return { events, seconds, per_second: events / seconds, payload_bytes: JSON.stringify(sample.payload).length };
}

/** The same receiver driven directly: a bare keep-alive client, `concurrency` requests at a time. */
export async function bareRate(receiverUrl: string, requests: number, payloadBytes: number, concurrency = 64) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const body = JSON.stringify({ type: 'email.open', data: { pad: 'x'.repeat(Math.max(0, payloadBytes - 40)) } });
  let next = 0;
  const started = performance.now();
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        receiverUrl,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next++;
        await one();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { requests, seconds, per_second: requests / seconds };
}

/**
 * Mail accepted through the API and delivered into the SMTP sink at `sinkPort`, `messages` of them,
 * with or without a webhook subscribed to every event (whose worker runs alongside, as in the
 * worker role). Returns delivered messages per second (accept → recorded outcome).
 */
export async function endToEnd(sinkPort: number, receiverUrl: string | null, messages: number) {
  const { ctx, close, customerId, apiKey } = await setup({
    SMTP_RELAY_URL: `smtp://127.0.0.1:${sinkPort}`,
    DELIVERY_CONCURRENCY: '64',
  });
  if (receiverUrl)
    await saveWebhook(ctx, customerId, {
      url: receiverUrl,
      verb: 'post',
      status: 'enabled',
      event_types: [...WEBHOOK_EVENT_TYPES],
      field_set: 'standard',
    });
  const api = createApi(ctx);
  const delivery = new DeliveryWorker(ctx);
  const webhooks = new WebhookWorker(ctx);
  delivery.start();
  webhooks.start();
  const started = performance.now();
  let sent = 0;
  // 16 API clients posting one message each, as bench:send's end to end does (one recipient, HTML)
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (sent < messages) {
        sent++;
        const res = await api.request('http://localhost/v1/mail', {
          method: 'POST',
          headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({
            from: 'Shop <orders@shop.example>',
            to: `r${sent}@customer.example`,
            subject: 'Your order',
            html: `<p>${'Thanks for your order. '.repeat(80)}</p>`,
          }),
        });
        if (res.status !== 202) throw new Error(`send failed: ${res.status}`);
      }
    }),
  );
  while (
    await ctx.db.selectFrom('transactions').select('id').where('status', '=', 'queued').limit(1).executeTakeFirst()
  )
    await sleep(50);
  const seconds = (performance.now() - started) / 1000;
  const { n: hooks } = await ctx.db
    .selectFrom('webhook_requests')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  await delivery.stop();
  await webhooks.stop();
  await close();
  return { messages, seconds, delivered_per_second: messages / seconds, webhook_requests: Number(hooks) };
}
