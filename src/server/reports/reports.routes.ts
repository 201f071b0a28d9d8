// The searches of the Dashboard and Transactions pages (docs/console.md §7): POST v1/transaction/search
// and POST /v1/transaction-groups/search. Console calls: a session and CSRF protection. Bodies take
// every field of docs/console.md §7 and of docs/console-reports.md §7 (its variant of the transaction search), in both
// spellings where the spec uses two; an unknown field, bad date, page, sort or status is 400.
// Also GET /v1/transactions/{trans_uuid}/events, the Transaction Info modal's timeline.
import { Hono } from 'hono';
import type { z } from 'zod';
import * as contract from '../../contract/reports.ts';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, csrfGuard, requireSession, sessionOf } from '../http/middleware.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { GROUP_SORT_KEYS } from '../../contract/values.ts';
import { type GroupPage, searchGroups } from './groups.service.ts';
import { PAGE_SIZE, rangeOf, resolveSort } from './report-input.ts';
import { TRANSACTION_SORT_KEYS, type TransactionPage, searchTransactions } from './transactions.service.ts';
import { transactionEvents } from './transaction-events.service.ts';

/** The value of a field the spec spells two ways; 400 when both are given and differ. */
function either<T>(a: T | undefined, b: T | undefined, names: string): T | undefined {
  if (a !== undefined && b !== undefined && a !== b) {
    const message = 'the two spellings have different values';
    throw new ApiError('validation_failed', `Invalid request: ${names}: ${message}`, {
      details: [{ path: names, message }],
    });
  }
  return a ?? b;
}

/**
 * POST v1/transaction/search's answer to a checked body; also the Recipients tab's first page,
 * which the page renders on the server from the body its island would send (issue 19).
 */
export function answerTransactionSearch(
  ctx: AppContext,
  customerId: number,
  body: z.infer<typeof contract.transactionSearchBody>,
): Promise<TransactionPage> {
  return searchTransactions(ctx.db, customerId, {
    range: rangeOf(body),
    page: body.page,
    perPage: PAGE_SIZE.transactions,
    // docs/console.md §7: order asc|desc, order_by the key; default trans_id desc (docs/console-reports.md §9)
    sort: resolveSort(TRANSACTION_SORT_KEYS, 'trans_id', {
      direction: body.order,
      key: body.order_by,
      directionName: 'order',
      keyName: 'order_by',
    }),
    status: body.message_status ?? 'all',
    reportType: either(body.reportType, body.report_type, 'reportType/report_type') ?? 'all',
    groupUuid: body.group_uuid ?? null,
    recipient: body.recipient_email ?? null,
    // docs/console-reports.md §7 sends the search text as search_query too
    text: either(body.transaction_search_string, body.search_query, 'transaction_search_string/search_query') ?? null,
  });
}

/** POST /v1/transaction-groups/search's answer to a checked body; also the Groups tab's first page (issue 19). */
export function answerGroupSearch(
  ctx: AppContext,
  customerId: number,
  body: z.infer<typeof contract.groupSearchBody>,
): Promise<GroupPage> {
  return searchGroups(ctx.db, customerId, {
    page: body.page,
    perPage: PAGE_SIZE.groups,
    contains: either(body.searchQuery, body.search_query, 'searchQuery/search_query') ?? null,
    sort: resolveSort(GROUP_SORT_KEYS, 'group_last_send_date', {
      direction: body.order,
      key: body.orderBy,
      directionName: 'order',
      keyName: 'orderBy',
    }),
  });
}

export function reportRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const serve = contractRoutes(app, '/v1');
  const guard = [requireSession, csrfGuard(ctx)];

  serve(contract.searchTransactions, guard, async (c, { body }) => {
    const page = await answerTransactionSearch(ctx, sessionOf(c).customerId, body);
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });

  serve(contract.searchGroups, guard, async (c, { body }) => {
    const page = await answerGroupSearch(ctx, sessionOf(c).customerId, body);
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });

  // The Transaction Info modal's timeline (the addition to docs/console.md §2): a read, so a
  // session suffices; another customer's transaction is 404 like an unknown one.
  serve(contract.getTransactionEvents, [requireSession], async (c, { params }) => {
    const data = await transactionEvents(ctx.db, sessionOf(c).customerId, params.uuid);
    c.header('Cache-Control', 'no-store');
    return c.json({ data });
  });
  return app;
}
