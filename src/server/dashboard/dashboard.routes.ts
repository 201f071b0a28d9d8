// The dashboard's calls (docs/console.md §7): GET /v1/dashboard (the range's total and its latest
// transactions), GET /v1/dashboard/get-quota, and POST /v1/dashboard/overview — the overview
// total the home rule needs (docs/console.md §4, an empty body: all time) and the overview chart's daily
// series. Totals come from the daily_stats rollup, never from counting transactions.
import type { Hono } from 'hono';
import * as contract from '../../contract/reports.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, requireSession, sessionOf } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { rangeOf } from '../reports/report-input.ts';
import { answerDashboard, overview, quota } from './dashboard.service.ts';

export function dashboardRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, write } = consoleRoutes(ctx);
  serve(contract.getDashboard, [requireSession], async (c, { query }) => {
    const data = await answerDashboard(ctx, sessionOf(c).customerId, query);
    c.header('Cache-Control', 'no-store');
    return c.json({ data });
  });

  // the quota is per calendar month; the date range the page sends (docs/console.md §7) does not change it
  serve(contract.getQuota, [requireSession], async (c) => {
    const answer = await quota(ctx, sessionOf(c).customerId, new Date());
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  serve(contract.postDashboardOverview, write, async (c, { body }) => {
    const range = rangeOf(body);
    const answer = await overview(ctx, sessionOf(c).customerId, range, new Date());
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });
  return app;
}
