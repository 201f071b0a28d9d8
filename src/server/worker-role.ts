// The worker role (main.ts loads this module only when ROLES has worker): delivery, webhook
// requests, report exports, the DNS refresher and the hourly housekeeping.
import { purgeDownloadRecords, sweepOrphanBlobs } from './attachments/attachments.service.ts';
import { pruneAuthTables } from './auth/auth.service.ts';
import type { AppContext } from './core/context.ts';
import { releaseOrphanedClaims } from './delivery/queue-admin.ts';
import { DeliveryWorker } from './delivery/worker.ts';
import { startDnsRefresher } from './domains/dns-check.service.ts';
import { ExportWorker } from './exports/exports.service.ts';
import { purgeReceived, sweepOrphanInboundFiles } from './inbound/inbound.service.ts';
import { pruneIdempotency } from './sending/sending.service.ts';
import { WebhookWorker } from './webhooks/worker.ts';

/** With the embedded database, claims left by the process before this one are released before work starts. */
export async function releaseClaimsOfPreviousProcess(ctx: AppContext): Promise<void> {
  if (ctx.engine !== 'pglite') return;
  // this process owns the data directory: every claim in it belongs to a process that is gone
  const released = await releaseOrphanedClaims(ctx);
  if (released > 0) ctx.logger.info({ count: released }, 'released the claims of the previous process');
}

/** Starts the workers and the hourly housekeeping; returns the function that stops them. */
export function startWorkerRole(ctx: AppContext): () => Promise<void> {
  const { config, logger } = ctx;
  const worker = new DeliveryWorker(ctx);
  worker.start();
  const webhooks = new WebhookWorker(ctx);
  webhooks.start();
  const exportWorker = new ExportWorker(ctx);
  exportWorker.start();
  const stopDnsRefresher = startDnsRefresher(ctx);
  const timer = setInterval(() => {
    pruneAuthTables(ctx).catch((err) => logger.warn({ err }, 'pruning sessions failed'));
    pruneIdempotency(ctx).catch((err) => logger.warn({ err }, 'pruning idempotency keys failed'));
    webhooks.purge().catch((err) => logger.warn({ err }, 'purging webhook logs failed'));
    sweepOrphanBlobs(ctx).catch((err) => logger.warn({ err }, 'sweeping attachment blobs failed'));
    purgeDownloadRecords(ctx).catch((err) => logger.warn({ err }, 'purging attachment download records failed'));
    purgeReceived(ctx)
      .then(() => sweepOrphanInboundFiles(ctx))
      .catch((err) => logger.warn({ err }, 'purging received mail failed'));
  }, 3_600_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await Promise.all([
      worker.stop(config.shutdownGraceSeconds * 1000),
      webhooks.stop(),
      exportWorker.stop(config.shutdownGraceSeconds * 1000),
      stopDnsRefresher(),
    ]);
  };
}
