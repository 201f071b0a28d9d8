// The dashboard's calls (docs/console.md §7): GET /v1/dashboard (the range's total and its latest
// transactions), GET /v1/dashboard/get-quota, and POST /v1/dashboard/overview — the overview
// total the home rule needs (docs/console.md §4, an empty body: all time) and the overview chart's daily
// series. Totals come from the daily_stats rollup, never from counting transactions.
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { type ApiEnv, csrfGuard, requireSession, sessionOf } from '../http/middleware.ts';
import { check, jsonBody } from '../http/validate.ts';
import { dateField, rangeOf } from '../reports/report-input.ts';
import { dashboardData, overview, quota } from './dashboard.service.ts';

// the date range in either spelling (docs/console.md §7 lists both for the transaction search)
const rangeFields = { startDate: dateField, endDate: dateField, start_date: dateField, end_date: dateField };
// query strings may carry a cache-buster, so other parameters are ignored there
export const dashboardQuery = z.object(rangeFields);
const overviewBody = z.strictObject(rangeFields);

/** GET /v1/dashboard's data for a checked query; also the dashboard's latest transactions, rendered on the server (issue 19). */
export function answerDashboard(ctx: AppContext, customerId: number, query: z.infer<typeof dashboardQuery>) {
  return dashboardData(ctx.db, customerId, rangeOf(query));
}

export function dashboardRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/dashboard', requireSession, async (c) => {
    const data = await answerDashboard(ctx, sessionOf(c).customerId, check(dashboardQuery, c.req.query()));
    c.header('Cache-Control', 'no-store');
    return c.json({ data });
  });

  // the quota is per calendar month; the date range the page sends (docs/console.md §7) does not change it
  app.get('/dashboard/get-quota', requireSession, async (c) => {
    const answer = await quota(ctx.db, sessionOf(c).customerId, new Date());
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  app.post('/dashboard/overview', requireSession, csrfGuard(ctx), async (c) => {
    const range = rangeOf(await jsonBody(c, overviewBody));
    const answer = await overview(ctx.db, sessionOf(c).customerId, range, new Date());
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });
  return app;
}
