// Sending domains in Resend's shape (contract/resend-domains.ts): the console's domains, its
// verification by email and its DNS check (domains/, verification/), answered as Resend answers them.
import {
  RESEND_REGION,
  type ResendDomain,
  type ResendDomainRecord,
  type ResendListedDomain,
} from '../../contract/resend-domains.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import type { DnsCheck, Domain } from '../db/schema.ts';
import { lookupFailed } from '../domains/dns-check.ts';
import { runDnsCheck } from '../domains/dns-check.service.ts';
import { listCustomerDomains } from '../domains/domains.repository.ts';
import {
  customerDomain,
  dnsRecords,
  type DnsRecord,
  removeDomain,
  validDomainName,
} from '../domains/domains.service.ts';
import { createDomainWithVerification } from '../verification/verification.service.ts';

const RECORD_NAME: Record<DnsRecord['purpose'], ResendDomainRecord['record']> = {
  spf: 'SPF',
  dkim: 'DKIM',
  dmarc: 'DMARC',
  return_path: 'ReturnPath',
};

function statusOf(domain: Domain): ResendListedDomain['status'] {
  if (domain.sending_verified) return 'verified';
  const expires = domain.verification_expires_at;
  if (expires && expires.getTime() > Date.now()) return 'pending';
  return domain.verification_sent_at || expires ? 'failed' : 'not_started';
}

function recordStatusOf(check: DnsCheck | undefined): ResendDomainRecord['status'] {
  if (!check) return 'not_started';
  if (check.ok) return 'verified';
  return lookupFailed(check) ? 'temporary_failure' : 'failed';
}

function listed(domain: Domain): ResendListedDomain {
  return {
    id: String(domain.id),
    name: domain.domain,
    status: statusOf(domain),
    created_at: domain.created_at.toISOString(),
    region: RESEND_REGION,
    capabilities: { sending: 'enabled', receiving: 'disabled' },
  };
}

function withRecords(ctx: AppContext, domain: Domain): ResendDomain {
  const results = domain.dns_results ?? {};
  return {
    object: 'domain',
    ...listed(domain),
    records: dnsRecords(ctx, domain).map((r) => ({
      record: RECORD_NAME[r.purpose],
      name: r.name,
      type: r.type,
      value: r.value,
      ttl: 'Auto' as const,
      status: recordStatusOf(results[r.purpose]),
    })),
  };
}

/** GET /resend/domains: every domain of the account, newest first. */
export async function listDomains(ctx: AppContext, customerId: number) {
  const domains = await listCustomerDomains(ctx.db, customerId);
  domains.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || Number(b.id) - Number(a.id));
  return { object: 'list' as const, has_more: false, data: domains.map(listed) };
}

/** GET /resend/domains/{id}: one domain of the account with its records; 404 otherwise. */
export async function getDomain(ctx: AppContext, customerId: number, id: number): Promise<ResendDomain> {
  return withRecords(ctx, await customerDomain(ctx, customerId, id));
}

/**
 * POST /resend/domains: adds the domain and mails its link to `verificationEmail`, or to
 * postmaster@ the domain (RFC 5321 §4.5.1). A name already taken is Resend's validation_error (422)
 * here: our `conflict` is Resend's name for a reused idempotency key.
 */
export async function createDomain(
  ctx: AppContext,
  customerId: number,
  input: { name: string; verification_email?: string },
): Promise<ResendDomain> {
  const name = validDomainName(input.name); // lower-case ASCII, so postmaster@ is at the very domain
  try {
    const domain = await createDomainWithVerification(ctx, customerId, {
      domain: name,
      email: input.verification_email ?? `postmaster@${name}`,
    });
    return withRecords(ctx, domain);
  } catch (err) {
    if (err instanceof DomainError && err.code === 'conflict') throw new DomainError('unprocessable', err.message);
    throw err;
  }
}

/** POST /resend/domains/{id}/verify: checks the records in DNS now and stores the results; answers the id. */
export async function verifyDomain(ctx: AppContext, customerId: number, id: number): Promise<string> {
  const domain = await customerDomain(ctx, customerId, id);
  await runDnsCheck(ctx, domain.id);
  return String(domain.id);
}

/** DELETE /resend/domains/{id}: see removeDomain for what happens to the domain's mail; answers the id. */
export async function deleteDomain(ctx: AppContext, customerId: number, id: number): Promise<string> {
  await removeDomain(ctx, customerId, id);
  return String(id);
}
