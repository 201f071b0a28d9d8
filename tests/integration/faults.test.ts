// Faults handled in-process (the process-level ones are in scripts/faults.mjs): the
// acceptance floor against the real free space of DATA_DIR's disk, the lease heartbeat that keeps a
// slow delivery from being taken by a second worker, and the SMTP per-address connection limit.
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, ORIGIN, type TestApp } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { credentialsForConsole } from '../../src/server/credentials/credentials.service.ts';
import { addDomain } from '../../src/server/domains/domains.service.ts';
import { DeliveryWorker } from '../../src/server/delivery/worker.ts';
import { startSubmissionServer, type SubmissionServer } from '../../src/server/smtp/submission.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function appWith(
  env: Record<string, string>,
): Promise<{ app: TestApp; apiKey: string; smtpUser: string; smtpPass: string }> {
  const app = await createTestApp(env);
  cleanups.push(() => app.close());
  const { customerId } = await app.createAccount();
  await addDomain(app.ctx, customerId, 'faults.example', { verified: true });
  const creds = await credentialsForConsole(app.ctx, customerId);
  return {
    app,
    apiKey: creds.apiCredentials.apiKey,
    smtpUser: creds.smtpCredentials.username,
    smtpPass: creds.smtpCredentials.password,
  };
}

async function submission(app: TestApp): Promise<SubmissionServer> {
  const server = await startSubmissionServer(app.ctx, { port: 0, host: '127.0.0.1' });
  cleanups.push(() => server.close(0));
  return server;
}

const sendApi = (app: TestApp, apiKey: string, to = 'ann@people.example') =>
  app.api.request(`${ORIGIN}/v1/mail`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ from: 'shop@faults.example', to, subject: 'Faults', text: 'Hello' }),
  });

describe('the acceptance floor (MIN_FREE_SPACE_MB)', () => {
  it('refuses new mail with 507 storage_full and SMTP 452 4.3.1 while the disk under DATA_DIR is below it, and ' +
    'serves reads', {
    timeout: 120_000,
  }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'transact-floor-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    // a floor above any real disk's free space: the statfs answer is real, the disk "full"
    const { app, apiKey, smtpUser, smtpPass } = await appWith({
      DATA_DIR: dataDir,
      MIN_FREE_SPACE_MB: String(1024 * 1024 * 1024),
    });
    const res = await sendApi(app, apiKey);
    expect(res.status).toBe(507);
    expect(res.headers.get('retry-after')).toBe('60');
    const body = await res.json();
    expect(body.error.code).toBe('storage_full');
    expect(body.error.message).toMatch(/out of storage space/);
    expect(await app.ctx.db.selectFrom('transactions').select('id').execute()).toEqual([]);
    expect((await app.api.request(`${ORIGIN}/readyz`)).status).toBe(200);

    const smtp = await submission(app);
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      auth: { user: smtpUser, pass: smtpPass },
      tls: { rejectUnauthorized: false },
    });
    const refused = await transport
      .sendMail({ from: 'shop@faults.example', to: 'ann@people.example', subject: 'Faults', text: 'Hello' })
      .catch((err) => err);
    transport.close();
    expect(refused).toBeInstanceOf(Error);
    expect(refused.responseCode).toBe(452);
    expect(refused.command).toBe('MAIL FROM');
    expect(refused.response).toMatch(/^452 4\.3\.1 /);
  });

  it('accepts above it (0 turns the check off)', { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'transact-floor-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const { app, apiKey } = await appWith({ DATA_DIR: dataDir, MIN_FREE_SPACE_MB: '0' });
    expect((await sendApi(app, apiKey)).status).toBe(202);
  });
});

describe('PostgreSQL out of disk space (its own disk, seen as a failing insert)', () => {
  // PostgreSQL-only, and needs root to mount a small tmpfs; on PGlite the disk under DATA_DIR is the
  // database's, covered above and by the fault suite's disk case
  it.runIf(process.env.DATABASE_URL)(
    'answers 507 storage_full, stores nothing, and accepts again once space is freed',
    { timeout: 120_000 },
    async () => {
      expect(process.getuid?.(), 'mounting a tmpfs for the tablespace needs root').toBe(0);
      const adminUrl = process.env.DATABASE_URL!;
      const dir = mkdtempSync(path.join(tmpdir(), 'transact-pg-disk-'));
      const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', dir], { encoding: 'utf8' });
      expect(mounted.status, mounted.stderr).toBe(0);
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout);
      const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout);
      chownSync(dir, uid, gid);
      const suffix = Math.random().toString(36).slice(2, 10);
      const [tablespace, name] = [`transact_small_${suffix}`, `transact_disk_${suffix}`];
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      cleanups.push(async () => {
        await admin.query(`drop database if exists ${name} with (force)`);
        await admin.query(`drop tablespace if exists ${tablespace}`);
        await admin.end();
        spawnSync('umount', ['-l', dir]);
        rmSync(dir, { recursive: true, force: true });
      });
      await admin.query(`create tablespace ${tablespace} location '${dir}'`);
      // a migrated database whose tables all live on the small disk (WAL stays on the cluster's own)
      const template = await createTestDatabase();
      const templateName = new URL(template.env.DATABASE_URL!).pathname.slice(1);
      await admin.query(`create database ${name} template ${templateName} tablespace ${tablespace}`);
      await template.close();
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      const { app, apiKey } = await appWith({ DATABASE_URL: url.toString(), MIN_FREE_SPACE_MB: '0' });
      const countTransactions = async () =>
        Number(
          (
            await app.ctx.db
              .selectFrom('transactions')
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await countTransactions();
      // fill what is left of the tablespace's disk
      const filler = path.join(dir, 'filler');
      spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M', 'count=64'], { encoding: 'utf8' });
      const refused = await sendApi(app, apiKey);
      expect(refused.status).toBe(507);
      const body = (await refused.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('storage_full');
      expect(body.error.message).toMatch(/out of storage space/);
      expect(refused.headers.get('retry-after')).toBeTruthy();
      expect(await countTransactions()).toBe(before); // reads work, nothing was stored
      rmSync(filler);
      expect((await sendApi(app, apiKey)).status).toBe(202);
      expect(await countTransactions()).toBe(before + 1);
    },
  );
});

describe('delivery leases', () => {
  it('renews the lease of a delivery slower than the lease, so a second worker never takes it', {
    timeout: 120_000,
  }, async () => {
    // a receiver that holds RCPT for over two leases (6 s, renewed every 2 s)
    let arrivals = 0;
    const slow = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        setTimeout(() => callback(), 14_000);
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on('end', () => {
          arrivals++;
          callback(null);
        });
      },
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => slow.close(() => resolve())));
    const port = (slow.server.address() as { port: number }).port;
    const { app, apiKey } = await appWith({ SMTP_RELAY_URL: `smtp://127.0.0.1:${port}`, DELIVERY_LEASE_SECONDS: '6' });
    expect((await sendApi(app, apiKey)).status).toBe(202);
    const first = new DeliveryWorker(app.ctx);
    const second = new DeliveryWorker(app.ctx);
    cleanups.push(() => Promise.all([first.stop(), second.stop()]).then(() => {}));
    first.start();
    const row = () =>
      app.ctx.db.selectFrom('transactions').select(['status', 'attempts', 'locked_until']).executeTakeFirstOrThrow();
    await expect.poll(async () => (await row()).locked_until !== null, { timeout: 10_000 }).toBe(true);
    second.start(); // polls every second: without renewals it would claim the row after 6 s
    await expect.poll(async () => (await row()).status, { timeout: 60_000, interval: 100 }).toBe('sent');
    expect(arrivals).toBe(1);
    expect((await row()).attempts).toBe(1);
  });
});

describe('SMTP connections per client address', () => {
  it('answers 421 4.7.0 beyond SMTP_MAX_CONNECTIONS_PER_IP and greets another address', {
    timeout: 120_000,
  }, async () => {
    const { app } = await appWith({ SMTP_MAX_CONNECTIONS_PER_IP: '3' });
    const smtp = await submission(app);
    const open = (localAddress: string) =>
      new Promise<{ first: string; socket: ReturnType<typeof createConnection> }>((resolve) => {
        const socket = createConnection({ host: '127.0.0.1', port: smtp.port, localAddress });
        socket.on('error', () => {});
        socket.once('data', (d) => resolve({ first: String(d), socket }));
        cleanups.push(() => void socket.destroy());
      });
    const held = [];
    for (let i = 0; i < 3; i++) held.push(await open('127.0.0.1'));
    expect(held.every((c) => c.first.startsWith('220 '))).toBe(true);
    expect((await open('127.0.0.1')).first).toMatch(/^421 4\.7\.0 /);
    expect((await open('127.0.0.2')).first).toMatch(/^220 /);
  });

  it("frees an address's slot when a session that switched to TLS (STARTTLS) ends", { timeout: 120_000 }, async () => {
    const { app, smtpUser, smtpPass } = await appWith({ SMTP_MAX_CONNECTIONS_PER_IP: '2' });
    const smtp = await submission(app);
    // one session after another, each upgraded with STARTTLS and closed: twice the limit
    for (let i = 0; i < 4; i++) {
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: smtp.port,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
        auth: { user: smtpUser, pass: smtpPass },
      });
      const info = await transport.sendMail({
        from: 'shop@faults.example',
        to: 'ann@people.example',
        subject: `TLS ${i}`,
        text: 'Hello',
      });
      expect(info.response).toMatch(/^250 /);
      transport.close();
    }
    const greeting = await new Promise<string>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port: smtp.port });
      socket.on('error', () => {});
      socket.once('data', (d) => resolve(String(d)));
      cleanups.push(() => void socket.destroy());
    });
    expect(greeting).toMatch(/^220 /);
  });
});
