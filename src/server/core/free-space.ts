// The acceptance floor, as Postfix's queue_minfree: new mail is refused with a
// temporary answer while the disk under DATA_DIR has less than MIN_FREE_SPACE_MB free, so the
// embedded database (and the files beside it) never meet a full disk in the middle of a write.
// Reads, the console and delivery of what is queued go on; acceptance resumes by itself once
// space is freed.
import { statfs } from 'node:fs/promises';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { Reading } from './reading.ts';
import { type DomainError, faultError } from './errors.ts';

const CHECK_TTL_MS = 1000;

/** The context's reading of the bytes free under DATA_DIR (AppContext.freeSpace), asked at most once a second. */
export function freeSpaceReading(config: Pick<Config, 'dataPath'>): Reading<number | null> {
  const read = () =>
    statfs(config.dataPath).then(
      (s) => s.bavail * s.bsize,
      () => null,
    );
  return new Reading(read, CHECK_TTL_MS);
}

/** Bytes free for this process under DATA_DIR (null when unknown, e.g. memory://). */
export function freeBytes(ctx: AppContext): Promise<number | null> {
  if (ctx.config.dataDir === 'memory://') return Promise.resolve(null);
  return ctx.freeSpace.get();
}

/** True while the disk under DATA_DIR is below the floor. */
export async function belowFreeSpaceFloor(ctx: AppContext): Promise<boolean> {
  const floor = ctx.config.minFreeSpaceMb * 1024 * 1024;
  if (floor === 0) return false;
  const free = await freeBytes(ctx);
  return free !== null && free < floor;
}

export function storageFullError(): DomainError {
  return faultError(Object.assign(new Error('below MIN_FREE_SPACE_MB'), { code: 'ENOSPC' }))!;
}

/** Throws 507 storage_full while below the floor. */
export async function requireFreeSpace(ctx: AppContext): Promise<void> {
  if (await belowFreeSpaceFloor(ctx)) throw storageFullError();
}
