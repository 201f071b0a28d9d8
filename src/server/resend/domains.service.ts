// Sending domains in Resend's shape (contract/resend-domains.ts): the console's domains, its
// verification by email and its DNS check (domains/, verification/), answered as Resend answers them.
import {
  RESEND_REGIONS,
  type ResendDomain,
  type ResendDomainOptions,
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
  accountTracking,
  customerDomain,
  dnsRecords,
  type DnsRecord,
  removeDomain,
  updateDomainOptions,
  validDomainName,
} from '../domains/domains.service.ts';
import { createDomainWithVerification } from '../verification/verification.service.ts';

const RECORD_NAME: Record<DnsRecord['purpose'], ResendDomainRecord['record']> = {
  spf: 'SPF',
  dkim: 'DKIM',
  dmarc: 'DMARC',
  return_path: 'ReturnPath',
  receiving: 'Receiving',
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

type Tracking = Awaited<ReturnType<typeof accountTracking>>;
type Region = ResendListedDomain['region'];
type Capability = ResendListedDomain['capabilities']['sending'];
const capability = (value: string | undefined, fallback: Capability): Capability =>
  value === 'enabled' || value === 'disabled' ? value : fallback;

function listed(domain: Domain, account: Tracking): ResendListedDomain {
  return {
    id: String(domain.id),
    name: domain.domain,
    status: statusOf(domain),
    created_at: domain.created_at.toISOString(),
    region: (RESEND_REGIONS as readonly string[]).includes(domain.region) ? (domain.region as Region) : 'us-east-1',
    capabilities: {
      sending: capability(domain.capabilities.sending, 'enabled'),
      receiving: domain.receiving_enabled ? 'enabled' : 'disabled',
    },
    open_tracking: domain.open_tracking ?? account.open,
    click_tracking: domain.click_tracking ?? account.click,
    tls: domain.tls,
    ...(domain.tracking_subdomain ? { tracking_subdomain: domain.tracking_subdomain } : {}),
  };
}

function withRecords(ctx: AppContext, domain: Domain, account: Tracking): ResendDomain {
  const results = domain.dns_results ?? {};
  return {
    object: 'domain',
    ...listed(domain, account),
    records: dnsRecords(ctx, domain).map((r) => ({
      record: RECORD_NAME[r.purpose],
      name: r.name,
      ...(r.priority === undefined ? {} : { priority: r.priority }),
      type: r.type,
      value: r.value,
      ttl: 'Auto' as const,
      status: recordStatusOf(results[r.purpose]),
    })),
  };
}

/** GET /resend/domains: every domain of the account, newest first. */
export async function listDomains(ctx: AppContext, customerId: number) {
  const [domains, account] = await Promise.all([
    listCustomerDomains(ctx.db, customerId),
    accountTracking(ctx, customerId),
  ]);
  domains.sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || Number(b.id) - Number(a.id));
  return { object: 'list' as const, has_more: false, data: domains.map((d) => listed(d, account)) };
}

/** GET /resend/domains/{id}: one domain of the account with its records; 404 otherwise. */
export async function getDomain(ctx: AppContext, customerId: number, id: number): Promise<ResendDomain> {
  const domain = await customerDomain(ctx, customerId, id);
  return withRecords(ctx, domain, await accountTracking(ctx, customerId));
}

/**
 * POST /resend/domains: adds the domain and mails its link to `verificationEmail`, or to
 * postmaster@ the domain (RFC 5321 §4.5.1). A name already taken is Resend's validation_error (422)
 * here: our `conflict` is Resend's name for a reused idempotency key.
 */
export async function createDomain(
  ctx: AppContext,
  customerId: number,
  input: { name: string; verification_email?: string } & ResendDomainOptions,
): Promise<ResendDomain> {
  const { name: given, verification_email, ...options } = input;
  const name = validDomainName(given); // lower-case ASCII, so postmaster@ is at the very domain
  try {
    const domain = await createDomainWithVerification(ctx, customerId, {
      domain: name,
      email: verification_email ?? `postmaster@${name}`,
      options: { ...options, custom_return_path: options.custom_return_path?.toLowerCase() },
    });
    return withRecords(ctx, domain, await accountTracking(ctx, customerId));
  } catch (err) {
    if (err instanceof DomainError && err.code === 'conflict') throw new DomainError('unprocessable', err.message);
    throw err;
  }
}

/** PATCH /resend/domains/{id}: changes the options given (updateDomainOptions); answers the id. */
export async function updateDomain(
  ctx: AppContext,
  customerId: number,
  id: number,
  options: ResendDomainOptions,
): Promise<string> {
  await updateDomainOptions(ctx, customerId, id, options);
  return String(id);
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
