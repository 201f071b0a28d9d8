// The dashboard's calls (docs/console.md §7): GET /v1/dashboard (the range's total and its latest
// transactions), GET /v1/dashboard/get-quota, and POST /v1/dashboard/overview — the overview
// total the home rule needs (docs/console.md §4, an empty body: all time) and the overview chart's daily
// series. Totals come from the daily_stats rollup, never from counting transactions.
import { Hono } from 'hono';
import type { z } from 'zod';
import * as contract from '../../contract/reports.ts';
import type { AppContext } from '../context.ts';
import { type ApiEnv, csrfGuard, requireSession, sessionOf } from '../http/middleware.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { rangeOf } from '../reports/report-input.ts';
import { dashboardData, overview, quota } from './dashboard.service.ts';

/**
 * GET /v1/dashboard's data for a checked query; also the dashboard's latest transactions, rendered on the server (issue
 * 19).
 */
export function answerDashboard(ctx: AppContext, customerId: number, query: z.infer<typeof contract.dashboardQuery>) {
  return dashboardData(ctx.db, customerId, rangeOf(query));
}

export function dashboardRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const serve = contractRoutes(app, '/v1');
  serve(contract.getDashboard, [requireSession], async (c, { query }) => {
    const data = await answerDashboard(ctx, sessionOf(c).customerId, query);
    c.header('Cache-Control', 'no-store');
    return c.json({ data });
  });

  // the quota is per calendar month; the date range the page sends (docs/console.md §7) does not change it
  serve(contract.getQuota, [requireSession], async (c) => {
    const answer = await quota(ctx.db, sessionOf(c).customerId, new Date());
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  serve(contract.postDashboardOverview, [requireSession, csrfGuard(ctx)], async (c, { body }) => {
    const range = rangeOf(body);
    const answer = await overview(ctx.db, sessionOf(c).customerId, range, new Date());
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });
  return app;
}
