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
