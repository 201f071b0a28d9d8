// Sending credentials of a customer (docs/console.md §3 "Get-started data"): an API key (prefix tsk_)
// with a username for Basic auth, and SMTP username/password. Secrets are sealed at rest and shown
// again in the console; lookups use HMAC digests (docs/architecture.md §8, secrets at rest).
import type { AppContext } from '../core/context.ts';
import { randomToken, safeEqual } from '../core/crypto.ts';
import type { Database } from '../db/database.ts';
import type { Secrets } from '../core/secrets.ts';
import * as repo from './credentials.repository.ts';
import { clearLookupCaches, invalidateLookups, lookupCache } from '../core/lookup-cache.ts';
import { inTransaction } from '../core/transaction.ts';

export const API_KEY_PREFIX = 'tsk_';

export interface ApiCredentialsWire {
  username: string;
  apiKey: string;
  url: string;
}

export interface SmtpCredentialsWire {
  host: string;
  port: number;
  username: string;
  password: string;
}

async function createApiKey(db: Database, secrets: Secrets, customerId: number) {
  const apiKey = `${API_KEY_PREFIX}${randomToken(30)}`;
  return repo.insertCredential(db, 'api_keys', {
    customer_id: customerId,
    username: `api-${customerId}-${randomToken(4)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`,
    secret_sealed: secrets.encrypt(apiKey),
    lookup_digest: secrets.digest(apiKey),
  });
}

async function createSmtpCredential(db: Database, secrets: Secrets, customerId: number) {
  const username = `smtp-${customerId}-${randomToken(4)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')}`;
  return repo.insertCredential(db, 'smtp_credentials', {
    customer_id: customerId,
    username,
    secret_sealed: secrets.encrypt(randomToken(18)),
    lookup_digest: secrets.digest(username),
  });
}

/** Creates whichever of the two credentials the customer lacks (idempotent, safe under concurrency). */
export async function ensureCredentials(
  ctx: Pick<AppContext, 'secrets'>,
  db: Database,
  customerId: number,
): Promise<void> {
  const secrets = ctx.secrets;
  const body = async (trx: Database) => {
    await repo.lockCustomerCredentials(trx, customerId);
    if (!(await repo.findActive(trx, 'api_keys', customerId))) await createApiKey(trx, secrets, customerId);
    if (!(await repo.findActive(trx, 'smtp_credentials', customerId)))
      await createSmtpCredential(trx, secrets, customerId);
  };
  // callers creating the customer pass their transaction; the lock then lasts until their commit
  if (db.isTransaction) await body(db);
  else await inTransaction(db, body);
}

/** Replaces both credentials; the old ones stop working at once. */
export async function rotateCredentials(
  ctx: Pick<AppContext, 'config' | 'db' | 'secrets' | 'lookups'>,
  customerId: number,
): Promise<void> {
  const secrets = ctx.secrets;
  await inTransaction(ctx.db, async (trx) => {
    await repo.lockCustomerCredentials(trx, customerId);
    await repo.revokeAll(trx, 'api_keys', customerId);
    await repo.revokeAll(trx, 'smtp_credentials', customerId);
    await createApiKey(trx, secrets, customerId);
    await createSmtpCredential(trx, secrets, customerId);
    await invalidateLookups(ctx, trx);
  });
  clearLookupCaches(ctx); // again after commit: a lookup during the transaction may have re-cached the old key
}

/** The credentials as the console shows them (creating them on first use). */
export async function credentialsForConsole(
  ctx: AppContext,
  customerId: number,
): Promise<{ apiCredentials: ApiCredentialsWire; smtpCredentials: SmtpCredentialsWire }> {
  let api = await repo.findActive(ctx.db, 'api_keys', customerId);
  let smtp = await repo.findActive(ctx.db, 'smtp_credentials', customerId);
  if (!api || !smtp) {
    await ensureCredentials(ctx, ctx.db, customerId);
    api = await repo.findActive(ctx.db, 'api_keys', customerId);
    smtp = await repo.findActive(ctx.db, 'smtp_credentials', customerId);
  }
  const secrets = ctx.secrets;
  return {
    apiCredentials: {
      username: api!.username,
      apiKey: secrets.decrypt(api!.secret_sealed),
      url: `${ctx.config.publicUrl}/v1/mail`,
    },
    smtpCredentials: {
      host: ctx.config.smtpPublicHost ?? new URL(ctx.config.publicUrl).hostname,
      port: ctx.config.smtpPort,
      username: smtp!.username,
      password: secrets.decrypt(smtp!.secret_sealed),
    },
  };
}

/** The customer an API key belongs to, or null (unknown or revoked). With Basic auth the username must match too. */
export async function customerForApiKey(ctx: AppContext, apiKey: string, username?: string): Promise<number | null> {
  if (!apiKey.startsWith(API_KEY_PREFIX) || apiKey.length > 200) return null;
  const digest = ctx.secrets.digest(apiKey);
  const cache = lookupCache<{ customerId: number; username: string }>(ctx, 'api-keys');
  let hit = cache.get(digest);
  if (!hit) {
    const row = await repo.findActiveByDigest(ctx.db, 'api_keys', digest);
    if (!row) return null; // failures are not cached: a new key works at once
    hit = { customerId: row.customer_id, username: row.username };
    cache.set(digest, hit);
  }
  if (username !== undefined && username !== hit.username) return null;
  return hit.customerId;
}

/** The customer an SMTP username/password pair belongs to, or null. */
export async function customerForSmtpLogin(
  ctx: AppContext,
  username: string,
  password: string,
): Promise<number | null> {
  if (username.length > 200 || password.length > 200) return null;
  const secrets = ctx.secrets;
  const row = await repo.findActiveByDigest(ctx.db, 'smtp_credentials', secrets.digest(username));
  if (!row) return null;
  return safeEqual(secrets.decrypt(row.secret_sealed), password) ? row.customer_id : null;
}
