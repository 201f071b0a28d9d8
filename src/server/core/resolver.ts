// The one DNS resolver setup of the service (MX lookups for delivery, sending-domain checks): the
// servers of DNS_SERVERS, or the system's, with a short timeout so a dead resolver costs seconds.
import { Resolver } from 'node:dns/promises';
import type { Config } from './config.ts';

// c-ares doubles the timeout on each retry; maxTimeout caps every try, so two tries cost ≤ 6 s
const TIMEOUT_MS = 3_000;
const TRIES = 2;

/** A resolver for `config.dnsServers` ('ip' or 'ip:port'; empty = the system resolver). */
export function createResolver(config: Pick<Config, 'dnsServers'>): Resolver {
  const resolver = new Resolver({ timeout: TIMEOUT_MS, maxTimeout: TIMEOUT_MS, tries: TRIES });
  if (config.dnsServers.length) resolver.setServers(config.dnsServers);
  return resolver;
}
