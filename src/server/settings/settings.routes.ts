// GET /v1/ui-settings (docs/console.md §7): the customer's sending options and credentials for the
// Settings and getting-started pages; POST /v1/ui-settings: one sending option toggled.
import type { Hono } from 'hono';
import * as contract from '../../contract/account.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { changeSendingOption, settingsForConsole } from './settings.service.ts';

export function settingsRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, senderWrite } = consoleRoutes(ctx);
  serve(contract.getSettings, [requireSession, requireSender], async (c) => {
    const answer = await settingsForConsole(ctx, sessionOf(c).customerId);
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  serve(contract.changeSetting, senderWrite, async (c, { body: change }) => {
    const settings = await changeSendingOption(ctx, sessionOf(c).customerId, change);
    return c.json({ settings });
  });
  return app;
}
