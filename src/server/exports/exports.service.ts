// Report exports (docs/console-reports.md §2 Export page, §7, §8). The console queues a job; the
// worker role claims it, streams the CSV from the database into ctx.storage, and mails the
// requester a link to /export/{uuid} through our own pipeline as the system sender (like the domain
// verification mail). The export page asks for the file name and a download token (short-lived,
// bound to the user and the export by an HMAC under TRANSACT_SECRET), then downloads it. Jobs and
// files are deleted after EXPORT_RETENTION_DAYS.
import { createHmac, randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { PassThrough, type Readable } from 'node:stream';
import type { AppContext } from '../core/context.ts';
import { safeEqual } from '../core/crypto.ts';
import { systemSender } from '../domains/system-sender.ts';
import { DomainError } from '../core/errors.ts';
import type { GroupReportType } from '../../contract/values.ts';
import { type ReportRange, groupOf } from '../reports/group-reports.service.ts';
import { transactionFilter } from '../reports/transactions.service.ts';
import { IdempotencyReplay, accept, prepare } from '../sending/sending.service.ts';
import type { Submission } from '../sending/mail.schema.ts';
import { ClaimLoop } from '../db/claim-loop.ts';
import * as repo from './exports.repository.ts';
import { inTransaction } from '../core/transaction.ts';
import { exportRows, reportCsv } from './report-csv.ts';

/** How long a download token works (the export page asks for a new one each time it opens). */
export const DOWNLOAD_TOKEN_SECONDS = 600;
/** A claimed job stays with its worker this long; a crashed worker's job is claimed again after it. */
export const EXPORT_LEASE_SECONDS = 1_800;
/** Attempts before a job is given up (failed). */
export const EXPORT_MAX_ATTEMPTS = 3;
const RETRY_SECONDS = 60;
const STORAGE_PREFIX = 'exports';

export interface ExportRequest {
  groupUuid: string | undefined;
  reportType: GroupReportType;
  range: ReportRange;
  text: string | null;
}

/** A file name for the CSV: the group, the report and the days, in characters any system takes. */
export function exportFileName(
  groupName: string,
  reportType: GroupReportType,
  range: Pick<ReportRange, 'firstDay' | 'lastDay'>,
): string {
  const group =
    groupName
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'group';
  return `${group}-${reportType}-${range.firstDay}-to-${range.lastDay}.csv`;
}

/** POST v1/transaction-groups/reports/export: stores the job (checked like the report call) and answers its uuid. */
export async function queueExport(
  ctx: AppContext,
  session: { customerId: number; userId: number },
  request: ExportRequest,
  now = new Date(),
): Promise<{ uuid: string }> {
  const group = await groupOf(ctx, session.customerId, request.groupUuid);
  const uuid = randomUUID();
  await repo.insertExport(ctx.db, {
    uuid,
    customer_id: session.customerId,
    user_id: session.userId,
    group_id: group.id,
    report_type: request.reportType,
    range_from: request.range.from,
    range_before: request.range.before,
    search_query: request.text,
    file_name: exportFileName(group.name, request.reportType, request.range),
    expires_at: new Date(now.getTime() + ctx.config.exportRetentionDays * 86_400_000),
  });
  ctx.logger.info(
    { exportUuid: uuid, customerId: session.customerId, reportType: request.reportType },
    'report export queued',
  );
  return { uuid };
}

function tokenMac(secret: string, uuid: string, userId: number, expires: number): string {
  return createHmac('sha256', secret).update(`export-download\n${uuid}\n${userId}\n${expires}`).digest('base64url');
}

/** A download token for `userId` and the export `uuid`, working until `now` + DOWNLOAD_TOKEN_SECONDS. */
export function downloadToken(secret: string, uuid: string, userId: number, now = new Date()): string {
  const expires = Math.floor(now.getTime() / 1000) + DOWNLOAD_TOKEN_SECONDS;
  return `${expires}.${tokenMac(secret, uuid, userId, expires)}`;
}

/** Whether `token` was made for this user and export and still works. */
export function checkDownloadToken(
  secret: string,
  token: string,
  uuid: string,
  userId: number,
  now = new Date(),
): 'ok' | 'invalid' | 'expired' {
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || !safeEqual(tokenMac(secret, uuid, userId, Number(m[1])), m[2])) return 'invalid';
  return Number(m[1]) * 1000 > now.getTime() ? 'ok' : 'expired';
}

export type ExportView =
  | { status: 200; body: { fileName: string; token: string; state: 'ready'; rows: number; expiresAt: number } }
  | { status: 202; body: { fileName: string; token: null; state: 'queued' } }
  | { status: 204 }
  | { status: 412; body: { error: { code: string; message: string } } };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * POST /v1/transaction-groups/export-view (docs/console-reports.md §2 Export page, §7): 200 with the file
 * name and a download token when the file is ready; 202 (no token) while it is being written; 204
 * for no such export — unknown, expired, or another customer's; 412 for another user's export in
 * the same account. A job that failed for good is 422.
 */
export async function viewExport(
  ctx: AppContext,
  session: { customerId: number; userId: number },
  uuid: string,
  now = new Date(),
): Promise<ExportView> {
  if (!UUID.test(uuid)) return { status: 204 };
  const job = await repo.findExport(ctx.db, session.customerId, uuid.toLowerCase());
  if (!job || job.expires_at <= now) return { status: 204 };
  if (job.user_id !== session.userId) {
    return {
      status: 412,
      body: { error: { code: 'precondition_failed', message: 'This export belongs to another user' } },
    };
  }
  if (job.status === 'failed')
    throw new DomainError('unprocessable', 'This export could not be written. Please export the report again.');
  if (job.status !== 'ready') return { status: 202, body: { fileName: job.file_name, token: null, state: 'queued' } };
  return {
    status: 200,
    body: {
      fileName: job.file_name,
      token: downloadToken(ctx.config.secret!, job.uuid, session.userId, now),
      state: 'ready',
      rows: Number(job.row_count ?? 0),
      expiresAt: Math.floor(job.expires_at.getTime() / 1000),
    },
  };
}

/**
 * GET /v1/transaction-groups/export-download/{token}/{uuid}: the file as a stream. 403 for a token
 * not made for this user and export, or expired; 404 when the export (or its file) is gone.
 */
export async function openDownload(
  ctx: AppContext,
  session: { customerId: number; userId: number },
  token: string,
  uuid: string,
  now = new Date(),
): Promise<{ fileName: string; size: number; body: Readable }> {
  const id = uuid.toLowerCase();
  if (!UUID.test(id)) throw new DomainError('not_found', 'No such export');
  const check = checkDownloadToken(ctx.config.secret!, token, id, session.userId, now);
  if (check === 'invalid') throw new DomainError('forbidden', 'This download link is not valid for you');
  if (check === 'expired')
    throw new DomainError('forbidden', 'This download link has expired: open the export page again');
  const job = await repo.findExport(ctx.db, session.customerId, id);
  if (job?.status !== 'ready' || !job.file_key || job.expires_at <= now)
    throw new DomainError('not_found', 'No such export');
  const stat = await ctx.storage.stat(job.file_key);
  const body = await ctx.storage.get(job.file_key);
  if (!stat || !body) throw new DomainError('not_found', 'No such export');
  return { fileName: job.file_name, size: stat.size, body };
}

/** Content-Disposition for a download (RFC 6266): an ASCII fallback and the UTF-8 name (RFC 8187). */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** Writes one claimed job's CSV to storage; answers its row count and size. */
async function writeExport(
  ctx: AppContext,
  job: repo.ExportRow,
  signal?: AbortSignal,
): Promise<{ key: string; rows: number; size: number }> {
  const reportType = job.report_type as GroupReportType;
  const filter = transactionFilter(job.group_id, {
    range: { from: job.range_from, before: job.range_before, wholeDays: false, firstDay: null, lastDay: null },
    status: 'all',
    reportType,
    recipient: null,
    text: job.search_query,
  });
  const counted = { rows: 0 };
  const rows = filter ? exportRows(ctx.db, job.customer_id, filter, reportType) : (async function* () {})();
  const csv = reportCsv(rows, reportType, counted);
  const key = `${STORAGE_PREFIX}/${job.uuid}.csv`;
  // the pipeline carries a failure of either side to the other (a failed put stops the reads)
  const body = new PassThrough();
  const [{ size }] = await Promise.all([
    ctx.storage.put(key, body, { contentType: 'text/csv; charset=utf-8' }),
    pipeline(csv, body, { signal }),
  ]);
  return { key, rows: counted.rows, size };
}

/** The mail that says the export is ready (docs/console-reports.md §8: the export page's link). */
function exportMail(
  from: Submission['from'],
  to: { email: string; name: string },
  url: string,
  what: { groupName: string; reportType: string; rows: number; retentionDays: number },
): Submission {
  const report = `${what.reportType.charAt(0).toUpperCase()}${what.reportType.slice(1)}`;
  const text = [
    `Your export of the ${report} report of "${what.groupName}" is ready (${what.rows} rows).`,
    '',
    'Download it here (sign in with your account):',
    url,
    '',
    `The file is kept for ${what.retentionDays} days.`,
  ].join('\n');
  const escapeHtml = (s: string) =>
    s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">
<p>Your export of the ${escapeHtml(report)} report of ` +
    `<strong>${escapeHtml(what.groupName)}</strong> is ready (${what.rows} rows).</p>
<p><a href="${escapeHtml(url)}">Download the report</a> (sign in with your account).</p>
<p style="color:#666">The file is kept for ${what.retentionDays} days.</p>
</body></html>`;
  return {
    from,
    to: [{ email: to.email, name: to.name || null }],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: `Your ${report} report export is ready`,
    html,
    text,
    headers: {},
    attachments: [],
    group: 'Report exports',
    tags: [],
    metadata: null,
  };
}

/** Where the mail's link points. */
export function exportPageUrl(ctx: Pick<AppContext, 'config'>, uuid: string): string {
  return new URL(`/export/${uuid}`, ctx.config.publicUrl).toString();
}

/**
 * Queues the mail of a finished export as the system sender. The Idempotency-Key 'export:{uuid}'
 * makes a second attempt (a worker stopped between queuing and marking) answer the first instead of
 * mailing twice.
 */
async function mailExport(ctx: AppContext, job: repo.ExportRow, rows: number): Promise<void> {
  const { user, groupName } = await repo.exportParties(ctx.db, job);
  if (user) {
    const sender = await systemSender(ctx);
    const mail = exportMail(sender.from, user, exportPageUrl(ctx, job.uuid), {
      groupName,
      reportType: job.report_type,
      rows,
      retentionDays: ctx.config.exportRetentionDays,
    });
    try {
      await accept(ctx, sender.customerId, [await prepare(ctx, sender.customerId, mail)], {
        key: `export:${job.uuid}`,
        requestHash: job.uuid,
      });
    } catch (err) {
      if (!(err instanceof IdempotencyReplay)) throw err;
    }
  }
  await repo.markMailed(ctx.db, job.id);
}

/**
 * One step of the worker: claims a due job and writes, records and mails it. Answers whether there
 * was one. A failed attempt is retried after a minute, up to EXPORT_MAX_ATTEMPTS.
 */
export async function runOneExport(ctx: AppContext, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return false;
  const job = await repo.claimExport(ctx.db, EXPORT_LEASE_SECONDS);
  if (!job) return false;
  await processExport(ctx, job, signal);
  return true;
}

/** Writes a claimed job's file, records it and mails the link; a failure is recorded for a retry. */
async function processExport(ctx: AppContext, job: repo.ExportRow, signal?: AbortSignal): Promise<void> {
  let file: { key: string; rows: number; size: number };
  try {
    file = await writeExport(ctx, job, signal);
  } catch (err) {
    if (signal?.aborted) {
      // stopped for a deploy: the job goes back to the queue for the next process, attempt not spent
      await repo.releaseExport(ctx.db, job.id, job.attempts);
      ctx.logger.info({ exportUuid: job.uuid }, 'report export stopped with the worker; released');
      return;
    }
    const final = job.attempts >= EXPORT_MAX_ATTEMPTS;
    ctx.logger.error({ err, exportUuid: job.uuid, attempt: job.attempts, final }, 'report export failed');
    await repo.failExportAttempt(
      ctx.db,
      job.id,
      job.attempts,
      (err as Error).message ?? String(err),
      final,
      RETRY_SECONDS,
    );
    return;
  }
  if (!(await repo.completeExport(ctx.db, job.id, job.attempts, file))) {
    // the lease ran out and another worker took the job over: its file has the same key
    ctx.logger.warn({ exportUuid: job.uuid }, 'report export finished after its lease');
    return;
  }
  ctx.logger.info({ exportUuid: job.uuid, rows: file.rows, bytes: file.size }, 'report export written');
  await mailExport(ctx, job, file.rows);
}

/** Mails finished exports whose mail was never queued (a worker stopped in between). */
export async function mailUnmailedExports(ctx: AppContext): Promise<void> {
  for (const job of await repo.unmailedExports(ctx.db, 20)) await mailExport(ctx, job, Number(job.row_count ?? 0));
}

/**
 * Deletes expired exports, files first (docs/console-reports.md §9: EXPORT_RETENTION_DAYS), 100 a
 * transaction: the rows stay locked while their files are removed, and a file whose removal fails
 * keeps its row (the transaction rolls back), so the next sweep tries again. Answers how many.
 */
export async function purgeExpiredExports(ctx: AppContext, now = new Date()): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await inTransaction(ctx.db, async (trx) => {
      const rows = await repo.lockExpired(trx, now, 100);
      for (const row of rows) if (row.file_key) await ctx.storage.delete(row.file_key);
      await repo.deleteExports(
        trx,
        rows.map((row) => Number(row.id)),
      );
      return rows.length;
    });
    total += n;
    if (n < 100) return total;
  }
}

/**
 * The worker role's export loop: jobs one at a time as they come (polled), unmailed ones and the purge now and then.
 */
export class ExportWorker {
  #lastSweep = 0;
  // aborted when stop() runs out of its grace period: the export in progress stops and is released
  readonly #abort = new AbortController();
  readonly #loop: ClaimLoop<repo.ExportRow>;

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: { pollMs?: number; sweepMs?: number } = {},
  ) {
    this.#loop = new ClaimLoop({
      what: 'report exports',
      logger: ctx.logger,
      pollMs: opts.pollMs ?? 2_000,
      room: (inFlight) => (inFlight === 0 ? 1 : 0),
      claim: async () => {
        await this.#sweep();
        if (this.#abort.signal.aborted) return [];
        const job = await repo.claimExport(ctx.db, EXPORT_LEASE_SECONDS);
        return job ? [job] : [];
      },
      process: (job) => processExport(ctx, job, this.#abort.signal),
    });
  }

  start(): void {
    this.#loop.start();
  }

  /** Every sweepMs (10 minutes): mails what a stopped worker left unmailed, deletes expired exports. */
  async #sweep(): Promise<void> {
    if (Date.now() - this.#lastSweep < (this.opts.sweepMs ?? 600_000)) return;
    this.#lastSweep = Date.now();
    await mailUnmailedExports(this.ctx);
    const purged = await purgeExpiredExports(this.ctx);
    if (purged > 0) this.ctx.logger.info({ purged }, 'expired report exports deleted');
  }

  /**
   * Stops polling and lets an export in progress finish within `graceMs`; after that it is aborted
   * and given back to the queue (SHUTDOWN_GRACE_SECONDS: a deploy never waits on a long export).
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<void> {
    if (await this.#loop.stop(graceMs)) return;
    this.#abort.abort();
    await this.#loop.idle();
  }
}
