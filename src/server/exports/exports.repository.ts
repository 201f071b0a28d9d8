// Report export jobs (migration 009): queued by the console, claimed by the worker role with
// FOR UPDATE SKIP LOCKED and a lease (as the delivery queue, src/server/delivery/queue.repository.ts),
// finished with the CSV's storage key, mailed, and purged after EXPORT_RETENTION_DAYS.
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { ExportsTable } from '../db/schema.ts';
import type { Selectable } from 'kysely';

export type ExportRow = Selectable<ExportsTable>;

/** A row as read, with its bigint ids (strings from the driver) as numbers. */
function exportOf(row: ExportRow): ExportRow {
  return {
    ...row,
    id: Number(row.id),
    customer_id: Number(row.customer_id),
    user_id: Number(row.user_id),
    group_id: Number(row.group_id),
  };
}

export interface NewExport {
  uuid: string;
  customer_id: number;
  user_id: number;
  group_id: number;
  report_type: string;
  range_from: Date;
  range_before: Date;
  search_query: string | null;
  file_name: string;
  expires_at: Date;
}

export async function insertExport(db: Database, job: NewExport): Promise<void> {
  await db.insertInto('exports').values(job).execute();
}

/** Claims the oldest due job for `leaseSeconds`: a crashed worker's job is due again after the lease. */
export async function claimExport(db: Database, leaseSeconds: number): Promise<ExportRow | undefined> {
  const result = await sql<ExportRow>`
    update exports
       set next_attempt_at = now() + make_interval(secs => ${leaseSeconds}),
           locked_until = now() + make_interval(secs => ${leaseSeconds}),
           attempts = attempts + 1
     where id = (
       select id from exports
        where status = 'queued' and next_attempt_at <= now()
        order by next_attempt_at
        limit 1
        for update skip locked)
    returning *`.execute(db);
  const row = result.rows[0];
  return row && exportOf(row);
}

/** Records the finished CSV, if this attempt still holds the job (a lease that ran out lost it). */
export async function completeExport(
  db: Database,
  id: number,
  attempts: number,
  file: { key: string; rows: number; size: number },
): Promise<boolean> {
  const result = await db
    .updateTable('exports')
    .set({
      status: 'ready',
      file_key: file.key,
      row_count: file.rows,
      size_bytes: file.size,
      completed_at: sql<Date>`now()`,
      locked_until: null,
    })
    .where('id', '=', id)
    .where('attempts', '=', attempts)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A failed attempt: tried again after `retrySeconds`, or failed for good after the last attempt. */
export async function failExportAttempt(
  db: Database,
  id: number,
  attempts: number,
  error: string,
  final: boolean,
  retrySeconds: number,
): Promise<void> {
  await db
    .updateTable('exports')
    .set({
      status: final ? 'failed' : 'queued',
      error,
      locked_until: null,
      next_attempt_at: sql<Date>`now() + make_interval(secs => ${retrySeconds})`,
    })
    .where('id', '=', id)
    .where('attempts', '=', attempts)
    .execute();
}

/**
 * Gives a claimed job back at once, its attempt not counted: the worker stopped (a deploy) before
 * the file was written, which says nothing about the job.
 */
export async function releaseExport(db: Database, id: number, attempts: number): Promise<void> {
  await db
    .updateTable('exports')
    .set({ attempts: attempts - 1, locked_until: null, next_attempt_at: sql<Date>`now()` })
    .where('id', '=', id)
    .where('attempts', '=', attempts)
    .where('status', '=', 'queued')
    .execute();
}

export async function markMailed(db: Database, id: number): Promise<void> {
  await db.updateTable('exports').set({ mailed_at: sql<Date>`now()` }).where('id', '=', id).execute();
}

/** Finished jobs whose mail is not queued yet (a worker stopped between the two). */
export async function unmailedExports(db: Database, limit: number): Promise<ExportRow[]> {
  const rows = await db
    .selectFrom('exports')
    .selectAll()
    .where('status', '=', 'ready')
    .where('mailed_at', 'is', null)
    .orderBy('completed_at')
    .limit(limit)
    .execute();
  return rows.map(exportOf);
}

/** The export with this uuid (lower case) in the customer's account. */
export async function findExport(db: Database, customerId: number, uuid: string): Promise<ExportRow | undefined> {
  const row = await db
    .selectFrom('exports')
    .selectAll()
    .where('uuid', '=', uuid)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return row && exportOf(row);
}

/** The requester's address and name, and the group's name, for the mail. */
export async function exportParties(db: Database, job: Pick<ExportRow, 'user_id' | 'group_id'>) {
  const user = await db.selectFrom('users').select(['email', 'name']).where('id', '=', job.user_id).executeTakeFirst();
  const group = await db
    .selectFrom('transaction_groups')
    .select(['name'])
    .where('id', '=', job.group_id)
    .executeTakeFirst();
  return { user, groupName: group?.name ?? '' };
}

/**
 * Locks up to `limit` expired jobs, skipping any another worker holds; run inside the transaction
 * that deletes them (exports.service.ts purgeExpiredExports).
 */
export function lockExpired(db: Database, now: Date, limit: number) {
  return db
    .selectFrom('exports')
    .select(['id', 'file_key'])
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

export async function deleteExports(db: Database, ids: number[]): Promise<void> {
  if (ids.length > 0) await db.deleteFrom('exports').where('id', 'in', ids).execute();
}
