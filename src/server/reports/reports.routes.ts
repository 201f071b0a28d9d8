// The searches of the Dashboard and Transactions pages (docs/console.md §7): POST v1/transaction/search
// and POST /v1/transaction-groups/search. Console calls: a session and CSRF protection. Bodies take
// every field of docs/console.md §7 and of docs/console-reports.md §7 (its variant of the transaction search), in both
// spellings where the spec uses two; an unknown field, bad date, page, sort or status is 400.
// Also GET /v1/transactions/{trans_uuid}/events, the Transaction Info modal's timeline, and its
// Cancel of a scheduled message (POST /v1/transactions/{uuid}/cancel).
import type { Hono } from 'hono';
import * as contract from '../../contract/reports.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, requireSession, sessionOf } from '../http/middleware.ts';
import { cancelEmail } from '../lifecycle/scheduling.service.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { noStoreJson } from '../http/no-store.ts';
import { answerGroupSearch } from './groups.service.ts';
import { answerTransactionSearch } from './searches.service.ts';
import { transactionEvents } from './transaction-events.service.ts';

export function reportRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, write, senderWrite } = consoleRoutes(ctx);

  serve(contract.searchTransactions, write, async (c, { body }) =>
    noStoreJson(c, await answerTransactionSearch(ctx, sessionOf(c).customerId, body)),
  );

  serve(contract.searchGroups, write, async (c, { body }) =>
    noStoreJson(c, await answerGroupSearch(ctx, sessionOf(c).customerId, body)),
  );

  // The Transaction Info modal's timeline (our addition to docs/console.md §2): a read, so a
  // session suffices; another customer's transaction is 404 like an unknown one.
  serve(contract.getTransactionEvents, [requireSession], async (c, { params }) => {
    return noStoreJson(c, await transactionEvents(ctx, sessionOf(c).customerId, params.uuid));
  });
  // the modal's Cancel of a scheduled message: a user who may send transactions
  serve(contract.cancelTransaction, senderWrite, async (c, { params }) => {
    await cancelEmail(ctx, sessionOf(c).customerId, params.uuid);
    return c.body(null, 204);
  });
  return app;
}
