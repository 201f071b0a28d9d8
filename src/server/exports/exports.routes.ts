// Report exports (docs/console-reports.md §2 Export page, §7, §8). Wire shapes:
//
// POST /v1/transaction-groups/reports/export  the report body (src/server/reports/group-reports.routes.ts)
//   plus isExport: true → 200 { message: 'Report queued', uuid }   (same 400/404 as the report call).
//   The worker writes the CSV and mails the requester a link to PUBLIC_URL/export/{uuid}.
// POST /v1/transaction-groups/export-view { uuid }
//   200 { fileName, token, state: 'ready', rows, expiresAt }  the file is ready; token works 10 minutes
//   202 { fileName, token: null, state: 'queued' }             still being written: ask again later
//   204 (no body)  no such export: unknown, expired, or another customer's
//   412 { error: { code: 'precondition_failed', message } }   another user's export (same account)
//   422 { error: { code: 'unprocessable', message } }         the export failed for good
// GET /v1/transaction-groups/export-download/{token}/{uuid}
//   200 text/csv; charset=utf-8, Content-Disposition: attachment; filename="…"; filename*=UTF-8''…
//   403 { error: { code: 'forbidden' } } a token not made for this user and export, or expired
//   404 the export or its file is gone
import { Readable } from 'node:stream';
import type { Hono } from 'hono';
import * as contract from '../../contract/reports.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, requireSession, sessionOf } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { GROUP_REPORT_SORT_KEYS, rangeOfBody, reportSort } from '../reports/group-reports.service.ts';
import { attachmentDisposition, openDownload, queueExport, viewExport } from './exports.service.ts';

export function exportRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, write } = consoleRoutes(ctx);

  serve(contract.queueExport, write, async (c, { body }) => {
    const session = sessionOf(c);
    // the export is in the report's default order (newest first); a bad sort is still refused
    reportSort(GROUP_REPORT_SORT_KEYS, body);
    const { uuid } = await queueExport(ctx, session, {
      groupUuid: body.group_uuid,
      reportType: body.report_type,
      range: rangeOfBody(body),
      text: body.search_query ?? null,
    });
    return c.json({ message: 'Report queued', uuid });
  });

  serve(contract.viewExport, write, async (c, { body }) => {
    const view = await viewExport(ctx, sessionOf(c), body.uuid);
    c.header('Cache-Control', 'no-store');
    if (view.status === 204) return c.body(null, 204);
    return c.json(view.body, view.status);
  });

  serve(contract.downloadExport, [requireSession], async (c, { params }) => {
    const file = await openDownload(ctx, sessionOf(c), params.token, params.uuid);
    return new Response(Readable.toWeb(file.body) as ReadableStream, {
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Length': String(file.size),
        'Content-Disposition': attachmentDisposition(file.fileName),
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    });
  });
  return app;
}
