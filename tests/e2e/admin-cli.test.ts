// The admin CLI (dist/admin.mjs) as an operator runs it: exit codes 0 done, 1 refused, 2 usage
// error, 3 the embedded database is held by the running service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;

beforeAll(async () => {
  server = await prepareServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('admin CLI', () => {
  it('answers bad arguments with exit 2 and the usage on stderr', async () => {
    for (const args of [['user', 'create', '--bogus'], ['frobnicate'], ['user', 'create', '--customer', '1', '--email', 'x@example.com']]) {
      const run = await server.adminRun(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(/^admin: /);
      expect(run.stderr, args.join(' ')).toContain('Usage: npm run admin -- <command>');
    }
    const bare = await server.adminRun();
    expect(bare.code).toBe(2);
    expect(bare.stdout + bare.stderr).toContain('Usage: npm run admin -- <command>');
  });

  it('refuses a user for a customer that does not exist with exit 1', async () => {
    const byName = await server.adminRun('user', 'create', '--customer', 'No Such Customer', '--email', 'nobody@example.com', '--name', 'Nobody');
    expect(byName).toMatchObject({ code: 1, stderr: "admin: No customer named 'No Such Customer'\n" });
    const byId = await server.adminRun('user', 'create', '--customer', '999', '--email', 'nobody@example.com', '--name', 'Nobody');
    expect(byId).toMatchObject({ code: 1, stderr: 'admin: No customer with id 999\n' });
  });

  it('lists the organisations and users it created', async () => {
    const enterprise = createdId(await server.admin('enterprise', 'create', '--name', 'Listed Enterprise'), 'enterprise');
    const customer = createdId(await server.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Listed Customer'), 'customer');
    const created = await server.admin('user', 'create', '--customer', 'Listed Customer', '--email', 'listed@example.com', '--name', 'Listed User');
    expect(created).toMatch(/^password: \S{12,}$/m); // generated and shown once when --password is omitted
    const user = createdId(created, 'user');

    const list = await server.admin('list');
    expect(list).toContain(`enterprise ${enterprise} Listed Enterprise  ›  customer ${customer} Listed Customer`);
    expect(list).toContain(`user ${user} listed@example.com (Listed User)  ›  customer ${customer} Listed Customer`);
    const json = JSON.parse(await server.admin('list', '--json'));
    expect(json.users).toContainEqual(expect.objectContaining({ user_id: user, email: 'listed@example.com', customer_id: customer, enterprise_id: enterprise }));
  });

  it('refuses the embedded data directory while the service runs (exit 3), or works alongside it on PostgreSQL', async () => {
    await server.start();
    const run = await server.adminRun('list');
    if (server.embedded) {
      expect(run.code).toBe(3);
      expect(run.stderr).toContain('is in use by the Transact service');
      expect(run.stderr).toContain(`port ${server.port}`);
      expect(run.stderr).toContain('stop it first, or use DATABASE_URL');
    } else {
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('listed@example.com');
    }
  });
});

describe('admin CLI with the service environment of another host and ports (issue 11)', () => {
  let other: RunningServer;
  beforeAll(async () => {
    other = await prepareServer({ PUBLIC_URL: 'https://mail.example.test', SMTP_PUBLIC_HOST: 'smtp.example.test' });
  });
  afterAll(async () => {
    await other?.stop();
  });

  it('credentials show prints the configured API endpoint and SMTP host and port', async () => {
    const enterprise = createdId(await other.admin('enterprise', 'create', '--name', 'Configured Enterprise'), 'enterprise');
    createdId(await other.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Configured Shop'), 'customer');
    const shown = await other.adminRun('credentials', 'show', '--customer', 'Configured Shop');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^api endpoint: https:\/\/mail\.example\.test\/v1\/mail$/m);
    expect(shown.stdout).toMatch(new RegExp(`^smtp: +smtp\\.example\\.test:${other.env.SMTP_PORT} `, 'm'));
    expect(other.env.SMTP_PORT).not.toBe('2525');
    expect(shown.stdout + shown.stderr).not.toMatch(/localhost|:4321|:2525/);
  });

  it('demo prints the configured sign-in page, API endpoint and SMTP host and port', async () => {
    const run = await other.adminRun('demo', '--transactions', '20');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Sign in at https://mail.example.test/login');
    expect(run.stdout).toContain(`API endpoint https://mail.example.test/v1/mail, SMTP smtp.example.test:${other.env.SMTP_PORT}`);
    expect(run.stdout).not.toMatch(/localhost|:4321|:2525/);
    expect(run.stderr).not.toContain('PUBLIC_URL is not set');
  });

  it('says so when PUBLIC_URL is missing from its environment', async () => {
    const run = await other.adminRunWith({ PUBLIC_URL: undefined, PORT: '4999' }, 'credentials', 'show', '--customer', 'Configured Shop');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^api endpoint: http:\/\/localhost:4999\/v1\/mail$/m);
    expect(run.stderr).toContain("admin: PUBLIC_URL is not set here, so addresses use http://localhost:4999; give the CLI the service's environment");
  });
});
