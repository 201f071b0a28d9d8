// The service's own mail (domain verification) is sent like any customer's: accepted into the
// queue, delivered by the workers, DKIM-signed. It is sent as a system customer (created on first
// use) that owns the SYSTEM_FROM domain, so it never counts against a customer's quota or shows in
// a customer's reports.
import { sql } from 'kysely';
import type { AppContext } from '../core/context.ts';
import type { Address } from '../db/schema.ts';
import { AddressError, domainOf, parseAddress } from '../core/addresses.ts';
import * as repo from './domains.repository.ts';
import { addDomain } from './domains.service.ts';
import { inTransaction } from '../core/transaction.ts';
import { Reading } from '../core/reading.ts';

export interface SystemSender {
  customerId: number;
  from: Address;
}

const IP_ADDRESS = /^[\d.]+$|:/;

/** SYSTEM_FROM, or `Transact <no-reply@<PUBLIC_URL host>>` (transact.localhost when the host is not a domain name). */
export function systemFromAddress(config: Pick<AppContext['config'], 'systemFrom' | 'publicUrl'>): Address {
  if (config.systemFrom) {
    try {
      return parseAddress(config.systemFrom);
    } catch (err) {
      if (err instanceof AddressError) throw new Error(`SYSTEM_FROM: ${err.message}`);
      throw err;
    }
  }
  const host = new URL(config.publicUrl).hostname;
  const domain = host.includes('.') && !IP_ADDRESS.test(host) ? host : 'transact.localhost';
  return { email: `no-reply@${domain}`, name: 'Transact' };
}

declare module '../core/context.ts' {
  interface AppContext {
    /** The system customer and its sending domain, created on first use (create-context.ts). */
    readonly systemSender: Reading<SystemSender>;
  }
}

/** The system customer and its sending domain, created once (an advisory lock serialises processes). */
export function systemSender(ctx: AppContext): Promise<SystemSender> {
  return ctx.systemSender.get();
}

/** What AppContext.systemSender reads: made once, asked again only after a failure. */
export function systemSenderReading(ctx: AppContext): Reading<SystemSender> {
  return new Reading(() => ensureSystemSender(ctx), Number.POSITIVE_INFINITY);
}

async function ensureSystemSender(ctx: AppContext): Promise<SystemSender> {
  const from = systemFromAddress(ctx.config);
  const customerId = await inTransaction(ctx.db, async (trx) => {
    await sql`select pg_advisory_xact_lock(7346002)`.execute(trx);
    return (await repo.findSystemCustomerId(trx)) ?? (await repo.insertSystemCustomer(trx));
  });
  const domain = domainOf(from.email);
  if (!(await repo.findCustomerDomain(ctx.db, customerId, domain))) {
    try {
      await addDomain(ctx, customerId, domain, { verified: true, trusted: true });
    } catch (err) {
      // another process added it first (unique per customer and domain)
      if (!(await repo.findCustomerDomain(ctx.db, customerId, domain))) throw err;
    }
  }
  return { customerId, from };
}
