// First start on an empty database creates an enterprise, a customer and an administrator with
// every permission, exactly once, even when several processes start together.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bootstrapAdmin, createUser } from '../../src/server/accounts/accounts.service.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({
    PARENT_PLATFORM_URL: 'https://parent.example',
    PARENT_PLATFORM_SECRET: 'parent-platform-shared-secret',
  });
});
afterAll(async () => app?.close());
beforeEach(async () => {
  // back to an empty database: customers, users and sessions go with their enterprise
  await app.ctx.db.deleteFrom('login_failures').execute();
  await app.ctx.db.deleteFrom('enterprises').execute();
});

/** bootstrapAdmin with some settings changed. */
function bootstrap(settings: { adminEmail?: string; adminPassword?: string | undefined }) {
  return bootstrapAdmin({ db: app.ctx.db, secrets: app.ctx.secrets, config: { ...app.ctx.config, ...settings } });
}

async function counts() {
  const n = async (table: 'enterprises' | 'customers' | 'users') =>
    Number(
      (
        await app.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { enterprises: await n('enterprises'), customers: await n('customers'), users: await n('users') };
}

async function verifyAuth(cookie: string) {
  return (await app.call('GET', '/v1/verify_auth', { cookie })).json();
}

describe('bootstrapAdmin', () => {
  it(
    'creates an enterprise, a customer and an administrator ' + 'with every permission, using TRANSACT_ADMIN_PASSWORD',
    async () => {
      const result = await bootstrap({ adminEmail: 'owner@example.com', adminPassword: 'configured-password-1' });
      expect(result).toEqual({ created: true, email: 'owner@example.com', generatedPassword: undefined });
      expect(await counts()).toEqual({ enterprises: 1, customers: 1, users: 1 });

      const body = await verifyAuth(await app.signIn('owner@example.com', 'configured-password-1'));
      expect(body.isAuthenticated).toBe(true);
      expect(Object.entries(body.user).filter(([k]) => k.startsWith('user_can_'))).toHaveLength(8);
      for (const [key, value] of Object.entries(body.user))
        if (key.startsWith('user_can_')) expect(value, key).toBe('yes');
      expect(body.enterprise.enterprise_pmailer_url).toBe('https://parent.example');
    },
  );

  it('generates a password that signs in when none is configured', async () => {
    const result = await bootstrap({ adminEmail: 'owner@example.com', adminPassword: undefined });
    expect(result.created).toBe(true);
    expect(result.generatedPassword).toEqual(expect.any(String));
    expect(result.generatedPassword!.length).toBeGreaterThanOrEqual(12);
    const body = await verifyAuth(await app.signIn('owner@example.com', result.generatedPassword!));
    expect(body.user.user_email).toBe('owner@example.com');
  });

  it('works with the default TRANSACT_ADMIN_EMAIL (admin@localhost)', async () => {
    const result = await bootstrap({ adminEmail: 'admin@localhost', adminPassword: undefined });
    expect(result).toMatchObject({ created: true, email: 'admin@localhost' });
    const body = await verifyAuth(await app.signIn('admin@localhost', result.generatedPassword!));
    expect(body.isAuthenticated).toBe(true);
  });

  it('creates nothing on a database that already has users', async () => {
    await bootstrap({ adminEmail: 'owner@example.com', adminPassword: 'configured-password-1' });
    const before = await counts();
    expect(await bootstrap({ adminEmail: 'someone-else@example.com', adminPassword: undefined })).toEqual({
      created: false,
    });
    expect(await counts()).toEqual(before);
    expect(
      (
        await app.call('POST', '/v1/auth/login', {
          body: { email: 'owner@example.com', password: 'configured-password-1' },
        })
      ).status,
    ).toBe(200);
  });

  it('creates exactly one administrator when several starts race', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        bootstrap({ adminEmail: `racer${i}@example.com`, adminPassword: 'configured-password-1' }),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await counts()).toEqual({ enterprises: 1, customers: 1, users: 1 });
  });
});

describe('createUser (admin CLI: user create)', () => {
  it.each([
    'not-an-email',
    'a@b@example.com',
    'a b@example.com',
    '@example.com',
    'a@',
    'a@-example.com',
    'a@example..com',
    '<a>@example.com',
  ])('refuses the address %j', async (email) => {
    const { customerId } = await app.createAccount();
    await expect(
      createUser(app.ctx, { customerId, email, name: 'X', password: null, permissions: [] }),
    ).rejects.toMatchObject({
      code: 'validation_failed',
    });
  });

  it('refuses a second account for an address in another case', async () => {
    const { customerId, email } = await app.createAccount();
    await expect(
      createUser(app.ctx, { customerId, email: email.toUpperCase(), name: 'X', permissions: [] }),
    ).rejects.toMatchObject({
      code: 'conflict',
    });
  });
});
