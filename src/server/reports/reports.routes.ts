// The searches of the Dashboard and Transactions pages (docs/console.md §7): POST v1/transaction/search
// and POST /v1/transaction-groups/search. Console calls: a session and CSRF protection. Bodies take
// every field of docs/console.md §7 and of docs/console-reports.md §7 (its variant of the transaction search), in both
// spellings where the spec uses two; an unknown field, bad date, page, sort or status is 400.
// Also GET /v1/transactions/{trans_uuid}/events, the Transaction Info modal's timeline.
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, csrfGuard, requireSession, sessionOf } from '../http/middleware.ts';
import { jsonBody } from '../http/validate.ts';
import { GROUP_SORT_KEYS, type GroupPage, searchGroups } from './groups.service.ts';
import { PAGE_SIZE, dateField, isUuid, pageField, rangeOf, resolveSort, textField } from './report-input.ts';
import { MESSAGE_STATUSES, REPORT_TYPES, TRANSACTION_SORT_KEYS, type TransactionPage, searchTransactions } from './transactions.service.ts';
import { transactionEvents } from './transaction-events.service.ts';

const SEARCH_TEXT_MAX = 320;
const SORT_FIELD_MAX = 40;

/** An enum value; empty or null means absent. */
function choice<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .union([z.literal(''), z.enum(values)], { error: `must be one of ${values.join(', ')}` })
    .nullish()
    .transform((v) => (v ? v : undefined));
}

const rangeFields = { startDate: dateField, endDate: dateField, start_date: dateField, end_date: dateField };

export const transactionSearchBody = z.strictObject({
  ...rangeFields,
  reportType: choice(REPORT_TYPES),
  report_type: choice(REPORT_TYPES),
  page: pageField,
  order: textField(SORT_FIELD_MAX),
  order_by: textField(SORT_FIELD_MAX),
  recipient_email: textField(SEARCH_TEXT_MAX),
  transaction_search_string: textField(SEARCH_TEXT_MAX),
  search_query: textField(SEARCH_TEXT_MAX),
  message_status: choice(MESSAGE_STATUSES),
  group_uuid: textField(64).refine((v) => v === undefined || isUuid(v), { message: 'must be a group uuid' }),
});

export const groupSearchBody = z.strictObject({
  page: pageField,
  searchQuery: textField(SEARCH_TEXT_MAX),
  search_query: textField(SEARCH_TEXT_MAX),
  order: textField(SORT_FIELD_MAX),
  orderBy: textField(SORT_FIELD_MAX),
});

/** The value of a field the spec spells two ways; 400 when both are given and differ. */
function either<T>(a: T | undefined, b: T | undefined, names: string): T | undefined {
  if (a !== undefined && b !== undefined && a !== b) {
    const message = 'the two spellings have different values';
    throw new ApiError('validation_failed', `Invalid request: ${names}: ${message}`, { details: [{ path: names, message }] });
  }
  return a ?? b;
}

/**
 * POST v1/transaction/search's answer to a checked body; also the Recipients tab's first page,
 * which the page renders on the server from the body its island would send (issue 19).
 */
export function answerTransactionSearch(ctx: AppContext, customerId: number, body: z.infer<typeof transactionSearchBody>): Promise<TransactionPage> {
  return searchTransactions(ctx.db, customerId, {
    range: rangeOf(body),
    page: body.page,
    perPage: PAGE_SIZE.transactions,
    // docs/console.md §7: order asc|desc, order_by the key; default trans_id desc (docs/console-reports.md §9)
    sort: resolveSort(TRANSACTION_SORT_KEYS, 'trans_id', { direction: body.order, key: body.order_by, directionName: 'order', keyName: 'order_by' }),
    status: body.message_status ?? 'all',
    reportType: either(body.reportType, body.report_type, 'reportType/report_type') ?? 'all',
    groupUuid: body.group_uuid ?? null,
    recipient: body.recipient_email ?? null,
    // docs/console-reports.md §7 sends the search text as search_query too
    text: either(body.transaction_search_string, body.search_query, 'transaction_search_string/search_query') ?? null,
  });
}

/** POST /v1/transaction-groups/search's answer to a checked body; also the Groups tab's first page (issue 19). */
export function answerGroupSearch(ctx: AppContext, customerId: number, body: z.infer<typeof groupSearchBody>): Promise<GroupPage> {
  return searchGroups(ctx.db, customerId, {
    page: body.page,
    perPage: PAGE_SIZE.groups,
    contains: either(body.searchQuery, body.search_query, 'searchQuery/search_query') ?? null,
    sort: resolveSort(GROUP_SORT_KEYS, 'group_last_send_date', { direction: body.order, key: body.orderBy, directionName: 'order', keyName: 'orderBy' }),
  });
}

export function reportRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const guard = [requireSession, csrfGuard(ctx)] as const;

  app.post('/transaction/search', ...guard, async (c) => {
    const page = await answerTransactionSearch(ctx, sessionOf(c).customerId, await jsonBody(c, transactionSearchBody));
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });

  app.post('/transaction-groups/search', ...guard, async (c) => {
    const page = await answerGroupSearch(ctx, sessionOf(c).customerId, await jsonBody(c, groupSearchBody));
    c.header('Cache-Control', 'no-store');
    return c.json(page);
  });

  // The Transaction Info modal's timeline (the addition to docs/console.md §2): a read, so a
  // session suffices; another customer's transaction is 404 like an unknown one.
  app.get('/transactions/:uuid/events', requireSession, async (c) => {
    const data = await transactionEvents(ctx.db, sessionOf(c).customerId, c.req.param('uuid'));
    c.header('Cache-Control', 'no-store');
    return c.json({ data });
  });
  return app;
}
