// GET /v1/ui-settings (docs/console.md §7): the customer's sending options and credentials for the
// Settings and getting-started pages; POST /v1/ui-settings: one sending option toggled.
import { Hono } from 'hono';
import * as contract from '../../contract/account.ts';
import type { AppContext } from '../context.ts';
import { credentialsForConsole } from '../credentials/credentials.service.ts';
import { findCustomer } from '../accounts/accounts.repository.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { clearLookupCaches } from '../lookup-cache.ts';
import { SENDING_OPTIONS } from '../../contract/values.ts';
import { setSendingOption, settingsToWire } from './settings.service.ts';

export function settingsRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const serve = contractRoutes(app, '/v1');
  serve(contract.getSettings, [requireSession, requireSender], async (c) => {
    const { customerId } = sessionOf(c);
    const customer = await findCustomer(ctx.db, customerId);
    if (!customer) throw new ApiError('not_found', 'No such customer');
    const credentials = await credentialsForConsole(ctx, customerId);
    c.header('Cache-Control', 'no-store');
    return c.json({
      settings: settingsToWire(customer),
      credentials: { ...credentials, isReseller: customer.is_reseller },
    });
  });

  serve(contract.changeSetting, [requireSession, csrfGuard(ctx), requireSender], async (c, { body: change }) => {
    const session = sessionOf(c);
    const option = SENDING_OPTIONS.find((key) => change[key] !== undefined)!;
    const settings = await ctx.db
      .transaction()
      .execute((trx) => setSendingOption(ctx, trx, session.customerId, option, change[option]!));
    clearLookupCaches(ctx); // again after commit: a send during the transaction may have cached the old state
    return c.json({ settings });
  });
  return app;
}
