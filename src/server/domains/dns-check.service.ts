// DNS checks of sending domains: on demand (the console's "check now") and periodically in the
// worker role, so the console shows whether SPF, DKIM, DMARC and the return path are published.
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { checkDomainRecords, type DnsCheckResults } from './dns-check.ts';
import { claimDueDomains, storeDnsResults } from './dns-check.repository.ts';
import { findDomain } from './domains.repository.ts';
import { dnsRecords } from './domains.service.ts';

const CLAIM_BATCH = 20;
// how often the worker looks for due domains; the interval itself is DNS_CHECK_INTERVAL_MINUTES
const POLL_MS = 60_000;

/** Checks a domain's records in DNS now, stores the results with the time, and returns them. */
export async function runDnsCheck(ctx: AppContext, domainId: number): Promise<DnsCheckResults> {
  const domain = await findDomain(ctx.db, domainId);
  if (!domain) throw new DomainError('not_found', 'Domain not found');
  const results = await checkDomainRecords(ctx.resolver, dnsRecords(ctx, domain));
  await storeDnsResults(ctx.db, domain.id, results);
  return results;
}

/** Claims and checks due domains until none is left (or `signal` aborts); returns the ids it checked. */
export async function refreshDueDomains(ctx: AppContext, signal?: AbortSignal): Promise<number[]> {
  const checked: number[] = [];
  while (!signal?.aborted) {
    const ids = await claimDueDomains(ctx.db, ctx.config.dnsCheckIntervalMinutes, CLAIM_BATCH);
    if (ids.length === 0) break;
    const outcomes = await Promise.allSettled(ids.map((id) => runDnsCheck(ctx, id)));
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'rejected') ctx.logger.warn({ err: outcome.reason, domainId: ids[i] }, 'DNS check failed');
    });
    checked.push(...ids);
  }
  return checked;
}

/**
 * Checks due domains now and then every minute (never when DNS_CHECK_INTERVAL_MINUTES is 0).
 * Returns a stop function that lets the batch in progress finish.
 */
export function startDnsRefresher(ctx: AppContext): () => Promise<void> {
  if (ctx.config.dnsCheckIntervalMinutes === 0) return async () => {};
  const stopping = new AbortController();
  let round: Promise<void> | null = null;
  const tick = () => {
    if (round || stopping.signal.aborted) return; // the previous round is still going
    round = refreshDueDomains(ctx, stopping.signal)
      .then(
        () => {},
        (err: unknown) => ctx.logger.warn({ err }, 'refreshing DNS checks failed'),
      )
      .finally(() => {
        round = null;
      });
  };
  const timer = setInterval(tick, POLL_MS);
  timer.unref();
  tick();
  return async () => {
    stopping.abort();
    clearInterval(timer);
    await round;
  };
}
