// Rows of online attachments (migration 011): download links, their files, the customer's branding.
// Every query that takes an id from a request also takes the customer, so another account's id
// finds nothing.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { deleteCustomerRow } from '../db/customer-row.ts';
import { hasRow } from '../db/has-row.ts';
import type { BrandingSettings } from '../db/schema.ts';

export interface GroupRow {
  id: number;
  customer_id: number;
  public_id: string;
  integration_id: string;
  name: string;
  expires_at: Date | null;
  access_limit: number;
  downloads: number;
  created_at: Date;
}

export interface AssetRow {
  id: number;
  group_id: number;
  name: string;
  content_type: string;
  size: number;
  storage_key: string;
  created_at: Date;
}

const GROUP_COLUMNS = [
  'id',
  'customer_id',
  'public_id',
  'integration_id',
  'name',
  'expires_at',
  'access_limit',
  'downloads',
  'created_at',
] as const;
const ASSET_COLUMNS = ['id', 'group_id', 'name', 'content_type', 'size', 'storage_key', 'created_at'] as const;

export async function insertGroup(
  db: Database,
  row: Omit<GroupRow, 'id' | 'downloads' | 'created_at'>,
): Promise<GroupRow> {
  return db
    .insertInto('attachment_groups')
    .values(row)
    .returning(GROUP_COLUMNS)
    .executeTakeFirstOrThrow() as Promise<GroupRow>;
}

/** The group matching every column given; an id from a request always comes with its customer. */
async function findGroupBy(
  db: Database,
  match: { customer_id?: number; id?: number; public_id?: string; integration_id?: string },
): Promise<GroupRow | undefined> {
  return db
    .selectFrom('attachment_groups')
    .select(GROUP_COLUMNS)
    .where((eb) => eb.and(match))
    .executeTakeFirst() as Promise<GroupRow | undefined>;
}

export async function findGroup(db: Database, customerId: number, id: number): Promise<GroupRow | undefined> {
  return findGroupBy(db, { customer_id: customerId, id });
}

export async function findGroupByPublicId(db: Database, publicId: string): Promise<GroupRow | undefined> {
  return findGroupBy(db, { public_id: publicId });
}

export async function findGroupByIntegrationId(
  db: Database,
  customerId: number,
  integrationId: string,
): Promise<GroupRow | undefined> {
  return findGroupBy(db, { customer_id: customerId, integration_id: integrationId });
}

export async function updateGroup(
  db: Database,
  customerId: number,
  id: number,
  changes: { name?: string; expires_at?: Date | null; access_limit?: number },
): Promise<GroupRow | undefined> {
  if (Object.keys(changes).length === 0) return findGroup(db, customerId, id);
  return db
    .updateTable('attachment_groups')
    .set(changes)
    .where('customer_id', '=', customerId)
    .where('id', '=', id)
    .returning(GROUP_COLUMNS)
    .executeTakeFirst() as Promise<GroupRow | undefined>;
}

export function deleteGroup(db: Database, customerId: number, id: number): Promise<boolean> {
  return deleteCustomerRow(db, 'attachment_groups', customerId, 'id', id);
}

/** One page of the customer's links, newest first, with their file counts; `name` filters by substring. */
export async function listGroups(
  db: Database,
  customerId: number,
  opts: { name: string; limit: number; offset: number },
): Promise<{ rows: (GroupRow & { asset_count: number })[]; total: number }> {
  let query = db.selectFrom('attachment_groups').where('customer_id', '=', customerId);
  if (opts.name) query = query.where(sql<boolean>`position(lower(${opts.name}) in lower(name)) > 0`);
  const [rows, count] = await Promise.all([
    query
      .select(GROUP_COLUMNS.map((c) => `attachment_groups.${c}` as const))
      .select((eb) =>
        eb
          .selectFrom('attachment_assets')
          .whereRef('attachment_assets.group_id', '=', 'attachment_groups.id')
          .select(eb.fn.countAll<number>().as('n'))
          .as('asset_count'),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit)
      .offset(opts.offset)
      .execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((r) => ({ ...(r as GroupRow), asset_count: Number(r.asset_count ?? 0) })),
    total: Number(count.n),
  };
}

export async function insertAsset(
  db: Database,
  row: Omit<AssetRow, 'id' | 'created_at'> & { customer_id: number },
): Promise<AssetRow> {
  return db
    .insertInto('attachment_assets')
    .values(row)
    .returning(ASSET_COLUMNS)
    .executeTakeFirstOrThrow() as Promise<AssetRow>;
}

export async function listAssets(db: Database, groupIds: number[]): Promise<AssetRow[]> {
  if (groupIds.length === 0) return [];
  return db
    .selectFrom('attachment_assets')
    .select(ASSET_COLUMNS)
    .where('group_id', 'in', groupIds)
    .orderBy('id')
    .execute() as Promise<AssetRow[]>;
}

export async function findAsset(db: Database, groupId: number, assetId: number): Promise<AssetRow | undefined> {
  return db
    .selectFrom('attachment_assets')
    .select(ASSET_COLUMNS)
    .where('group_id', '=', groupId)
    .where('id', '=', assetId)
    .executeTakeFirst() as Promise<AssetRow | undefined>;
}

export async function deleteAsset(
  db: Database,
  customerId: number,
  groupId: number,
  assetId: number,
): Promise<AssetRow | undefined> {
  return db
    .deleteFrom('attachment_assets')
    .where('customer_id', '=', customerId)
    .where('group_id', '=', groupId)
    .where('id', '=', assetId)
    .returning(ASSET_COLUMNS)
    .executeTakeFirst() as Promise<AssetRow | undefined>;
}

/** Every storage key a row refers to (assets and logos), for the sweep. */
export async function knownKeys(db: Database, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const [assets, logos] = await Promise.all([
    db.selectFrom('attachment_assets').select('storage_key as key').where('storage_key', 'in', keys).execute(),
    db.selectFrom('attachment_branding').select('logo_key as key').where('logo_key', 'in', keys).execute(),
  ]);
  return new Set([...assets, ...logos].map((r) => r.key as string));
}

/**
 * Counts one download if the link is live (not expired, limit not reached) in one statement, so
 * two downloads racing for the last slot cannot both pass: the row lock serialises them and the
 * second sees the first one's count. Answers the new count, or undefined when refused.
 */
export async function claimDownload(db: Database, groupId: number, now: Date): Promise<number | undefined> {
  const row = await db
    .updateTable('attachment_groups')
    .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
    .where('id', '=', groupId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .where((eb) => eb.or([eb('access_limit', '=', 0), eb('downloads', '<', eb.ref('access_limit'))]))
    .returning('downloads')
    .executeTakeFirst();
  return row?.downloads;
}

/**
 * How long after a counted download its client may resume that file uncounted (a ranged request
 * that does not start at byte 0 continues a download and does not count again). A day
 * covers a large file on a slow or interrupted connection; past it a ranged request counts anew.
 * The worker purges older rows hourly (purgeDownloads).
 */
export const RESUME_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Records a counted download; call in the transaction of claimDownload so both commit or neither. */
export async function recordDownload(
  db: Database,
  row: { group_id: number; asset_id: number; client: string; at: Date },
): Promise<void> {
  await db.insertInto('attachment_downloads').values(row).execute();
}

/** True when `client` has a download of this file on this link counted within the resume window. */
export async function hasRecentDownload(
  db: Database,
  groupId: number,
  assetId: number,
  client: string,
  now: Date,
): Promise<boolean> {
  return hasRow(
    db
      .selectFrom('attachment_downloads')
      .select('id')
      .where('group_id', '=', groupId)
      .where('asset_id', '=', assetId)
      .where('client', '=', client)
      .where('at', '>', new Date(now.getTime() - RESUME_WINDOW_MS)),
  );
}

/** Removes download records past the resume window (the worker's hourly sweep); answers how many. */
export async function purgeDownloads(db: Database, now = new Date()): Promise<number> {
  const res = await db
    .deleteFrom('attachment_downloads')
    .where('at', '<=', new Date(now.getTime() - RESUME_WINDOW_MS))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export interface BrandingRow {
  settings: BrandingSettings;
  logo_key: string | null;
  logo_name: string | null;
  logo_type: string | null;
}

export async function findBranding(db: Database, customerId: number): Promise<BrandingRow | undefined> {
  return db
    .selectFrom('attachment_branding')
    .select(['settings', 'logo_key', 'logo_name', 'logo_type'])
    .where('customer_id', '=', customerId)
    .executeTakeFirst() as Promise<BrandingRow | undefined>;
}

/** Locks the customer's branding row (FOR UPDATE) and answers its logo key, so the replaced logo is the one read. */
async function lockBranding(db: Database, customerId: number): Promise<{ logo_key: string | null } | undefined> {
  return db
    .selectFrom('attachment_branding')
    .select('logo_key')
    .where('customer_id', '=', customerId)
    .forUpdate()
    .executeTakeFirst();
}

/** Saves the settings, and the logo when one is given; answers the logo key it replaced. */
export async function saveBranding(
  db: Database,
  customerId: number,
  settings: BrandingSettings,
  logo: { key: string; name: string; type: string } | null,
): Promise<string | null> {
  const before = await lockBranding(db, customerId);
  const values = {
    settings: JSON.stringify(settings),
    ...(logo ? { logo_key: logo.key, logo_name: logo.name, logo_type: logo.type } : {}),
    updated_at: new Date(),
  };
  await db
    .insertInto('attachment_branding')
    .values({ customer_id: customerId, ...values })
    .onConflict((oc) => oc.column('customer_id').doUpdateSet(values))
    .execute();
  return logo && before?.logo_key ? before.logo_key : null;
}

export async function clearLogo(db: Database, customerId: number): Promise<string | null> {
  const before = await lockBranding(db, customerId);
  if (!before?.logo_key) return null;
  await db
    .updateTable('attachment_branding')
    .set({ logo_key: null, logo_name: null, logo_type: null, updated_at: new Date() })
    .where('customer_id', '=', customerId)
    .execute();
  return before.logo_key;
}

/** The customer's transaction `uuid` names (what a download event needs of it), or undefined. */
export async function findTransaction(db: Database, customerId: number, uuid: string) {
  return db
    .selectFrom('transactions')
    .select(['id', 'customer_id', 'group_id'])
    .where('uuid', '=', uuid)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
}
