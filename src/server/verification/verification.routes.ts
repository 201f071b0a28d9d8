// Adding a domain and proving it (docs/console.md §7, §8): POST v1/domains (answers a messages list;
// success is 'Domain Created', anything else is shown in the modal joined with commas) sends the
// verification mail, POST v1/domains/{id}/verification sends a fresh one. Apart from
// domains/ because the mail goes out through sending/, which itself needs domains/.
import type { Hono } from 'hono';
import * as contract from '../../contract/account.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { type ApiEnv, requireSender, requireSession, sessionOf, withAnswerFields } from '../http/middleware.ts';
import { consoleRoutes } from '../http/console-routes.ts';
import { jsonBody } from '../http/validate.ts';
import { customerDomain, domainToWire } from '../domains/domains.service.ts';
import { createDomainWithVerification, resendVerification } from './verification.service.ts';

/** docs/console.md §8: the modal shows the answer's messages, so failures carry them beside our error object. */
function withMessages(err: unknown): never {
  if (err instanceof DomainError) {
    const details = Array.isArray(err.details) ? (err.details as { path?: string; message?: string }[]) : [];
    const messages =
      details.length > 0
        ? details.map((d) => (d.path && d.path !== '(body)' ? `${d.path}: ${d.message}` : String(d.message)))
        : [err.message];
    throw withAnswerFields(err, { messages });
  }
  throw err;
}

export function verificationRoutes(ctx: AppContext): Hono<ApiEnv> {
  const { app, serve, csrf } = consoleRoutes(ctx);
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

  // the domain is checked before the body, so another account's id is 404 whatever the body
  serve(contract.resendVerification, [requireSession, requireSender, csrf], async (c, { params }) => {
    const { customerId } = sessionOf(c);
    const { id } = params;
    await customerDomain(ctx, customerId, id);
    const body = await jsonBody(c, contract.resendVerificationBody);
    const domain = await resendVerification(ctx, customerId, id, body.email);
    return c.json({
      messages: [`Verification email sent to ${domain.verification_email}`],
      domain: domainToWire(ctx, domain),
    });
  });
  return app;
}
