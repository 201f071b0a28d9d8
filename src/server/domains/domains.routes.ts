// Domains for the console (docs/console.md §7): GET v1/domains, POST v1/domains (answers a messages list;
// success is 'Domain Created', anything else is shown in the modal joined with commas), one
// domain's details, a fresh verification mail, an on-demand DNS check; and GET v1/get-started.
import { Hono } from 'hono';
import * as contract from '../../contract/account.ts';
import type { AppContext } from '../context.ts';
import { findCustomer } from '../accounts/accounts.repository.ts';
import { credentialsForConsole } from '../credentials/credentials.service.ts';
import { ApiError } from '../http/errors.ts';
import { type ApiEnv, csrfGuard, requireSender, requireSession, sessionOf } from '../http/middleware.ts';
import { contractRoutes } from '../http/contract-route.ts';
import { jsonBody } from '../http/validate.ts';
import { customerDomain, domainToWire, listDomainsForConsole } from './domains.service.ts';
import { createDomainWithVerification, resendVerification } from './verification.service.ts';
import { runDnsCheck } from './dns-check.service.ts';
import * as repo from './domains.repository.ts';

/** docs/console.md §8: the modal shows the answer's messages, so failures carry them beside our error object. */
function withMessages(err: unknown): never {
  if (err instanceof ApiError) {
    const details = Array.isArray(err.details) ? (err.details as { path?: string; message?: string }[]) : [];
    const messages =
      details.length > 0
        ? details.map((d) => (d.path && d.path !== '(body)' ? `${d.path}: ${d.message}` : String(d.message)))
        : [err.message];
    throw new ApiError(err.code, err.message, { details: err.details, messages });
  }
  throw err;
}

export function domainRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const serve = contractRoutes(app, '/v1');
  const csrf = csrfGuard(ctx);
  const domainId = (raw: string) => (/^\d{1,15}$/.test(raw) ? Number(raw) : NaN);

  serve(contract.listDomains, [requireSession, requireSender], async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ domains: await listDomainsForConsole(ctx, sessionOf(c).customerId) });
  });

  // the body is read here, not by serve, so its refusals carry the modal's messages too
  serve(contract.createDomain, [requireSession, requireSender, csrf], async (c) => {
    try {
      const body = await jsonBody(c, contract.createDomainBody);
      const domain = await createDomainWithVerification(ctx, sessionOf(c).customerId, {
        domain: body.domain_url,
        email: body.domain_verification_email,
      });
      return c.json({ messages: ['Domain Created'], domain: domainToWire(ctx, domain) }, 201);
    } catch (err) {
      withMessages(err);
    }
  });

  serve(contract.getDomain, [requireSession, requireSender], async (c, { params }) => {
    const domain = await customerDomain(ctx, sessionOf(c).customerId, domainId(params.id));
    c.header('Cache-Control', 'no-store');
    return c.json({ domain: domainToWire(ctx, domain) });
  });

  // the domain is checked before the body, so another account's id is 404 whatever the body
  serve(contract.resendVerification, [requireSession, requireSender, csrf], async (c, { params }) => {
    const { customerId } = sessionOf(c);
    const id = domainId(params.id);
    await customerDomain(ctx, customerId, id);
    const body = await jsonBody(c, contract.resendVerificationBody);
    const domain = await resendVerification(ctx, customerId, id, body.email);
    return c.json({
      messages: [`Verification email sent to ${domain.verification_email}`],
      domain: domainToWire(ctx, domain),
    });
  });

  serve(contract.checkDomain, [requireSession, requireSender, csrf], async (c, { params }) => {
    const { customerId } = sessionOf(c);
    const domain = await customerDomain(ctx, customerId, domainId(params.id));
    await runDnsCheck(ctx, domain.id);
    return c.json({ domain: domainToWire(ctx, (await repo.findCustomerDomainById(ctx.db, customerId, domain.id))!) });
  });

  serve(contract.getStarted, [requireSession, requireSender], async (c) => {
    const { customerId } = sessionOf(c);
    const customer = await findCustomer(ctx.db, customerId);
    if (!customer) throw new ApiError('not_found', 'No such customer');
    const [domains, credentials] = await Promise.all([
      listDomainsForConsole(ctx, customerId),
      credentialsForConsole(ctx, customerId),
    ]);
    c.header('Cache-Control', 'no-store');
    return c.json({ domains, ...credentials, isReseller: customer.is_reseller });
  });

  return app;
}
