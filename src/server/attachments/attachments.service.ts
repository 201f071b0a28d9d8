// Online attachments (docs/console-reports.md §3–§5, §7): download links ("groups") with files
// ("assets"), expiry and an access limit, the customer's branding of the public page, and the
// downloads themselves. Files stream from the request to storage and from storage to the
// recipient; a blob is written before its row, so a crash in between leaves a blob without a row,
// which sweepOrphanBlobs removes.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { type Readable, Transform, pipeline } from 'node:stream';
import { type GroupInput, brandingInput, groupInput } from '../../contract/templates.ts';
import type { AppContext } from '../core/context.ts';
import type { BrandingSettings } from '../db/schema.ts';
import type { Database } from '../db/database.ts';
import { isStorageFull } from '../db/availability.ts';
import { DomainError } from '../core/errors.ts';
import { check } from '../core/check.ts';
import { TooLargeError } from '../storage/storage.ts';
import { linkState } from '../../lib/attachment-state.ts';
import type { DownloadLink as GroupWire, LinkFile as AssetWire } from '../../contract/templates.ts';
import { sanitizeFileName } from './file-names.ts';
import {
  LOGO_MAX_BYTES,
  LOGO_TOO_LARGE,
  LOGO_TYPES,
  extensionOf,
  sniffImage,
  typeNotAllowed,
} from '../../lib/logo-check.ts';
import type { MultipartFile } from './multipart.ts';
import * as repo from './attachments.repository.ts';
import type { AssetRow, GroupRow } from './attachments.repository.ts';
import { inTransaction } from '../core/transaction.ts';

export const BLOB_PREFIX = 'attachments/';
/**
 * Clocks of browser and server differ a little: the console's picker offers up to a year ahead by
 * the browser's clock, so that bound is this much wider. An expiry in the past has no such leeway.
 */
const CLOCK_SKEW_SECONDS = 60;

/** The API's answers for a link and its files (the contract's types). */
export type { DownloadLink as GroupWire, LinkFile as AssetWire } from '../../contract/templates.ts';

const seconds = (at: Date | null) => (at ? Math.floor(new Date(at).getTime() / 1000) : null);

export function publicLink(ctx: AppContext, publicId: string): string {
  return `${ctx.config.publicUrl}/a/${publicId}`;
}

export function assetToWire(row: AssetRow): AssetWire {
  return { id: Number(row.id), name: row.name, size: Number(row.size), content_type: row.content_type };
}

/** The one row → wire mapping of a link. */
export function groupToWire(
  ctx: AppContext,
  row: GroupRow,
  assets: AssetRow[],
  assetCount = assets.length,
  now = new Date(),
): GroupWire {
  const expiry = seconds(row.expires_at);
  return {
    id: Number(row.id),
    name: row.name,
    created_timestamp: seconds(row.created_at) ?? 0,
    preview_link: publicLink(ctx, row.public_id),
    integration_id: row.integration_id,
    options: { expiry_timestamp: expiry, access_limit: row.access_limit },
    downloads: row.downloads,
    state: linkState({ expiry, accessLimit: row.access_limit, downloads: row.downloads }, now.getTime() / 1000),
    asset_count: assetCount,
    assets: assets.map(assetToWire),
  };
}

// ---- input (the shapes are the contract's: src/contract/templates.ts) ----------------------------

/**
 * docs/console-reports.md §5: the expiry lies after now and within one year from now (0 or null:
 * none). One that is not in the future would make a link that is dead when made, so it is refused
 * as a request that cannot be carried out (422), naming the field; the year is a range (400).
 */
function expiryOf(value: number | null | undefined, now: Date): Date | null {
  if (!value) return null;
  const nowSeconds = now.getTime() / 1000;
  const yearAhead = new Date(now);
  yearAhead.setUTCFullYear(yearAhead.getUTCFullYear() + 1);
  if (value <= nowSeconds)
    throw new DomainError('unprocessable', 'The expiry date must be in the future (options.expiry_timestamp)', {
      details: [{ path: 'options.expiry_timestamp', message: 'must be in the future' }],
    });
  if (value > yearAhead.getTime() / 1000 + CLOCK_SKEW_SECONDS)
    throw new DomainError('validation_failed', 'The expiry date must be within one year from now', {
      details: [{ path: 'options.expiry_timestamp', message: 'more than one year ahead' }],
    });
  return new Date(value * 1000);
}

/**
 * The `group` field's JSON of a new link, checked, its expiry too: the route calls it before it
 * reads a file, so a link that would be refused stores nothing.
 */
export function parseGroupInput(text: string | undefined, now = new Date()): GroupInput {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('invalid_json', 'The group field is not valid JSON');
  }
  const input = check(groupInput, value);
  expiryOf(input.options?.expiry_timestamp, now);
  return input;
}

export function checkGroupInput(value: unknown): GroupInput {
  return check(groupInput, value);
}

const token = () => randomBytes(16).toString('base64url');

// ---- files -----------------------------------------------------------------------------------

const MIME = /^[\w.+-]+\/[\w.+-]+$/;

/** Streams one uploaded file to storage (bounded by ATTACHMENT_MAX_FILE_BYTES); nothing stays on failure. */
async function storeUpload(
  ctx: AppContext,
  file: MultipartFile,
): Promise<{ key: string; name: string; size: number; contentType: string }> {
  if (file.field !== 'asset') {
    file.stream.resume();
    throw new DomainError('validation_failed', `Unexpected file field '${file.field}'; send the file as 'asset'`);
  }
  const key = `${BLOB_PREFIX}${randomUUID()}`;
  const maxBytes = ctx.config.attachmentMaxFileBytes;
  let size: number;
  try {
    ({ size } = await ctx.storage.put(key, file.stream, { maxBytes, contentType: 'application/octet-stream' }));
  } catch (err) {
    if (err instanceof TooLargeError)
      throw new DomainError('payload_too_large', `The file is larger than the limit of ${maxBytes} bytes`);
    // the disk filled up under this file: storage.put has removed what it wrote
    if (isStorageFull(err))
      throw new DomainError(
        'storage_full',
        'The server is out of storage space; the file was not ' +
          'stored. Try again later or ask the operator to free space.',
      );
    throw err;
  }
  if (size === 0) {
    await ctx.storage.delete(key);
    throw new DomainError('validation_failed', 'The file is empty');
  }
  return {
    key,
    name: sanitizeFileName(file.filename),
    size,
    contentType: MIME.test(file.mimeType) ? file.mimeType.toLowerCase() : 'application/octet-stream',
  };
}

export interface Stored {
  key: string;
  name: string;
  size: number;
  contentType: string;
}

export const uploadHandler = (ctx: AppContext) => (file: MultipartFile) => storeUpload(ctx, file);

/** Removes blobs of a request that failed after they were written. */
export async function discard(ctx: AppContext, keys: string[]): Promise<void> {
  await Promise.all(
    keys.map((key) =>
      ctx.storage
        .delete(key)
        .catch((err: Error) => ctx.logger.warn({ err, key }, 'could not remove a blob; the sweep will')),
    ),
  );
}

// ---- groups ----------------------------------------------------------------------------------

/** The rows of stored files under a link, in the order given. */
async function insertAssets(db: Database, customerId: number, groupId: number, files: Stored[]): Promise<AssetRow[]> {
  const rows: AssetRow[] = [];
  for (const f of files)
    rows.push(
      await repo.insertAsset(db, {
        group_id: groupId,
        customer_id: customerId,
        name: f.name,
        content_type: f.contentType,
        size: f.size,
        storage_key: f.key,
      }),
    );
  return rows;
}

export async function createGroup(
  ctx: AppContext,
  customerId: number,
  input: GroupInput,
  files: Stored[],
  now = new Date(),
): Promise<GroupWire> {
  const expires_at = expiryOf(input.options?.expiry_timestamp, now);
  return inTransaction(ctx.db, async (trx) => {
    const group = await repo.insertGroup(trx, {
      customer_id: customerId,
      public_id: token(),
      integration_id: `oa_${randomBytes(9).toString('base64url')}`,
      name: input.name || 'Untitled',
      expires_at,
      access_limit: input.options?.access_limit ?? 0,
    });
    return groupToWire(ctx, group, await insertAssets(trx, customerId, group.id, files));
  });
}

export async function getGroup(ctx: AppContext, customerId: number, id: number): Promise<GroupWire> {
  const group = await repo.findGroup(ctx.db, customerId, id);
  if (!group) throw new DomainError('not_found', 'No such download link');
  return groupToWire(ctx, group, await repo.listAssets(ctx.db, [group.id]));
}

/** PATCH: only the fields given change (docs/console-reports.md §7). */
export async function updateGroup(
  ctx: AppContext,
  customerId: number,
  id: number,
  input: GroupInput,
  now = new Date(),
): Promise<GroupWire> {
  const changes: { name?: string; expires_at?: Date | null; access_limit?: number } = {};
  if (input.name !== undefined) changes.name = input.name || 'Untitled';
  if (input.options && 'expiry_timestamp' in input.options) {
    const current = await repo.findGroup(ctx.db, customerId, id);
    if (!current) throw new DomainError('not_found', 'No such download link');
    // the expiry it already has is kept as it is, so an expired link can still be renamed
    const given = input.options.expiry_timestamp || null;
    if (given !== seconds(current.expires_at)) changes.expires_at = expiryOf(given, now);
  }
  if (input.options?.access_limit !== undefined) changes.access_limit = input.options.access_limit;
  const group = await repo.updateGroup(ctx.db, customerId, id, changes);
  if (!group) throw new DomainError('not_found', 'No such download link');
  return groupToWire(ctx, group, await repo.listAssets(ctx.db, [group.id]));
}

/**
 * Deletes the link and then its blobs (the rows go first, so a failed blob delete leaves an orphan the sweep removes).
 */
export async function deleteGroup(ctx: AppContext, customerId: number, id: number): Promise<void> {
  const keys = await inTransaction(ctx.db, async (trx) => {
    const group = await repo.findGroup(trx, customerId, id);
    if (!group) throw new DomainError('not_found', 'No such download link');
    const assets = await repo.listAssets(trx, [group.id]);
    await repo.deleteGroup(trx, customerId, id);
    return assets.map((a) => a.storage_key);
  });
  await discard(ctx, keys);
}

export async function listGroups(
  ctx: AppContext,
  customerId: number,
  q: { page: number; limit: number; name: string },
) {
  const { rows, total } = await repo.listGroups(ctx.db, customerId, {
    name: q.name,
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
  const assets = await repo.listAssets(
    ctx.db,
    rows.map((r) => r.id),
  );
  const byGroup = new Map<number, AssetRow[]>();
  for (const a of assets) byGroup.set(Number(a.group_id), [...(byGroup.get(Number(a.group_id)) ?? []), a]);
  return {
    data: rows.map((r) => groupToWire(ctx, r, byGroup.get(Number(r.id)) ?? [], r.asset_count)),
    pagination: { page: q.page, limit: q.limit, total, pages: Math.max(1, Math.ceil(total / q.limit)) },
  };
}

export async function addAssets(
  ctx: AppContext,
  customerId: number,
  id: number,
  files: Stored[],
): Promise<AssetWire[]> {
  return inTransaction(ctx.db, async (trx) => {
    const group = await repo.findGroup(trx, customerId, id);
    if (!group) throw new DomainError('not_found', 'No such download link');
    return (await insertAssets(trx, customerId, group.id, files)).map(assetToWire);
  });
}

export async function deleteAsset(
  ctx: AppContext,
  customerId: number,
  groupId: number,
  assetId: number,
): Promise<void> {
  const row = await repo.deleteAsset(ctx.db, customerId, groupId, assetId);
  if (!row) throw new DomainError('not_found', 'No such file');
  await discard(ctx, [row.storage_key]);
}

// ---- branding --------------------------------------------------------------------------------

/** docs/console-reports.md §9: link background white, colour #333333. */
export const DEFAULT_BRANDING: BrandingSettings = {
  page: { colour: '#ffffff', text_colour: '#333333' },
  button: { colour: '#0e78be', text_colour: '#ffffff' }, // white on it: 4.7:1 (WCAG AA)
  link: { colour: '#ffffff', text_colour: '#333333' },
};

export interface BrandingWire extends BrandingSettings {
  logo: { url: string; fileName: string } | null;
}

export async function getBranding(ctx: AppContext, customerId: number): Promise<BrandingWire> {
  const row = await repo.findBranding(ctx.db, customerId);
  return {
    ...(row?.settings ?? DEFAULT_BRANDING),
    logo: row?.logo_key ? { url: '/v1/tracked-attachments/branding/logo', fileName: row.logo_name ?? 'logo' } : null,
  };
}

export interface BrandingLogo {
  type: string;
  body: Readable;
}

/** The customer's logo file and its type, or undefined when there is none (or its file is gone). */
export async function brandingLogo(ctx: AppContext, customerId: number): Promise<BrandingLogo | undefined> {
  const row = await repo.findBranding(ctx.db, customerId);
  const body = row?.logo_key ? await ctx.storage.get(row.logo_key) : undefined;
  if (!row?.logo_type || !body) return undefined;
  return { type: row.logo_type, body };
}

export function parseBrandingInput(text: string | undefined): BrandingSettings {
  let value: unknown;
  try {
    value = JSON.parse(text ?? '');
  } catch {
    throw new DomainError('invalid_json', 'The settings field is not valid JSON');
  }
  return check(brandingInput, value);
}

/** docs/console-reports.md §5: the logo's name must say png, jpg, jpeg or gif, and its bytes must be one. */
export async function storeLogo(
  ctx: AppContext,
  file: MultipartFile,
): Promise<{ key: string; name: string; type: string }> {
  const name = sanitizeFileName(file.filename);
  const ext = extensionOf(name);
  if (!(LOGO_TYPES as readonly string[]).includes(ext)) {
    file.stream.resume();
    throw new DomainError('validation_failed', typeNotAllowed(ext || 'unknown'));
  }
  let head = Buffer.alloc(0);
  let sniffed: { ok: true; mime: string } | { ok: false; type: string } | undefined;
  // checks the magic bytes as they pass, before anything much is written
  const gate = new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (!sniffed) {
        head = Buffer.concat([head, chunk]);
        if (head.length < 64) return done();
        sniffed = sniffImage(head);
        if (!sniffed.ok) return done(new DomainError('validation_failed', typeNotAllowed(sniffed.type)));
        const all = head;
        head = Buffer.alloc(0);
        return done(null, all);
      }
      done(null, chunk);
    },
    flush(done) {
      if (sniffed) return done();
      if (head.length === 0) return done(new DomainError('validation_failed', 'The file is empty'));
      sniffed = sniffImage(head);
      if (!sniffed.ok) return done(new DomainError('validation_failed', typeNotAllowed(sniffed.type)));
      done(null, head);
    },
  });
  const key = `${BLOB_PREFIX}logo-${randomUUID()}`;
  // the gate may refuse before storage starts reading: keep its reason rather than an unhandled error
  let refused: unknown;
  const checked = pipeline(file.stream, gate, (err) => {
    if (err) refused = err;
  });
  try {
    await ctx.storage.put(key, checked, { maxBytes: LOGO_MAX_BYTES - 1 });
  } catch (err) {
    file.stream.resume();
    if (err instanceof TooLargeError) throw new DomainError('payload_too_large', LOGO_TOO_LARGE);
    throw refused instanceof DomainError ? refused : err;
  }
  return { key, name, type: (sniffed as { mime: string }).mime };
}

export async function saveBranding(
  ctx: AppContext,
  customerId: number,
  settings: BrandingSettings,
  logo: { key: string; name: string; type: string } | null,
): Promise<BrandingWire> {
  const replaced = await inTransaction(ctx.db, (trx) => repo.saveBranding(trx, customerId, settings, logo));
  if (replaced) await discard(ctx, [replaced]);
  return getBranding(ctx, customerId);
}

export async function deleteLogo(ctx: AppContext, customerId: number): Promise<void> {
  const key = await inTransaction(ctx.db, (trx) => repo.clearLogo(trx, customerId));
  if (!key) throw new DomainError('not_found', 'There is no logo');
  await discard(ctx, [key]);
}

// ---- recipients' links -----------------------------------------------------------------------

const MAC_CHARS = 22;

function recipientMac(secret: string, transactionUuid: string, publicId: string): string {
  return createHmac('sha256', secret)
    .update(`attachment:${transactionUuid}:${publicId}`)
    .digest('base64url')
    .slice(0, MAC_CHARS);
}

/** The per-recipient link put into mail: the public page with a token naming the transaction. */
export function recipientLink(ctx: AppContext, publicId: string, transactionUuid: string): string {
  const mac = recipientMac(ctx.config.secret!, transactionUuid, publicId);
  return `${publicLink(ctx, publicId)}?r=${transactionUuid}.${mac}`;
}

/** The transaction uuid a recipient token names, or undefined when it is forged or for another link. */
export function recipientOf(ctx: AppContext, publicId: string, value: string | undefined): string | undefined {
  const match = /^([0-9a-f-]{36})\.([A-Za-z0-9_-]{22})$/.exec(value ?? '');
  if (!match) return undefined;
  const expected = Buffer.from(recipientMac(ctx.config.secret!, match[1], publicId));
  const given = Buffer.from(match[2]);
  return expected.length === given.length && timingSafeEqual(expected, given) ? match[1] : undefined;
}

// ---- the sweep -------------------------------------------------------------------------------

/**
 * Removes blobs under attachments/ that no row names and that are older than `graceMs` (an upload
 * in progress writes its blob before its row commits). Answers how many were removed.
 */
export async function sweepOrphanBlobs(ctx: AppContext, graceMs = 60 * 60 * 1000, now = new Date()): Promise<number> {
  let removed = 0;
  let batch: string[] = [];
  const flush = async () => {
    const known = await repo.knownKeys(ctx.db, batch);
    const orphans = batch.filter((k) => !known.has(k));
    await Promise.all(orphans.map((k) => ctx.storage.delete(k)));
    removed += orphans.length;
    batch = [];
  };
  for await (const object of ctx.storage.list(BLOB_PREFIX)) {
    if (now.getTime() - object.modifiedAt.getTime() < graceMs) continue;
    batch.push(object.key);
    if (batch.length >= 500) await flush();
  }
  if (batch.length) await flush();
  return removed;
}

/** The hourly purge of old download records (attachments.repository.ts purgeDownloads says which). */
export function purgeDownloadRecords(ctx: Pick<AppContext, 'db'>): Promise<number> {
  return repo.purgeDownloads(ctx.db);
}
