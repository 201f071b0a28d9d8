// Named API keys beside the account's one key (docs/architecture.md §7 "API keys"): created with a
// name, a permission and optionally a domain; the token (prefix tsn_) is answered once and only its
// SHA-256 is stored. A token resolves to a grant: its customer, what it may do and the domain it may
// send from. Lookups are cached 5 s per process and cleared on delete here and, on PostgreSQL, in
// every process (core/lookup-cache.ts), so a deleted key is refused at once.
import { randomUUID } from 'node:crypto';
import { domainOf } from '../core/addresses.ts';
import type { AppContext } from '../core/context.ts';
import { randomToken, sha256 } from '../core/crypto.ts';
import { DomainError } from '../core/errors.ts';
import { clearLookupCaches, invalidateLookups, lookupCache } from '../core/lookup-cache.ts';
import { inTransaction } from '../core/transaction.ts';
import type { ApiKeyPermission } from '../db/schema.ts';
import * as repo from './api-keys.repository.ts';
import { customerForApiKey, customerForSmtpLogin } from './credentials.service.ts';

/** Named keys start with this; the account's key with API_KEY_PREFIX (tsk_). */
export const NAMED_KEY_PREFIX = 'tsn_';
/** How many named keys an account may hold (the list answers them all, without pages). */
export const MAX_API_KEYS = 100;
const CACHE_TTL_MS = 5_000;
const TOUCH_EVERY_SECONDS = 60;

/** What a caller's key allows: the account's key and full_access keys everything, sending_access only sending. */
export interface KeyGrant {
  customerId: number;
  /** The named key's id; null for the account's key (or its SMTP login). */
  keyId: string | null;
  permission: ApiKeyPermission;
  /** The only From domain a sending_access key may use, or null for any of the account's. */
  domain: string | null;
}

export interface ApiKeyWire {
  id: string;
  name: string;
  permission: ApiKeyPermission;
  domain_id: number | null;
  domain: string | null;
  /** The token's first characters, to tell keys apart. */
  token_prefix: string;
  created_at: string;
  last_used_at: string | null;
}

/** Creates a key and answers its token, the only time it is ever shown. */
export async function createApiKey(
  ctx: AppContext,
  customerId: number,
  input: { name: string; permission?: ApiKeyPermission; domainId?: number | null },
): Promise<{ id: string; token: string }> {
  const permission = input.permission ?? 'full_access';
  const domainId = input.domainId ?? null;
  await checkDomain(ctx, customerId, permission, domainId);
  if ((await repo.listApiKeys(ctx.db, customerId)).length >= MAX_API_KEYS)
    throw new DomainError('unprocessable', `An account holds at most ${MAX_API_KEYS} API keys; delete one first`);
  const token = `${NAMED_KEY_PREFIX}${randomToken(32)}`;
  const row = await repo.insertApiKey(ctx.db, {
    id: randomUUID(),
    customer_id: customerId,
    name: input.name.trim(),
    permission,
    domain_id: domainId,
    token_hash: sha256(token),
    token_prefix: token.slice(0, NAMED_KEY_PREFIX.length + 6),
  });
  return { id: row.id, token };
}

/** A key's domain must be the account's, and only a sending_access key has one. */
async function checkDomain(
  ctx: AppContext,
  customerId: number,
  permission: ApiKeyPermission,
  domainId: number | null,
): Promise<void> {
  if (domainId !== null && permission !== 'sending_access')
    throw new DomainError('validation_failed', 'Invalid request: domain_id: only a sending_access key has a domain', {
      details: [{ path: 'domain_id', message: 'only a sending_access key has a domain' }],
    });
  if (domainId !== null && !(await repo.findCustomerDomainById(ctx.db, customerId, domainId)))
    throw new DomainError('not_found', 'No such domain in this account');
}

/**
 * Renames a key or changes its permission or domain (`id` a uuid, as the contract parses it); a
 * key made full_access loses its domain. Refused or allowed accordingly from now on, here and in
 * every other process, as a deleted key is.
 */
export async function updateApiKey(
  ctx: AppContext,
  customerId: number,
  id: string,
  input: { name?: string; permission?: ApiKeyPermission; domainId?: number | null },
): Promise<void> {
  const key = await repo.findApiKey(ctx.db, customerId, id);
  if (!key) throw new DomainError('not_found', 'No such API key');
  const permission = input.permission ?? key.permission;
  const current = key.domain_id === null ? null : Number(key.domain_id);
  const domainId = input.domainId !== undefined ? input.domainId : permission === 'full_access' ? null : current;
  await checkDomain(ctx, customerId, permission, domainId);
  await inTransaction(ctx.db, async (trx) => {
    const name = input.name === undefined ? {} : { name: input.name.trim() };
    await repo.updateApiKey(trx, customerId, id, { ...name, permission, domain_id: domainId });
    await invalidateLookups(ctx, trx);
  });
  clearLookupCaches(ctx); // again after commit, as on delete
}

/**
 * A cursor page of the customer's keys, newest first, as Resend's lists page. An account holds at
 * most MAX_API_KEYS, so the page is cut from the whole list; a cursor that names none of its keys is 404.
 */
export async function pageOfApiKeys(
  ctx: AppContext,
  customerId: number,
  query: { limit: number; after?: string; before?: string },
): Promise<{ has_more: boolean; data: ApiKeyWire[] }> {
  const keys = await listApiKeys(ctx, customerId);
  const cursor = query.after ?? query.before;
  if (cursor === undefined) return { has_more: keys.length > query.limit, data: keys.slice(0, query.limit) };
  const at = keys.findIndex((k) => k.id === cursor);
  if (at < 0) throw new DomainError('not_found', 'No API key with this id in this account (the cursor)');
  if (query.after !== undefined) {
    const end = at + 1 + query.limit;
    return { has_more: end < keys.length, data: keys.slice(at + 1, end) };
  }
  const start = Math.max(0, at - query.limit);
  return { has_more: start > 0, data: keys.slice(start, at) };
}

/** The customer's keys, newest first; never a token. */
export async function listApiKeys(ctx: AppContext, customerId: number): Promise<ApiKeyWire[]> {
  const rows = await repo.listApiKeys(ctx.db, customerId);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    permission: r.permission,
    domain_id: r.domain_id === null ? null : Number(r.domain_id),
    domain: r.domain,
    token_prefix: r.token_prefix,
    created_at: new Date(r.created_at).toISOString(),
    last_used_at: r.last_used_at ? new Date(r.last_used_at).toISOString() : null,
  }));
}

/**
 * Deletes a key (`id` a uuid, as the contract parses it): refused from now on, here and (through
 * NOTIFY, or within 5 s) in every other process.
 */
export async function deleteApiKey(ctx: AppContext, customerId: number, id: string): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    if (!(await repo.deleteApiKey(trx, customerId, id))) throw new DomainError('not_found', 'No such API key');
    await invalidateLookups(ctx, trx);
  });
  clearLookupCaches(ctx); // again after commit: a lookup during the transaction may have cached the key
}

type CachedKey = Omit<KeyGrant, 'keyId'> & { keyId: string };

/** The grant of a named key's token, or null (not one, or unknown: deleted keys are unknown). */
export async function grantForNamedKey(ctx: AppContext, token: string): Promise<KeyGrant | null> {
  if (!token.startsWith(NAMED_KEY_PREFIX) || token.length > 200) return null;
  const hash = sha256(token);
  const cache = lookupCache<CachedKey>(ctx, 'named-api-keys', CACHE_TTL_MS);
  let hit = cache.get(hash);
  if (!hit) {
    const row = await repo.findByTokenHash(ctx.db, hash);
    if (!row) return null; // failures are not cached: a new key works at once
    hit = { customerId: Number(row.customer_id), keyId: row.id, permission: row.permission, domain: row.domain };
    cache.set(hash, hit);
  }
  await touch(ctx, hit.keyId);
  return hit;
}

/** Records that a key was used: at most once a minute per key and process (and per key in the table). */
async function touch(ctx: AppContext, keyId: string): Promise<void> {
  const times = ctx.apiKeyTouches;
  const now = Date.now();
  if (now - (times.get(keyId) ?? 0) < TOUCH_EVERY_SECONDS * 1000) return;
  if (times.size >= 10_000) times.clear();
  times.set(keyId, now);
  try {
    await repo.touchLastUsed(ctx.db, keyId, TOUCH_EVERY_SECONDS);
  } catch (err) {
    ctx.logger.warn({ err, keyId }, 'could not record an API key’s last use');
  }
}

/**
 * The grant of an API key given over HTTP: a named key's token, or the account's key (with Basic
 * auth its username must match; a named key takes any username).
 */
export async function grantForApiKey(ctx: AppContext, apiKey: string, username?: string): Promise<KeyGrant | null> {
  if (apiKey.startsWith(NAMED_KEY_PREFIX)) return grantForNamedKey(ctx, apiKey);
  const customerId = await customerForApiKey(ctx, apiKey, username);
  return customerId === null ? null : { customerId, keyId: null, permission: 'full_access', domain: null };
}

/** The grant of an SMTP login: any username with a named key's token as password, or the SMTP credentials. */
export async function grantForSmtpLogin(ctx: AppContext, username: string, password: string): Promise<KeyGrant | null> {
  if (password.startsWith(NAMED_KEY_PREFIX)) {
    const grant = await grantForNamedKey(ctx, password);
    if (grant) return grant;
  }
  const customerId = await customerForSmtpLogin(ctx, username, password);
  return customerId === null ? null : { customerId, keyId: null, permission: 'full_access', domain: null };
}

/** Refuses (403) a call other than sending made with a sending_access key. */
export function requireFullAccess(grant: KeyGrant): void {
  if (grant.permission !== 'full_access')
    throw new DomainError('forbidden', 'This API key may only send email (sending_access)');
}

/** Refuses (403) a From address outside the domain a sending_access key is limited to. */
export function requireSendableFrom(grant: KeyGrant, fromEmail: string): void {
  if (grant.domain !== null && domainOf(fromEmail).toLowerCase() !== grant.domain.toLowerCase())
    throw new DomainError('forbidden', `This API key may only send from ${grant.domain}`);
}
