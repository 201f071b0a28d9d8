// Operations endpoints: liveness, readiness (the database answers) and Prometheus metrics.
import { Hono } from 'hono';
import type { AppContext } from '../core/context.ts';
import { databaseReachable } from '../db/database.ts';
import type { ApiEnv } from '../http/middleware.ts';
import { registerSiteMetrics } from '../delivery/site-metrics.ts';

export function opsRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  // destination sites of direct MX delivery, read from the database at scrape time
  registerSiteMetrics(ctx);
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  // ready once every role has started (the SMTP port listens too) and until a stop signal
  app.get('/readyz', async (c) => {
    const { state } = ctx.lifecycle;
    if (state !== 'running') return c.json({ status: state }, 503);
    const ok = await databaseReachable(ctx.db);
    return c.json({ status: ok ? 'ready' : 'database unreachable' }, ok ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    const body = await ctx.metrics.registry.metrics();
    return c.body(body, 200, { 'Content-Type': ctx.metrics.registry.contentType });
  });
  return app;
}
