// Console sign-in: password login with throttling, sessions with sliding expiry, and the
// parent-platform challenge (the platform signs an HS256 assertion naming enterprise, customer and
// user, which we upsert). Only hashes of session tokens and challenge nonces are stored.
import { z } from 'zod';
import type { AppContext } from '../core/context.ts';
import { randomToken, sha256 } from '../core/crypto.ts';
import type { Database } from '../db/database.ts';
import { PERMISSIONS, type Permission } from '../../contract/values.ts';
import { DomainError } from '../core/errors.ts';
import * as accounts from '../accounts/accounts.repository.ts';
import { customerToWire, enterpriseToWire, permissionColumns, userToWire } from '../accounts/accounts.service.ts';
import type { CustomerWire, EnterpriseWire, ResolvedSession, UserWire } from '../accounts/accounts.service.ts';
import * as repo from './auth.repository.ts';
import { ensureCredentials } from '../credentials/credentials.service.ts';
import { inTransaction } from '../core/transaction.ts';

/** The answer of GET /v1/verify_auth (docs/console.md §7). */
export interface SessionWire {
  isAuthenticated: boolean;
  enterprise: EnterpriseWire | null;
  customer: CustomerWire | null;
  user: UserWire | null;
  backendUrl: string;
}

// A hash of a random password, verified against when the email is unknown so that both failures
// take the same time.
let dummyHash: Promise<string> | undefined;
async function verifyOrWaste(passwordHash: string | null, password: string): Promise<boolean> {
  // loaded on the first sign-in: a process that signs nobody in (a worker) never loads it
  const { hash, verify } = await import('@node-rs/argon2');
  if (passwordHash) return verify(passwordHash, password).catch(() => false);
  dummyHash ??= hash(randomToken(16));
  await verify(await dummyHash, password).catch(() => false);
  return false;
}

/** Creates a session for the user and returns the cookie token. */
export async function startSession(
  ctx: AppContext,
  userId: number,
  client: { ip: string | null; userAgent: string | null },
): Promise<string> {
  const token = randomToken(32);
  await repo.insertSession(ctx.db, {
    token_hash: sha256(token),
    user_id: userId,
    expires_at: new Date(Date.now() + ctx.config.sessionTtlSeconds * 1000),
    ip: client.ip,
    user_agent: client.userAgent?.slice(0, 512) ?? null,
  });
  await accounts.updateUser(ctx.db, userId, { last_login_at: new Date() });
  return token;
}

/** Looks up a cookie token; extends the session when a tenth of its lifetime has passed since the last extension. */
export async function resolveSession(ctx: AppContext, token: string | undefined): Promise<ResolvedSession | null> {
  if (!token || token.length > 128) return null;
  const tokenHash = sha256(token);
  const row = await repo.findLiveSession(ctx.db, tokenHash);
  if (!row) return null;
  const ttlMs = ctx.config.sessionTtlSeconds * 1000;
  const remaining = row.expiresAt.getTime() - Date.now();
  const extended = remaining < ttlMs * 0.9;
  if (extended) await repo.extendSession(ctx.db, tokenHash, new Date(Date.now() + ttlMs));
  return {
    userId: row.user.id,
    customerId: row.customer.id,
    enterpriseId: row.enterprise.id,
    tokenHash,
    user: row.user,
    customer: row.customer,
    enterprise: row.enterprise,
    extended,
  };
}

export async function endSession(ctx: AppContext, token: string | undefined): Promise<void> {
  if (token) await repo.deleteSession(ctx.db, sha256(token));
}

/** The verify_auth answer for a session (or the signed-out answer). */
export function sessionToWire(ctx: AppContext, session: ResolvedSession | null): SessionWire {
  if (!session)
    return { isAuthenticated: false, enterprise: null, customer: null, user: null, backendUrl: ctx.config.publicUrl };
  return {
    isAuthenticated: true,
    enterprise: enterpriseToWire(session.enterprise),
    customer: customerToWire(session.customer),
    user: userToWire(session.user),
    backendUrl: ctx.config.publicUrl,
  };
}

/** Where the browser goes after logout: the enterprise's parent platform, else the sign-in page. */
export function logoutDestination(session: ResolvedSession | null): string {
  return session?.enterprise.parent_url || '/login';
}

/**
 * Password sign-in. After `loginMaxFailures` failures for one email or one client address within
 * `loginWindowSeconds`, further tries get 429 until the oldest failure leaves the window. Unknown
 * email and wrong password give the same answer.
 */
export async function login(
  ctx: AppContext,
  input: { email: string; password: string; ip: string | null },
): Promise<number> {
  const { config, db } = ctx;
  const emailKey = `email:${input.email.trim().toLowerCase()}`;
  const keys = input.ip ? [emailKey, `ip:${input.ip}`] : [emailKey];
  const since = new Date(Date.now() - config.loginWindowSeconds * 1000);
  // This try counts as a failure from the start, so tries arriving together see each other and no
  // more than loginMaxFailures of them reach the password check; success takes it back.
  const attempt = await repo.recordFailures(db, keys);
  const counts = await repo.countFailuresSince(db, keys, since);
  const blocked = keys.find((k) => (counts.get(k) ?? 0) > config.loginMaxFailures);
  if (blocked) {
    await repo.deleteFailures(db, attempt);
    const oldest = await repo.oldestFailureSince(db, blocked, since);
    const retryAfter = Math.max(
      1,
      Math.ceil(((oldest?.getTime() ?? Date.now()) + config.loginWindowSeconds * 1000 - Date.now()) / 1000),
    );
    throw new DomainError(
      'too_many_requests',
      `Too many failed sign-in attempts. Try again in ${Math.ceil(retryAfter / 60)} minute(s).`,
      {
        retryAfterSeconds: retryAfter,
      },
    );
  }
  const user = await accounts.findUserByEmail(db, input.email.trim());
  const ok = await verifyOrWaste(user?.password_hash ?? null, input.password);
  if (!user || !ok) throw new DomainError('invalid_credentials', 'Email or password is incorrect');
  await repo.clearFailures(db, emailKey);
  await repo.deleteFailures(db, attempt);
  return user.id;
}

/** Removes expired sessions and old failure records; run periodically. */
export async function pruneAuthTables(ctx: AppContext): Promise<void> {
  await repo.deleteExpiredSessions(ctx.db);
  await repo.pruneFailures(ctx.db, new Date(Date.now() - ctx.config.loginWindowSeconds * 1000));
}

// ---- parent-platform challenge ------------------------------------------------------------

export const CHALLENGE_TTL_SECONDS = 600;

/** Starts a challenge: returns the nonce (for the browser cookie) and the parent platform URL to visit. */
export async function initiateChallenge(
  ctx: AppContext,
  input: { installUrl: string; redirect: string | null },
): Promise<{ nonce: string; redirectUrl: string }> {
  const parent = ctx.config.parentPlatformUrl;
  if (!parent) throw new DomainError('not_found', 'Sign-in through a parent platform is not configured');
  let install: URL;
  try {
    install = new URL(input.installUrl);
  } catch {
    throw new DomainError('validation_failed', 'installUrl is not a URL');
  }
  if (install.origin !== new URL(parent).origin)
    throw new DomainError('forbidden', 'installUrl is not the configured parent platform');
  const nonce = randomToken(24);
  await repo.insertChallenge(ctx.db, {
    nonce_hash: sha256(nonce),
    redirect: input.redirect,
    expires_at: new Date(Date.now() + CHALLENGE_TTL_SECONDS * 1000),
  });
  const url = new URL(`${parent}/transact/authorize`);
  url.searchParams.set('challenge', nonce);
  url.searchParams.set('callback', `${ctx.config.publicUrl}/v1/auth/callback`);
  return { nonce, redirectUrl: url.toString() };
}

const yesNo = z.union([z.boolean(), z.enum(['yes', 'no'])]).transform((v) => v === true || v === 'yes');

/** The claims a parent platform's assertion carries. */
export const assertionClaims = z.object({
  nonce: z.string().min(1),
  enterprise: z.object({
    id: z.union([z.string(), z.number()]).transform(String),
    name: z.string().min(1).max(200),
    header_colour: z
      .string()
      .regex(/^#[0-9a-f]{3,8}$/i)
      .optional(),
    logo: z.url().nullable().optional(),
    pmailer_url: z.url().nullable().optional(),
    sms_enabled: yesNo.optional(),
  }),
  customer: z.object({
    id: z.union([z.string(), z.number()]).transform(String),
    name: z.string().min(1).max(200),
    is_reseller: yesNo.optional(),
  }),
  user: z.object({
    id: z.union([z.string(), z.number()]).transform(String),
    email: z.email(),
    name: z.string().min(1).max(200),
    profile_picture: z.url().nullable().optional(),
    permissions: z.partialRecord(z.enum(PERMISSIONS), yesNo).optional(),
  }),
});
export type AssertionClaims = z.infer<typeof assertionClaims>;

/**
 * Verifies a parent-platform assertion (HS256 with the shared secret, issuer = the platform, audience
 * = us, at most 5 minutes old), checks it answers this browser's challenge, upserts the accounts and
 * returns the user id and the redirect stored with the challenge.
 */
export async function completeChallenge(
  ctx: AppContext,
  assertion: string,
  browserNonce: string | undefined,
): Promise<{ userId: number; redirect: string | null }> {
  const { parentPlatformUrl, parentPlatformSecret, publicUrl } = ctx.config;
  if (!parentPlatformUrl || !parentPlatformSecret)
    throw new DomainError('not_found', 'Sign-in through a parent platform is not configured');
  let payload: unknown;
  const { jwtVerify } = await import('jose'); // only this sign-in reads a JWT
  try {
    ({ payload } = await jwtVerify(assertion, new TextEncoder().encode(parentPlatformSecret), {
      algorithms: ['HS256'],
      issuer: parentPlatformUrl,
      audience: publicUrl,
      maxTokenAge: '5m',
    }));
  } catch (err) {
    throw new DomainError('unauthorized', `The sign-in assertion is not valid (${(err as Error).message})`);
  }
  const parsed = assertionClaims.safeParse(payload);
  if (!parsed.success) throw new DomainError('unauthorized', 'The sign-in assertion lacks required claims');
  const claims = parsed.data;
  if (!browserNonce || browserNonce !== claims.nonce)
    throw new DomainError('unauthorized', 'The sign-in assertion does not answer this browser’s challenge');
  const challenge = await repo.takeChallenge(ctx.db, sha256(claims.nonce));
  if (!challenge) throw new DomainError('unauthorized', 'The sign-in challenge has expired or was already used');
  const userId = await inTransaction(ctx.db, (trx) => upsertFromAssertion(ctx, trx, claims));
  return { userId, redirect: challenge.redirect };
}

async function upsertFromAssertion(ctx: AppContext, db: Database, claims: AssertionClaims): Promise<number> {
  const e = claims.enterprise;
  const enterpriseValues = {
    name: e.name,
    ...(e.header_colour ? { header_colour: e.header_colour } : {}),
    ...(e.logo !== undefined ? { logo_url: e.logo } : {}),
    ...(e.pmailer_url !== undefined ? { parent_url: e.pmailer_url } : {}),
    ...(e.sms_enabled !== undefined ? { sms_enabled: e.sms_enabled } : {}),
  };
  const enterpriseId = await accounts.upsertEnterpriseByExternalId(db, e.id, enterpriseValues);
  const c = claims.customer;
  const customerId = await accounts.upsertCustomerByExternalId(db, c.id, {
    name: c.name,
    enterprise_id: enterpriseId,
    ...(c.is_reseller !== undefined ? { is_reseller: c.is_reseller } : {}),
  });
  await ensureCredentials(ctx, db, customerId);
  const u = claims.user;
  const granted = PERMISSIONS.filter((p) => (u.permissions?.[p] ?? p === 'send_transactions') === true) as Permission[];
  const userValues = {
    customer_id: customerId,
    email: u.email,
    name: u.name,
    picture_url: u.profile_picture ?? null,
    ...permissionColumns(granted),
  };
  const existing = await accounts.findByExternalId(db, 'users', u.id);
  if (existing) {
    await accounts.updateUser(db, existing.id, userValues);
    return existing.id;
  }
  const sameEmail = await accounts.findUserByEmail(db, u.email);
  if (sameEmail) throw new DomainError('conflict', `A different account already uses ${u.email}`);
  const user = await accounts.insertUser(db, { ...userValues, external_id: u.id });
  return user.id;
}
