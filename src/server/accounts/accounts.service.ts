// Accounts: creating enterprises, customers and users (CLI, first start, parent-platform sign-in)
// and the one mapping of each to the console's wire names (docs/console.md §3).
import type { AppContext } from '../core/context.ts';
import { randomToken } from '../core/crypto.ts';
import type { Database } from '../db/database.ts';
import { PERMISSIONS, type Permission } from '../../contract/values.ts';
import type { Customer, Enterprise, User } from '../db/schema.ts';
import { DomainError } from '../core/errors.ts';
import * as repo from './accounts.repository.ts';
import { ensureCredentials } from '../credentials/credentials.service.ts';
import { inTransaction } from '../core/transaction.ts';

export type YesNo = 'yes' | 'no';

export interface EnterpriseWire {
  enterprise_id: number;
  enterprise_name: string;
  enterprise_header_colour: string;
  enterprise_logo: string | null;
  enterprise_pmailer_url: string | null;
  enterprise_sms_enabled: YesNo;
}

export interface CustomerWire {
  customer_id: number;
  customer_name: string;
}

export type UserWire = {
  user_id: number;
  user_name: string;
  user_email: string;
  user_profile_picture: string | null;
} & { [P in Permission as `user_can_${P}`]: YesNo };

const yn = (value: boolean): YesNo => (value ? 'yes' : 'no');

/** The enterprise columns the console shows. */
export type EnterpriseView = Pick<
  Enterprise,
  'id' | 'name' | 'header_colour' | 'logo_url' | 'parent_url' | 'sms_enabled'
>;
export type CustomerView = Pick<Customer, 'id' | 'name'>;
export type UserView = Pick<User, 'id' | 'name' | 'email' | 'picture_url' | `can_${Permission}`>;

/**
 * A console session as auth/ resolves it from its cookie: the signed-in user with their customer and
 * enterprise. Declared here, below http/ and auth/, because every console route reads it (http/middleware.ts).
 */
export interface ResolvedSession {
  userId: number;
  customerId: number;
  enterpriseId: number;
  tokenHash: string;
  user: UserView;
  customer: CustomerView;
  enterprise: EnterpriseView;
  /** True when this use pushed the expiry forward: the caller sends the cookie again. */
  extended: boolean;
}

export function enterpriseToWire(e: EnterpriseView): EnterpriseWire {
  return {
    enterprise_id: e.id,
    enterprise_name: e.name,
    enterprise_header_colour: e.header_colour,
    enterprise_logo: e.logo_url,
    enterprise_pmailer_url: e.parent_url,
    enterprise_sms_enabled: yn(e.sms_enabled),
  };
}

export function customerToWire(c: CustomerView): CustomerWire {
  return { customer_id: c.id, customer_name: c.name };
}

export function userToWire(u: UserView): UserWire {
  const flags = Object.fromEntries(PERMISSIONS.map((p) => [`user_can_${p}`, yn(u[`can_${p}`])])) as Record<
    `user_can_${Permission}`,
    YesNo
  >;
  return { ...flags, user_id: u.id, user_name: u.name, user_email: u.email, user_profile_picture: u.picture_url };
}

/** Column values for a set of permissions: the named ones on, the rest off (send stays on unless named off). */
export function permissionColumns(granted: readonly Permission[] | 'all'): Record<`can_${Permission}`, boolean> {
  return Object.fromEntries(PERMISSIONS.map((p) => [`can_${p}`, granted === 'all' || granted.includes(p)])) as Record<
    `can_${Permission}`,
    boolean
  >;
}

// A dotless domain is allowed (as in HTML's email rule): the default TRANSACT_ADMIN_EMAIL is admin@localhost.
export const EMAIL_PATTERN =
  /^[^\s@"'<>(),;:\\]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/i;

/** Hashes a password with argon2id (the library's defaults: 19 MiB, 2 passes). */
export async function hashPassword(password: string): Promise<string> {
  // loaded on the first password set: a process that sets none (a worker) never loads it
  const { hash } = await import('@node-rs/argon2');
  return hash(password);
}

export const MIN_PASSWORD_LENGTH = 10;

export interface CreateUserInput {
  customerId: number;
  email: string;
  name: string;
  password?: string | null;
  pictureUrl?: string | null;
  permissions: readonly Permission[] | 'all';
}

/**
 * Creates a console user; the email must be new and the customer must exist. `db` is a transaction
 * when the caller began one (bootstrapAdmin), else the context's database.
 */
export async function createUser(
  ctx: Pick<AppContext, 'db'>,
  input: CreateUserInput,
  db: Database = ctx.db,
): Promise<User> {
  const email = input.email.trim();
  if (!EMAIL_PATTERN.test(email))
    throw new DomainError('validation_failed', `'${input.email}' is not a valid email address`);
  if (input.password != null && input.password.length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('validation_failed', `The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (!(await repo.findCustomer(db, input.customerId)))
    throw new DomainError('not_found', `No customer with id ${input.customerId}`);
  if (await repo.findUserByEmail(db, email))
    throw new DomainError('conflict', `A user with email ${email} already exists`);
  return repo.insertUser(db, {
    customer_id: input.customerId,
    email,
    name: input.name.trim() || email,
    password_hash: input.password ? await hashPassword(input.password) : null,
    picture_url: input.pictureUrl ?? null,
    ...permissionColumns(input.permissions),
  });
}

/** Sets a new password and ends the user's sessions. */
export async function setPassword(ctx: Pick<AppContext, 'db'>, email: string, password: string): Promise<User> {
  const { db } = ctx;
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new DomainError('validation_failed', `The password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const user = await repo.findUserByEmail(db, email);
  if (!user) throw new DomainError('not_found', `No user with email ${email}`);
  const passwordHash = await hashPassword(password);
  return inTransaction(db, async (trx) => {
    await repo.deleteUserSessions(trx, user.id);
    return (await repo.updateUser(trx, user.id, { password_hash: passwordHash }))!;
  });
}

export interface BootstrapResult {
  created: boolean;
  email?: string;
  /** Set only when the password was generated here; printed once by the caller. */
  generatedPassword?: string;
}

/**
 * First start with no users: an enterprise, a customer and an administrator with every permission.
 * An advisory lock makes two processes starting together on one database create them once.
 */
export async function bootstrapAdmin(ctx: Pick<AppContext, 'db' | 'config' | 'secrets'>): Promise<BootstrapResult> {
  return inTransaction(ctx.db, async (trx) => {
    await repo.lockBootstrap(trx);
    if ((await repo.countUsers(trx)) > 0) return { created: false };
    const generatedPassword = ctx.config.adminPassword ? undefined : randomToken(12);
    const password = ctx.config.adminPassword ?? generatedPassword!;
    const enterprise = await repo.insertEnterprise(trx, {
      name: 'Transact',
      parent_url: ctx.config.parentPlatformUrl ?? null,
    });
    const customer = await repo.insertCustomer(trx, { enterprise_id: enterprise.id, name: 'My Company' });
    await ensureCredentials(ctx, trx, customer.id);
    const user = await createUser(
      ctx,
      { customerId: customer.id, email: ctx.config.adminEmail, name: 'Administrator', password, permissions: 'all' },
      trx,
    );
    return { created: true, email: user.email, generatedPassword };
  });
}

/** Creates an enterprise (admin CLI: enterprise create). */
export function createEnterprise(
  ctx: Pick<AppContext, 'db'>,
  input: Parameters<typeof repo.insertEnterprise>[1],
): Promise<Enterprise> {
  return repo.insertEnterprise(ctx.db, input);
}

/** Creates a customer of an existing enterprise, with its API key and SMTP credential. */
export async function createCustomer(
  ctx: Pick<AppContext, 'db' | 'secrets'>,
  input: Parameters<typeof repo.insertCustomer>[1],
): Promise<Customer> {
  if (!(await repo.findEnterprise(ctx.db, input.enterprise_id)))
    throw new DomainError('not_found', `No enterprise with id ${input.enterprise_id}`);
  const customer = await repo.insertCustomer(ctx.db, input);
  await ensureCredentials(ctx, ctx.db, customer.id);
  return customer;
}

/** The id of the customer `ref` names (an id, or a name only one customer has); throws not_found. */
export async function customerIdOf(ctx: Pick<AppContext, 'db'>, ref: string): Promise<number> {
  if (/^\d+$/.test(ref)) {
    const id = Number(ref);
    if (!(await repo.findCustomer(ctx.db, id))) throw new DomainError('not_found', `No customer with id ${id}`);
    return id;
  }
  const matches = await repo.findCustomerByName(ctx.db, ref);
  if (matches.length === 0) throw new DomainError('not_found', `No customer named '${ref}'`);
  if (matches.length > 1)
    throw new DomainError('conflict', `${matches.length} customers are named '${ref}'; use the id`);
  return matches[0].id;
}

/** Every enterprise with its customers, and every user (admin CLI: list). */
export async function listAccounts(ctx: Pick<AppContext, 'db'>) {
  const [users, organisations] = await Promise.all([
    repo.listAccounts(ctx.db),
    repo.listEnterprisesAndCustomers(ctx.db),
  ]);
  return { users, organisations };
}
