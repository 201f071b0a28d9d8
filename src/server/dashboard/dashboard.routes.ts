// The dashboard's calls (spec core §7). For now the overview total, which the home rule needs
// (spec core §4): the number of transactions the customer has sent us, read from the `requests`
// rollup rather than by counting transactions. The rest of the dashboard comes with its issue.
import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { type ApiEnv, csrfGuard, requireSession, sessionOf } from '../http/middleware.ts';
import { overviewTotal } from '../stats/stats.repository.ts';

export function dashboardRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post('/dashboard/overview', requireSession, csrfGuard(ctx), async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ overviewStats: { total: await overviewTotal(ctx.db, sessionOf(c).customerId) } });
  });
  return app;
}
