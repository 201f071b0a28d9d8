// Sending domains: each gets its own 2048-bit RSA DKIM key (selector chosen by us) and a list of
// DNS records to publish. Mail is accepted only from a domain of the sender's own customer that is
// sending-verified (issue 3); verification by email and DNS checks come with the domains issue.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { AppContext } from '../context.ts';
import type { Domain } from '../db/schema.ts';
import { ApiError } from '../http/errors.ts';
import { normalizeDomain } from '../sending/addresses.ts';
import { secretsOf } from '../credentials/credentials.service.ts';
import * as repo from './domains.repository.ts';
import { clearLookupCaches, invalidateLookups, lookupCache } from '../lookup-cache.ts';

const generateKeyPairAsync = promisify(generateKeyPair);

export interface DnsRecord {
  purpose: 'spf' | 'dkim' | 'dmarc' | 'return_path';
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
}

/** Where DKIM keys live in DNS: `<selector>._domainkey.<domain>`. */
export function dkimRecordName(domain: Pick<Domain, 'domain' | 'dkim_selector'>): string {
  return `${domain.dkim_selector}._domainkey.${domain.domain}`;
}

export function returnPathDomainOf(ctx: Pick<AppContext, 'config'>): string {
  return ctx.config.returnPathDomain ?? new URL(ctx.config.publicUrl).hostname;
}

/** The records a customer publishes for a domain. */
export function dnsRecords(ctx: Pick<AppContext, 'config'>, domain: Pick<Domain, 'domain' | 'dkim_selector' | 'dkim_public_key'>): DnsRecord[] {
  const returnPath = returnPathDomainOf(ctx);
  return [
    { purpose: 'spf', type: 'TXT', name: domain.domain, value: `v=spf1 include:_spf.${returnPath} ~all` },
    { purpose: 'dkim', type: 'TXT', name: dkimRecordName(domain), value: `v=DKIM1; k=rsa; p=${domain.dkim_public_key}` },
    { purpose: 'dmarc', type: 'TXT', name: `_dmarc.${domain.domain}`, value: 'v=DMARC1; p=none;' },
    { purpose: 'return_path', type: 'CNAME', name: `bounces.${domain.domain}`, value: returnPath },
  ];
}

/** Creates a domain for a customer with a fresh DKIM key pair. */
export async function addDomain(ctx: AppContext, customerId: number, name: string, opts: { verified?: boolean } = {}): Promise<Domain> {
  const domain = normalizeDomain(name);
  if (!domain) throw new ApiError('validation_failed', `'${name}' is not a valid domain name`);
  if (await repo.findCustomerDomain(ctx.db, customerId, domain)) throw new ApiError('conflict', `${domain} is already added to this account`);
  const other = await repo.findVerifiedAnywhere(ctx.db, domain);
  if (other && other.customer_id !== customerId) throw new ApiError('conflict', `${domain} is verified by another account`);
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
    dkim_private_key_sealed: secretsOf(ctx).encrypt(privateKey),
    dkim_public_key: (publicKey as Buffer).toString('base64'),
  });
}

export interface SendingDomain {
  id: number;
  domain: string;
  selector: string;
  /** Decrypted lazily by the delivery worker, never sent anywhere. */
  privateKeySealed: string;
}

/** The verified sending domain of this customer for a From address's domain, or an ApiError. */
export async function requireSendingDomain(ctx: AppContext, customerId: number, fromDomain: string): Promise<SendingDomain> {
  const cache = lookupCache<SendingDomain>(ctx, 'sending-domains');
  const key = `${customerId}:${fromDomain.toLowerCase()}`;
  let hit = cache.get(key);
  if (!hit) {
    const domain = await repo.findCustomerDomain(ctx.db, customerId, fromDomain);
    if (!domain || !domain.sending_verified) {
      throw new ApiError('domain_not_verified', `The domain ${fromDomain} is not a verified sending domain of this account`);
    }
    hit = { id: domain.id, domain: domain.domain, selector: domain.dkim_selector, privateKeySealed: domain.dkim_private_key_sealed };
    cache.set(key, hit);
  }
  return hit;
}

/** Marks a domain (un)verified for sending; senders see the change at once. */
export async function setSendingVerified(ctx: AppContext, domainId: number, verified: boolean): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await repo.setVerified(trx, domainId, verified);
    await invalidateLookups(ctx, trx);
  });
  clearLookupCaches(ctx);
}
