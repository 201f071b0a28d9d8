// GET /v1/ui-settings (spec core §7): the customer's sending options and credentials for the
// Settings and getting-started pages. (POST, the toggles, arrives with the settings issue.)
import { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { credentialsForConsole } from '../credentials/credentials.service.ts';
import { findCustomer } from '../accounts/accounts.repository.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, requireSession, sessionOf } from '../http/middleware.ts';

export function settingsRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/ui-settings', requireSession, async (c) => {
    const { customerId } = sessionOf(c);
    const customer = await findCustomer(ctx.db, customerId);
    if (!customer) throw new ApiError('not_found', 'No such customer');
    const credentials = await credentialsForConsole(ctx, customerId);
    c.header('Cache-Control', 'no-store');
    return c.json({
      settings: {
        tsetting_track_opens: customer.track_opens,
        tsetting_track_links: customer.track_links,
        tsetting_disable_suppression: customer.disable_suppression,
      },
      credentials: { ...credentials, isReseller: customer.is_reseller },
    });
  });
  return app;
}
