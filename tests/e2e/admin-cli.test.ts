// The admin CLI (dist/admin.mjs) as an operator runs it: exit codes 0 done, 1 refused, 2 usage
// error, 3 the embedded database is held by the running service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdId, prepareServer, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;

/** Runs the CLI as its own process; resolves with its output, fails the test on a non-zero exit. */
async function cli(target: RunningServer, ...args: string[]): Promise<string> {
  const run = await target.adminRun(...args);
  expect(run.code, `admin ${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

beforeAll(async () => {
  server = await prepareServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('admin CLI', () => {
  it('answers bad arguments with exit 2 and the usage on stderr', async () => {
    for (const args of [
      ['user', 'create', '--bogus'],
      ['frobnicate'],
      ['user', 'create', '--customer', '1', '--email', 'x@example.com'],
    ]) {
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
    const byName = await server.adminRun(
      'user',
      'create',
      '--customer',
      'No Such Customer',
      '--email',
      'nobody@example.com',
      '--name',
      'Nobody',
    );
    expect(byName).toMatchObject({ code: 1, stderr: "admin: No customer named 'No Such Customer'\n" });
    const byId = await server.adminRun(
      'user',
      'create',
      '--customer',
      '999',
      '--email',
      'nobody@example.com',
      '--name',
      'Nobody',
    );
    expect(byId).toMatchObject({ code: 1, stderr: 'admin: No customer with id 999\n' });
  });

  it('lists the organisations and users it created', async () => {
    const enterprise = createdId(
      await cli(server, 'enterprise', 'create', '--name', 'Listed Enterprise'),
      'enterprise',
    );
    const customer = createdId(
      await cli(server, 'customer', 'create', '--enterprise', String(enterprise), '--name', 'Listed Customer'),
      'customer',
    );
    const created = await cli(
      server,
      'user',
      'create',
      '--customer',
      'Listed Customer',
      '--email',
      'listed@example.com',
      '--name',
      'Listed User',
    );
    expect(created).toMatch(/^password: \S{12,}$/m); // generated and shown once when --password is omitted
    const user = createdId(created, 'user');

    const list = await cli(server, 'list');
    expect(list).toContain(`enterprise ${enterprise} Listed Enterprise  ›  customer ${customer} Listed Customer`);
    expect(list).toContain(`user ${user} listed@example.com (Listed User)  ›  customer ${customer} Listed Customer`);
    const json = JSON.parse(await cli(server, 'list', '--json'));
    expect(json.users).toContainEqual(
      expect.objectContaining({
        user_id: user,
        email: 'listed@example.com',
        customer_id: customer,
        enterprise_id: enterprise,
      }),
    );
  });

  it('domain add --verified --receiving prints every record, the Receiving MX too, and checks none', async () => {
    const added = await cli(
      server,
      'domain',
      'add',
      'mx.example',
      '--customer',
      'Listed Customer',
      '--verified',
      '--receiving',
    );
    expect(added).toMatch(/^domain \d+ added: mx\.example \(customer \d+, sending-verified, receiving\)$/m);
    expect(added).toMatch(/^ {2}receiving +MX +mx\.example {2}"[^"]+"$/m);
    const plain = await cli(server, 'domain', 'add', 'plain.example', '--customer', 'Listed Customer', '--verified');
    const db = await server.database();
    const checked = async (name: string) =>
      db
        .selectFrom('domains')
        .select(['dns_results', 'dns_checked_at'])
        .where('domain', '=', name)
        .executeTakeFirstOrThrow();
    // the operator vouches for the domain, not for what DNS holds: the console says 'Not checked yet' until it answers
    for (const name of ['mx.example', 'plain.example'])
      expect(await checked(name)).toEqual({ dns_results: null, dns_checked_at: null });
    // without --receiving there is no MX record to publish
    expect(plain).not.toContain(' MX ');
  });

  it(
    'refuses the embedded data directory while the service ' + 'runs (exit 3), or works alongside it on PostgreSQL',
    async () => {
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
    },
  );
});

describe('admin CLI with the service environment of another host and ports', () => {
  let other: RunningServer;
  beforeAll(async () => {
    other = await prepareServer({ PUBLIC_URL: 'https://mail.example.test', SMTP_PUBLIC_HOST: 'smtp.example.test' });
  });
  afterAll(async () => {
    await other?.stop();
  });

  it('credentials show prints the configured API endpoint and SMTP host and port', async () => {
    const enterprise = createdId(
      await other.admin('enterprise', 'create', '--name', 'Configured Enterprise'),
      'enterprise',
    );
    createdId(
      await other.admin('customer', 'create', '--enterprise', String(enterprise), '--name', 'Configured Shop'),
      'customer',
    );
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
    expect(run.stdout).toContain(
      `API endpoint https://mail.example.test/v1/mail, SMTP smtp.example.test:${other.env.SMTP_PORT}`,
    );
    expect(run.stdout).not.toMatch(/localhost|:4321|:2525/);
    expect(run.stderr).not.toContain('PUBLIC_URL is not set');
  });

  it("says so when its PUBLIC_URL differs from the service's, naming the service's", async () => {
    await other.start();
    await other.halt();
    const run = await other.adminRunWith(
      { PUBLIC_URL: undefined, PORT: '4999' },
      'credentials',
      'show',
      '--customer',
      'Configured Shop',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^api endpoint: http:\/\/localhost:4999\/v1\/mail$/m);
    expect(run.stderr).toMatch(
      new RegExp(
        String.raw`^admin: addresses here use http://localhost:4999, but the service \(started \S+ ` +
          String.raw`with this data directory\) uses https://mail\.example\.test;`,
        'm',
      ),
    );
    expect(run.stderr).toContain('PUBLIC_URL=https://mail.example.test');
  }, 180_000);
});

describe("admin CLI run with exactly the service's environment, PUBLIC_URL unset on both", () => {
  let plain: RunningServer;
  beforeAll(async () => {
    plain = await prepareServer({ PUBLIC_URL: '' });
  });
  afterAll(async () => {
    await plain?.stop();
  });

  it('demo and credentials show print the default address and warn about nothing', async () => {
    await plain.start();
    await plain.halt(); // the embedded database: demo runs with the service stopped, as docs/operations.md says
    const demo = await plain.adminRun('demo', '--transactions', '20');
    expect(demo.code).toBe(0);
    expect(demo.stdout).toContain(`Sign in at http://localhost:${plain.port}/login`);
    expect(demo.stderr).not.toContain('PUBLIC_URL');
    expect(demo.stderr).not.toContain('addresses here');
    const shown = await plain.adminRun('credentials', 'show', '--customer', 'Demo Shop');
    expect(shown.code).toBe(0);
    expect(shown.stderr).toBe('');
    // the same CLI given another PUBLIC_URL is told which one the service uses
    const elsewhere = await plain.adminRunWith(
      { PUBLIC_URL: 'https://elsewhere.example.test' },
      'credentials',
      'show',
      '--customer',
      'Demo Shop',
    );
    expect(elsewhere.stderr).toContain(`but the service (started `);
    expect(elsewhere.stderr).toContain(`uses http://localhost:${plain.port};`);
  }, 180_000);
});
