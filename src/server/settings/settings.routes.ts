// GET /v1/ui-settings (docs/console.md §7): the customer's sending options and credentials for the
// Settings and getting-started pages; POST /v1/ui-settings: one sending option toggled.
import { Hono } from 'hono';
import * as contract from '../../contract/account.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { changeSendingOption, settingsForConsole } from './settings.service.ts';

export function settingsRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const serve = contractRoutes(app, '/v1');
  serve(contract.getSettings, [requireSession, requireSender], async (c) => {
    const answer = await settingsForConsole(ctx, sessionOf(c).customerId);
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  serve(contract.changeSetting, [requireSession, csrfGuard(ctx), requireSender], async (c, { body: change }) => {
    const settings = await changeSendingOption(ctx, sessionOf(c).customerId, change);
    return c.json({ settings });
  });
  return app;
}
