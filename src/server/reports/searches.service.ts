// The answer of the Transactions page's transaction search (docs/console.md §7) to a checked body:
// the route (reports.routes.ts) and the server-rendered first page (page-bridge.ts) both call it,
// so a first page is the page its island would load (the Groups tab's search: groups.service.ts).
import type { z } from 'zod';
import type * as contract from '../../contract/reports.ts';
import type { AppContext } from '../core/context.ts';
import { PAGE_SIZE, either, rangeOf, resolveSort } from './report-input.ts';
import { TRANSACTION_SORT_KEYS, type TransactionPage, searchTransactions } from './transactions.service.ts';

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
