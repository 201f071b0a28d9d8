// The recipients' side of online attachments (routes in public.routes.ts): finding a
// link by its public id, its branding and files, and counting a download against its access limit.
import type { AppContext } from '../core/context.ts';
import { inTransaction } from '../core/transaction.ts';
import { recordDownload } from '../lifecycle/lifecycle.service.ts';
import * as repo from './attachments.repository.ts';
import { findCustomer } from '../accounts/accounts.repository.ts';

const PUBLIC_ID = /^[A-Za-z0-9_-]{22}$/;

export interface PublicFile {
  id: number;
  name: string;
  size: number;
}

/** The link a public id names, or undefined (malformed or unknown). */
export function findPublicGroup(ctx: AppContext, publicId: string): Promise<repo.GroupRow | undefined> {
  return PUBLIC_ID.test(publicId) ? repo.findGroupByPublicId(ctx.db, publicId) : Promise.resolve(undefined);
}

/** The link's customer's branding row, or undefined (the defaults apply). */
export function publicBranding(ctx: AppContext, group: repo.GroupRow): Promise<repo.BrandingRow | undefined> {
  return repo.findBranding(ctx.db, group.customer_id);
}

/** Who shares the link, as its page names them: the account's name. */
export async function publicSender(ctx: AppContext, group: repo.GroupRow): Promise<string | null> {
  return (await findCustomer(ctx.db, group.customer_id))?.name ?? null;
}

/** The files of a link as its page lists them. */
export async function publicFiles(ctx: AppContext, group: repo.GroupRow): Promise<PublicFile[]> {
  const assets = await repo.listAssets(ctx.db, [group.id]);
  return assets.map((a) => ({ id: Number(a.id), name: a.name, size: Number(a.size) }));
}

/** One file of the link by the id in its address, or undefined (malformed or not this link's). */
export async function findPublicAsset(ctx: AppContext, group: repo.GroupRow, assetId: string) {
  return /^\d{1,15}$/.test(assetId) ? repo.findAsset(ctx.db, group.id, Number(assetId)) : undefined;
}

/** True when this client has a recent counted download of the file on this link (a resume is then not counted). */
export function hasRecentDownload(
  ctx: AppContext,
  group: repo.GroupRow,
  asset: repo.AssetRow,
  client: string,
  now: Date,
): Promise<boolean> {
  return repo.hasRecentDownload(ctx.db, group.id, asset.id, client, now);
}

/**
 * Counts one download against the link's access limit and records it, with a `download` event on
 * the recipient's transaction when the link came in a mail; false when the link has no download
 * left (expired or used up). One database transaction: the event is recorded with the count.
 */
export function countDownload(
  ctx: AppContext,
  group: repo.GroupRow,
  asset: repo.AssetRow,
  download: { client: string; transactionUuid: string | undefined; now: Date },
): Promise<boolean> {
  const { client, transactionUuid, now } = download;
  return inTransaction(ctx.db, async (trx) => {
    // the conditional UPDATE alone decides whether this download may be counted
    const n = await repo.claimDownload(trx, group.id, now);
    if (n === undefined) return false;
    await repo.recordDownload(trx, { group_id: group.id, asset_id: asset.id, client, at: now });
    if (transactionUuid) {
      const tx = await repo.findTransaction(trx, group.customer_id, transactionUuid);
      if (tx !== undefined)
        await recordDownload(trx, ctx, { tx, at: now, data: { file: asset.name, link: group.name } });
    }
    return true;
  });
}
