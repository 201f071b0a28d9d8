// Sending domains: each gets its own 2048-bit RSA DKIM key (selector chosen by us) and a list of
// DNS records to publish. Mail is accepted only from a domain of the sender's own customer that is
// sending-verified; a domain becomes verified when someone at the domain confirms the link we mail
// to an address there (docs/console.md §2, §4).
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { AppContext } from '../core/context.ts';
import type { DnsCheck, Domain, DomainCapabilities, DomainTls } from '../db/schema.ts';
import { DomainError } from '../core/errors.ts';
import { normalizeDomain } from '../core/addresses.ts';
import { findCustomer } from '../accounts/accounts.repository.ts';
import { credentialsForConsole } from '../credentials/credentials.service.ts';
import * as repo from './domains.repository.ts';
import { clearLookupCaches, invalidateLookups, lookupCache } from '../core/lookup-cache.ts';
import { inTransaction } from '../core/transaction.ts';
import { domainNameProblem } from '../../lib/domain-name.ts';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface DnsRecord {
  purpose: 'spf' | 'dkim' | 'dmarc' | 'return_path' | 'receiving';
  type: 'TXT' | 'CNAME' | 'MX';
  name: string;
  value: string;
  /** An MX record's preference. */
  priority?: number;
}

/** The preference of a receiving domain's MX record (docs/receiving.md). */
const RECEIVING_MX_PRIORITY = 10;

/** This service's MX host, the value of a receiving domain's MX record. */
export function inboundMxHost(ctx: Pick<AppContext, 'config'>): string {
  const { inboundMxHost: host, smtpPublicHost, publicUrl } = ctx.config;
  return host ?? smtpPublicHost ?? new URL(publicUrl).hostname;
}

/** Where DKIM keys live in DNS: `<selector>._domainkey.<domain>`. */
export function dkimRecordName(domain: Pick<Domain, 'domain' | 'dkim_selector'>): string {
  return `${domain.dkim_selector}._domainkey.${domain.domain}`;
}

export function returnPathDomainOf(ctx: Pick<AppContext, 'config'>): string {
  return ctx.config.returnPathDomain ?? new URL(ctx.config.publicUrl).hostname;
}

/** The records a customer publishes for a domain; the MX record once it receives mail. */
export function dnsRecords(
  ctx: Pick<AppContext, 'config'>,
  domain: Pick<Domain, 'domain' | 'dkim_selector' | 'dkim_public_key'> &
    Partial<Pick<Domain, 'custom_return_path' | 'receiving_enabled'>>,
): DnsRecord[] {
  const returnPath = returnPathDomainOf(ctx);
  const receiving: DnsRecord[] = domain.receiving_enabled
    ? [
        {
          purpose: 'receiving',
          type: 'MX',
          name: domain.domain,
          value: inboundMxHost(ctx),
          priority: RECEIVING_MX_PRIORITY,
        },
      ]
    : [];
  return [
    { purpose: 'spf', type: 'TXT', name: domain.domain, value: `v=spf1 include:_spf.${returnPath} ~all` },
    {
      purpose: 'dkim',
      type: 'TXT',
      name: dkimRecordName(domain),
      value: `v=DKIM1; k=rsa; p=${domain.dkim_public_key}`,
    },
    { purpose: 'dmarc', type: 'TXT', name: `_dmarc.${domain.domain}`, value: 'v=DMARC1; p=none;' },
    {
      purpose: 'return_path',
      type: 'CNAME',
      name: `${domain.custom_return_path ?? 'bounces'}.${domain.domain}`,
      value: returnPath,
    },
    ...receiving,
  ];
}

/**
 * A domain's own options (docs/integrating.md "Domains by API"): tracking (null: the account's
 * setting applies), TLS for delivery, and what is stored and answered only.
 */
export interface DomainOptions {
  open_tracking?: boolean | null;
  click_tracking?: boolean | null;
  tls?: DomainTls;
  region?: string;
  capabilities?: Partial<DomainCapabilities>;
  custom_return_path?: string;
  tracking_subdomain?: string;
}

/** The columns of the options given; capabilities merged into `stored` (sending enabled, receiving disabled). */
function optionColumns(options: DomainOptions, stored: DomainCapabilities = DEFAULT_CAPABILITIES) {
  const { capabilities, ...rest } = options;
  // receiving is a column the MX listener reads (docs/receiving.md); capabilities.receiving answers it
  const receiving = capabilities?.receiving ? { receiving_enabled: capabilities.receiving === 'enabled' } : {};
  return {
    ...rest,
    ...receiving,
    ...(capabilities ? { capabilities: JSON.stringify({ ...stored, ...capabilities }) } : {}),
  };
}
const DEFAULT_CAPABILITIES: DomainCapabilities = { sending: 'enabled', receiving: 'disabled' };

/** Creates a domain for a customer with a fresh DKIM key pair. */
export async function addDomain(
  ctx: AppContext,
  customerId: number,
  name: string,
  opts: { verified?: boolean; trusted?: boolean; options?: DomainOptions } = {},
): Promise<Domain> {
  const domain = validDomainName(name);
  if (await repo.findCustomerDomain(ctx.db, customerId, domain))
    throw new DomainError('conflict', `${domain} is already added to this account`);
  const other = opts.trusted ? undefined : await repo.findVerifiedAnywhere(ctx.db, domain);
  if (other && other.customer_id !== customerId)
    throw new DomainError('conflict', `${domain} is verified by another account`);
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const now = new Date();
  const selector = `tx${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
  return repo.insertDomain(ctx.db, {
    customer_id: customerId,
    domain,
    sending_verified: opts.verified ?? false,
    dkim_selector: selector,
    dkim_private_key_sealed: ctx.secrets.encrypt(privateKey),
    dkim_public_key: (publicKey as Buffer).toString('base64'),
    ...optionColumns(opts.options ?? {}),
  });
}

/** Changes the options given of a domain of the customer (404 for another account's); the others stay. */
export async function updateDomainOptions(
  ctx: AppContext,
  customerId: number,
  domainId: number,
  options: DomainOptions,
): Promise<void> {
  const domain = await customerDomain(ctx, customerId, domainId);
  const columns = optionColumns(options, domain.capabilities);
  if (Object.keys(columns).length === 0) return;
  await repo.updateDomainOptions(ctx.db, domain.id, columns);
  // the delivery worker reads tracking and TLS with each message; the send path's cache holds neither
  ctx.logger.info({ domainId: domain.id, customerId, options: Object.keys(columns) }, 'domain options changed');
}

/** The account's Sending Options a domain without its own tracking choice follows. */
export async function accountTracking(ctx: AppContext, customerId: number) {
  const customer = await findCustomer(ctx.db, customerId);
  if (!customer) throw new DomainError('not_found', 'No such customer');
  return { open: customer.track_opens, click: customer.track_links };
}

/** The normalised (lower-case ASCII) form of a domain name the spec's rule accepts, or a 400. */
export function validDomainName(name: string): string {
  const trimmed = name.trim();
  const problem = domainNameProblem(trimmed);
  const domain = problem ? null : normalizeDomain(trimmed);
  if (!domain) throw new DomainError('validation_failed', problem ?? `'${name}' is not a valid domain name`);
  return domain;
}

export interface SendingDomain {
  id: number;
  domain: string;
  selector: string;
  /** Decrypted lazily by the delivery worker, never sent anywhere. */
  privateKeySealed: string;
}

/** The verified sending domain of this customer for a From address's domain, or an DomainError. */
export async function requireSendingDomain(
  ctx: AppContext,
  customerId: number,
  fromDomain: string,
): Promise<SendingDomain> {
  const cache = lookupCache<SendingDomain>(ctx, 'sending-domains');
  const key = `${customerId}:${fromDomain.toLowerCase()}`;
  let hit = cache.get(key);
  if (!hit) {
    const domain = await repo.findCustomerDomain(ctx.db, customerId, fromDomain);
    if (!domain?.sending_verified) {
      throw new DomainError(
        'domain_not_verified',
        `The domain ${fromDomain} is not a verified sending domain of this account`,
      );
    }
    hit = {
      id: domain.id,
      domain: domain.domain,
      selector: domain.dkim_selector,
      privateKeySealed: domain.dkim_private_key_sealed,
    };
    cache.set(key, hit);
  }
  return hit;
}

export interface DomainWire {
  domain_id: number;
  domain_domain: string;
  domain_sending_verified: 'yes' | 'no';
  domain_verification_email: string | null;
  domain_verification_sent_timestamp: string | null;
  domain_created_timestamp: string;
  dns_checked_timestamp: string | null;
  domain_receiving: boolean;
  domain_inbound_refuse_dmarc_reject: boolean;
  /** The records to publish, each with the result of the last DNS check (null before any). */
  dns_records: (DnsRecord & { check: DnsCheck | null })[];
}

/** The one row → wire mapping for domains (docs/console.md §3 Domain, plus the DNS records and their checks). */
export function domainToWire(ctx: Pick<AppContext, 'config'>, domain: Domain): DomainWire {
  const results = domain.dns_results ?? {};
  return {
    domain_id: Number(domain.id),
    domain_domain: domain.domain,
    domain_sending_verified: domain.sending_verified ? 'yes' : 'no',
    domain_verification_email: domain.verification_email,
    domain_verification_sent_timestamp: domain.verification_sent_at?.toISOString() ?? null,
    domain_created_timestamp: domain.created_at.toISOString(),
    dns_checked_timestamp: domain.dns_checked_at?.toISOString() ?? null,
    domain_receiving: domain.receiving_enabled,
    domain_inbound_refuse_dmarc_reject: domain.inbound_refuse_dmarc_reject,
    dns_records: dnsRecords(ctx, domain).map((r) => ({ ...r, check: results[r.purpose] ?? null })),
  };
}

/** The customer's domains for the console. */
export async function listDomainsForConsole(ctx: AppContext, customerId: number): Promise<DomainWire[]> {
  return (await repo.listCustomerDomains(ctx.db, customerId)).map((d) => domainToWire(ctx, d));
}

/** GET /v1/get-started: the customer's domains and credentials, and whether the account is a reseller. */
export async function getStarted(ctx: AppContext, customerId: number) {
  const customer = await findCustomer(ctx.db, customerId);
  if (!customer) throw new DomainError('not_found', 'No such customer');
  const [domains, credentials] = await Promise.all([
    listDomainsForConsole(ctx, customerId),
    credentialsForConsole(ctx, customerId),
  ]);
  return { domains, ...credentials, isReseller: customer.is_reseller };
}

/** One domain of the customer, or 404 (another customer's id is simply not found). */
export async function customerDomain(ctx: AppContext, customerId: number, domainId: number): Promise<Domain> {
  const domain = Number.isSafeInteger(domainId)
    ? await repo.findCustomerDomainById(ctx.db, customerId, domainId)
    : undefined;
  if (!domain) throw new DomainError('not_found', 'No such domain');
  return domain;
}

/**
 * Removes a domain of the customer: 404 for another account's id, refused (unprocessable) while any
 * of its mail is queued or scheduled, since the delivery worker needs the domain's key to send it.
 * Sent mail keeps its history; sends from the domain are refused from the next message on.
 */
export async function removeDomain(ctx: AppContext, customerId: number, domainId: number): Promise<void> {
  await inTransaction(ctx.db, async (trx) => {
    const domain = Number.isSafeInteger(domainId)
      ? await repo.lockCustomerDomain(trx, customerId, domainId)
      : undefined;
    if (!domain) throw new DomainError('not_found', 'No such domain');
    if (await repo.hasWaitingMail(trx, domain.id))
      throw new DomainError(
        'unprocessable',
        `Mail from ${domain.domain} is still queued or scheduled: cancel it or let it go out, then remove the domain`,
      );
    await repo.deleteDomain(trx, domain.id);
    await invalidateLookups(ctx, trx);
  });
  clearLookupCaches(ctx); // a send between the delete and the commit may have cached it again
  ctx.logger.info({ domainId, customerId }, 'domain removed');
}

/** The domain the MX listener receives `name`'s mail for: verified, with receiving on (docs/receiving.md). */
export function receivingDomainFor(ctx: Pick<AppContext, 'db'>, name: string): Promise<Domain | undefined> {
  return repo.findReceivingDomain(ctx.db, name);
}

/** Switches receiving (and the refusal of DMARC rejects) for one of this customer's domains; 404 otherwise. */
export async function setDomainReceiving(
  ctx: Pick<AppContext, 'db'>,
  customerId: number,
  domainId: number,
  values: { receiving?: boolean; refuseDmarcReject?: boolean },
): Promise<void> {
  const columns = {
    ...(values.receiving === undefined ? {} : { receiving_enabled: values.receiving }),
    ...(values.refuseDmarcReject === undefined ? {} : { inbound_refuse_dmarc_reject: values.refuseDmarcReject }),
  };
  // nothing to change: the answer still says whether the domain is the customer's
  const found = Object.keys(columns).length
    ? await repo.setReceiving(ctx.db, customerId, domainId, columns)
    : (await repo.findCustomerDomainById(ctx.db, customerId, domainId)) !== undefined;
  if (!found) throw new DomainError('not_found', 'Domain not found');
}
