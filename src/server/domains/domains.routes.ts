// Domains for the console (docs/console.md §7): GET v1/domains, one domain's details, an on-demand DNS
// check, receiving on or off, and GET v1/get-started. Adding a domain and its verification mail are
// verification/verification.routes.ts.
import type { Hono } from 'hono';
import * as contract from '../../contract/account.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import {
  customerDomain,
  domainToWire,
  getStarted,
  listDomainsForConsole,
  setDomainReceiving,
} from './domains.service.ts';
import { runDnsCheck } from './dns-check.service.ts';

export function domainRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, csrf } = consoleRoutes(ctx);
  serve(contract.listDomains, [requireSession, requireSender], async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ domains: await listDomainsForConsole(ctx, sessionOf(c).customerId) });
  });

  serve(contract.getDomain, [requireSession, requireSender], async (c, { params }) => {
    const domain = await customerDomain(ctx, sessionOf(c).customerId, params.id);
    c.header('Cache-Control', 'no-store');
    return c.json({ domain: domainToWire(ctx, domain) });
  });

  serve(contract.checkDomain, [requireSession, requireSender, csrf], async (c, { params }) => {
    const { customerId } = sessionOf(c);
    const domain = await customerDomain(ctx, customerId, params.id);
    await runDnsCheck(ctx, domain.id);
    return c.json({ domain: domainToWire(ctx, await customerDomain(ctx, customerId, domain.id)) });
  });

  serve(contract.setDomainReceiving, [requireSession, requireSender, csrf], async (c, { params, body }) => {
    const { customerId } = sessionOf(c);
    await setDomainReceiving(ctx, customerId, params.id, {
      receiving: body.enabled,
      refuseDmarcReject: body.inbound_refuse_dmarc_reject,
    });
    return c.json({ domain: domainToWire(ctx, await customerDomain(ctx, customerId, params.id)) });
  });

  serve(contract.getStarted, [requireSession, requireSender], async (c) => {
    const answer = await getStarted(ctx, sessionOf(c).customerId);
    c.header('Cache-Control', 'no-store');
    return c.json(answer);
  });

  return app;
}
