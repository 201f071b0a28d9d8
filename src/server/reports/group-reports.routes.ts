// A transaction group's report calls and its exports (docs/console-reports.md §7 Reports, Auth and
// public). Console calls: a session, and CSRF protection on POSTs. Wire shapes (dates unix seconds,
// 0 for none; every id from the request checked against the signed-in customer):
//
// POST /v1/transaction-groups/reports
//   body { report_type: 'overview'|'sent'|'opens'|'clicks'|'failed'|'bounced' (required),
//          group_uuid, start_date, end_date (unix seconds or 'YYYY-MM-DD'; default the last 29 days
//          through today), page (≥ 1, default 1), order, order_by (sort key and asc|desc, either way
//          round; default trans_id desc), search_query (a transaction uuid, or the start of a
//          recipient address or of its domain) }
//   200 { transactions: { data: Row[], meta: { current_page, per_page: 10, total, last_page, total_capped } },
//         dailyStats: [{ tstat_day: 'YYYY-MM-DD', requests, sent, failed, delivered, bounced,
//                        bounces_hard, bounces_soft, unique_opens, opens, unique_clicks, link_clicks,
//                        complaints }] }
//         (one entry per day of the range, zeros included)
//   Row { trans_uuid, trans_id, trans_date_queued, trans_date_sent, log_date, trans_to_email,
//         trans_to_name, tm_from_email, tm_from_name, tm_subject, tm_additional_headers,
//         trans_status, trans_delivered_status, trans_group_uuid, trans_group_name,
//         trans_read_count, trans_click_count, trans_bounce_type ('hard'|'soft'|''),
//         trans_bounce_reason (failed/bounced: the reason shown), ts_total_opens, ts_total_clicks,
//         ts_unique_clicks (links of the message clicked) }
//   log_date is the table's date: sent (overview, sent), failed, bounced, first open, first click.
//   Sort keys: trans_id, dateSent, firstOpenDate, firstClickDate, clicks, opens, bounceReceivedDated.
// POST /v1/transaction-groups/overview  body { group_uuid, report_type?, start_date, end_date }
// GET  /v1/transaction-groups/overview?group_uuid=…&start_date=…&end_date=…
// 200 { overviewStats: { sent, delivered, failed, bounced, bouncesHard, bouncesSoft: { value, percentage } (of total),
//         complaints, uniqueOpens, notOpened, uniqueClicks, notClicked: { value, percentage } (of delivered),
//         totalOpens: { value }, totalClicks: { value }, total } }   percentage: per cent, 2 decimals
// POST /v1/links  the report body;  GET /v1/links?group_uuid=…&start_date=…&end_date=…&page=…&order=…&order_by=…
//   200 { data: [{ tll_url, tm_subject, click_count, unique_click_count }], meta }   10 per page;
//   sort keys clicks (default; trans_id means it too), unique_clicks, link, subject; search_query
//   matches part of the URL or subject.
// Errors: 400 { error: { code: 'validation_failed', message, details } } for an unknown report type,
//   start after end, a range over 400 days, a page that is not a whole number ≥ 1, an unknown sort
//   key or field; 404 { error: { code: 'not_found' } } for a malformed, unknown or another
//   customer's group_uuid. Exports: see src/server/exports/exports.routes.ts.
import type { Hono } from 'hono';
import type { z } from 'zod';
import * as contract from '../../contract/reports.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, requireSession, sessionOf } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { noStoreJson } from '../http/no-store.ts';
import {
  type ReportBody,
  answerGroupReport,
  answerLinks,
  groupOverview,
  rangeOfBody,
} from './group-reports.service.ts';

export function groupReportRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, write } = consoleRoutes(ctx);

  serve(contract.groupReport, write, async (c, { body }) =>
    noStoreJson(c, await answerGroupReport(ctx, sessionOf(c).customerId, body)),
  );

  const overview = (customerId: number, body: z.infer<typeof contract.groupOverviewBody>) =>
    groupOverview(ctx, customerId, body.group_uuid, rangeOfBody(body));
  serve(contract.postGroupOverview, write, async (c, { body }) =>
    noStoreJson(c, await overview(sessionOf(c).customerId, body)),
  );
  // docs/console.md §7 lists the overview as a GET: the same fields in the query string
  serve(contract.getGroupOverview, [requireSession], async (c, { query }) =>
    noStoreJson(c, await overview(sessionOf(c).customerId, query)),
  );

  const links = (customerId: number, body: Omit<ReportBody, 'report_type'>) => answerLinks(ctx, customerId, body);
  serve(contract.postLinks, write, async (c, { body }) => noStoreJson(c, await links(sessionOf(c).customerId, body)));
  // later pages (docs/console-reports.md §7): the report body as a query string; report_type may be left out
  serve(contract.getLinks, [requireSession], async (c, { query }) =>
    noStoreJson(c, await links(sessionOf(c).customerId, query)),
  );
  return app;
}
