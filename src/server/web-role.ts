// The web role (main.ts loads this module only when ROLES has web): the HTTP server on PORT with
// the API (Hono), the built assets and the console's pages (Astro's handler in dist/server). A
// process without the role never reads this module, Hono's or Astro's code (docs/development.md).
import path from 'node:path';
import { createApi } from './app.ts';
import type { AppContext } from './core/context.ts';
import { writeServiceRecord } from './ops/service-record.ts';
import { createPageBridge } from './page-bridge.ts';
import { createHttpServer } from './server.ts';
import { flushTracking } from './tracking/tracking.service.ts';

/**
 * Starts listening; `distDir` is the build's directory (dist/: Astro's server entry and the
 * client assets). Resolves with the function that stops the role within the grace period.
 */
export async function startWebRole(ctx: AppContext, distDir: string): Promise<() => Promise<void>> {
  const { config, logger } = ctx;
  const { handler } = await import(path.join(distDir, 'server', 'entry.mjs'));
  const server = createHttpServer({
    ctx,
    api: createApi(ctx),
    pages: handler,
    bridge: createPageBridge(ctx),
    clientDir: path.join(distDir, 'client'),
  });
  server.keepAliveTimeout = 65_000;
  // attachment uploads take as long as they take (docs/console-reports.md §7: no timeout); headersTimeout
  // bounds slow headers, and connections that never send any
  server.requestTimeout = 0;
  server.headersTimeout = config.httpHeadersTimeoutSeconds * 1000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  logger.info({ port: config.port, url: config.publicUrl }, 'web role listening');
  try {
    writeServiceRecord(config.dataPath, { publicUrl: config.publicUrl, startedAt: new Date().toISOString() });
  } catch (err) {
    // only the admin CLI's address check reads it: serving goes on without it
    logger.warn({ err }, 'could not record the service addresses in DATA_DIR');
  }
  // after the last requests, their opens and clicks
  return () => closeWebServer(server, config.shutdownGraceSeconds * 1000).then(() => flushTracking(ctx));
}

/**
 * Keep-alive connections go idle after their request: close them as they do, and at the end of
 * the grace period close what is left (a request still running gets cut off).
 */
function closeWebServer(server: ReturnType<typeof createHttpServer>, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const deadline = Date.now() + graceMs;
    const sweep = setInterval(() => {
      if (Date.now() < deadline) server.closeIdleConnections();
      else server.closeAllConnections();
    }, 100);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
