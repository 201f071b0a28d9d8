// Flow control (delivery/in-flow.ts, docs/architecture.md §5.1): when delivery falls behind, a new
// SMTP message waits at MAIL FROM until delivery catches up or SMTP_IN_FLOW_DELAY_MS passes, and is
// then accepted; nothing is refused. The far side is a relay sink that holds its answers until the
// test lets them go, so "behind" is made, not waited for.
import { sql } from 'kysely';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { openDialog, plainAuth } from '../helpers/smtp-dialog.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { startSubmissionServer, type SubmissionServer } from '../../src/server/smtp/submission.ts';

/** A relay sink whose DATA answers wait until `release()`; `arrived` counts the messages it holds or took. */
async function startGatedSink() {
  const held: (() => void)[] = [];
  let open = false;
  let arrived = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        arrived++;
        if (open) callback(null);
        else held.push(() => callback(null));
      });
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    get arrived() {
      return arrived;
    },
    get holding() {
      return held.length;
    },
    release() {
      open = true;
      for (const go of held.splice(0)) go();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

async function setUp(env: Record<string, string>) {
  const sink = await startGatedSink();
  cleanup.push(() => sink.close());
  const app: TestApp = await createTestApp({
    SMTP_RELAY_URL: sink.url,
    HOST: '127.0.0.1',
    DELIVERY_CONCURRENCY: '2',
    ...env,
  });
  cleanup.push(() => app.close());
  const account = await app.createAccount();
  await addDomain(app.ctx, account.customerId, 'shop.example', { verified: true });
  const { username, password } = (await credentialsForConsole(app.ctx, account.customerId)).smtpCredentials;
  const smtp: SubmissionServer = await startSubmissionServer(app.ctx, { port: 0, host: '127.0.0.1' });
  cleanup.push(() => smtp.close());
  const worker = new DeliveryWorker(app.ctx);
  worker.start();
  cleanup.push(() => worker.stop(0));
  const client = nodemailer.createTransport({
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    auth: { user: username, pass: password },
    tls: { rejectUnauthorized: false },
  });
  const send = (i: number) =>
    client.sendMail({
      from: 'orders@shop.example',
      to: `r${i}@customer.example`,
      subject: `Message ${i}`,
      text: 'Hello',
    });
  const dialog = async () => {
    const d = await openDialog(smtp.port);
    cleanup.push(async () => d.end());
    await d.command('EHLO client.test');
    expect(await d.command(`AUTH PLAIN ${plainAuth(username, password)}`)).toMatch(/^235/);
    return d;
  };
  return { app, sink, send, dialog };
}

/** Makes the messages still queued look accepted a minute ago: the next claim then shows delivery a minute behind. */
/**
 * Waits for a condition the service reaches by itself (a delivery, a claim). vi.waitFor's own bound is
 * 1 s, which deliveries on two loaded cores outlast (CI, PostgreSQL lane): a bound for a hang only.
 */
const until = (check: () => void) => vi.waitFor(check, { timeout: 20_000, interval: 25 });

const ageQueue = (app: TestApp) =>
  app.ctx.db
    .updateTable('transactions')
    .set({ queued_at: sql`now() - interval '1 minute'` })
    .where('status', '=', 'queued')
    .execute();

describe('SMTP flow control (in_flow_delay)', () => {
  it('the worker reports how long the oldest message it takes waited, and 0 once the queue is drained', async () => {
    const { app, sink, send, dialog } = await setUp({ SMTP_IN_FLOW_LAG_MS: '1000', SMTP_IN_FLOW_DELAY_MS: '600000' });
    const flow = app.ctx.inFlow;
    // two messages fill the worker's two slots at the held sink, the next three wait in the queue
    for (let i = 0; i < 5; i++) await send(i);
    await until(() => expect(sink.holding).toBe(2));
    await ageQueue(app);
    const observed = vi.spyOn(flow, 'observe');
    // a held delivery ends (the sink is opened): the worker's next claim takes a minute-old message...
    sink.release();
    await until(() => expect(sink.arrived).toBe(5));
    expect(Math.max(...observed.mock.calls.map(([lag]) => lag))).toBeGreaterThanOrEqual(60_000);
    // ...and delivery catches up (the queue drains), so waiting stops again
    await until(() => expect(flow.lagMs).toBe(0));
    const d = await dialog();
    expect(await d.command('MAIL FROM:<orders@shop.example>')).toMatch(/^250/);
    d.end();
  });

  it('a message arriving while delivery is behind waits at MAIL FROM, and goes on when the queue drains', async () => {
    const { app, sink, send, dialog } = await setUp({ SMTP_IN_FLOW_LAG_MS: '1000', SMTP_IN_FLOW_DELAY_MS: '600000' });
    const flow = app.ctx.inFlow;
    for (let i = 0; i < 2; i++) await send(i);
    await until(() => expect(sink.holding).toBe(2));
    // the worker reports it is a minute behind (as its claim would); the held sink keeps it there
    flow.observe(60_000);
    const d = await dialog();
    let answered = false;
    const reply = d.command('MAIL FROM:<orders@shop.example>').then((r) => {
      answered = true;
      return r;
    });
    await until(() => expect(flow.waiting).toBe(1));
    expect(answered).toBe(false);
    const delays = (await app.ctx.metrics.smtpInFlowDelays.get()).values[0]?.value;
    expect(delays).toBe(1);
    // the sink answers, the two deliveries end, the worker's next claim finds the queue empty
    sink.release();
    expect(await reply).toMatch(/^250/);
    expect(flow.lagMs).toBe(0);
    expect(await d.command('RCPT TO:<late@customer.example>')).toMatch(/^250/);
    expect(await d.command('DATA')).toMatch(/^354/);
    expect(
      await d.raw('From: orders@shop.example\r\nTo: late@customer.example\r\nSubject: Late\r\n\r\nHello\r\n.\r\n'),
    ).toMatch(/^250/);
    await until(() => expect(sink.arrived).toBe(3));
  });

  it(
    'after SMTP_IN_FLOW_DELAY_MS the message is accepted although delivery is still behind (slowed, never ' +
      'refused)',
    async () => {
      const { app, sink, send, dialog } = await setUp({ SMTP_IN_FLOW_LAG_MS: '1000', SMTP_IN_FLOW_DELAY_MS: '200' });
      const flow = app.ctx.inFlow;
      for (let i = 0; i < 2; i++) await send(i);
      await until(() => expect(sink.holding).toBe(2));
      flow.observe(60_000);
      const d = await dialog();
      const started = Date.now();
      expect(await d.command('MAIL FROM:<orders@shop.example>')).toMatch(/^250/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      expect(flow.lagMs).toBe(60_000); // still behind: the pause ran out, it did not catch up
      d.end();
      sink.release();
      await until(() => expect(sink.arrived).toBe(2));
    },
  );
});
