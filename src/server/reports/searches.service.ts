// The answers of the Transactions page's two searches (docs/console.md §7) to a checked body: the
// routes (reports.routes.ts) and the server-rendered first pages (page-bridge.ts) both call
// these, so a first page is the page its island would load.
import type { z } from 'zod';
import type * as contract from '../../contract/reports.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { GROUP_SORT_KEYS } from '../../contract/values.ts';
import { type GroupPage, searchGroups } from './groups.service.ts';
import { PAGE_SIZE, rangeOf, resolveSort } from './report-input.ts';
import { TRANSACTION_SORT_KEYS, type TransactionPage, searchTransactions } from './transactions.service.ts';

/** The value of a field the spec spells two ways; 400 when both are given and differ. */
function either<T>(a: T | undefined, b: T | undefined, names: string): T | undefined {
  if (a !== undefined && b !== undefined && a !== b) {
    const message = 'the two spellings have different values';
    throw new DomainError('validation_failed', `Invalid request: ${names}: ${message}`, {
      details: [{ path: names, message }],
    });
  }
  return a ?? b;
}

/**
 * POST v1/transaction/search's answer to a checked body; also the Recipients tab's first page,
 * which the page renders on the server from the body its island would send.
 */
export function answerTransactionSearch(
  ctx: AppContext,
  customerId: number,
  body: z.infer<typeof contract.transactionSearchBody>,
): Promise<TransactionPage> {
  return searchTransactions(ctx, customerId, {
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

/** POST /v1/transaction-groups/search's answer to a checked body; also the Groups tab's first page. */
export function answerGroupSearch(
  ctx: AppContext,
  customerId: number,
  body: z.infer<typeof contract.groupSearchBody>,
): Promise<GroupPage> {
  return searchGroups(ctx, customerId, {
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
