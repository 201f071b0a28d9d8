// Where a recipient domain's mail goes when we deliver straight to it (RFC 5321 §5.1): its MX hosts
// in preference order (equal preferences shuffled so they share the load), each host's A and AAAA
// addresses; no MX → the domain itself as an implicit MX; a null MX (`MX 0 .`, RFC 7505) → nowhere.
// The ordering rules are pure (tested table by table); resolution goes through DNS_SERVERS.
import type { Resolver } from 'node:dns/promises';

export interface MxRecord {
  exchange: string;
  priority: number;
}

export type MxPlan =
  | { kind: 'hosts'; hosts: string[]; implicit: boolean; records?: MxRecord[] }
  | { kind: 'null' }
  | { kind: 'none'; reason: string; permanent: boolean };

const normal = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * MX records → host names to try in order: lowest preference first, ties in random order
 * (`random` returns [0, 1), injectable for tests). An MX set holding only "." is a null MX.
 */
export function orderMx(records: MxRecord[], random: () => number = Math.random): MxPlan {
  const usable = records.filter((r) => normal(r.exchange) !== '');
  if (records.length > 0 && usable.length === 0) return { kind: 'null' };
  const keyed = usable.map((r) => ({ host: normal(r.exchange), priority: r.priority, tie: random() }));
  keyed.sort((a, b) => a.priority - b.priority || a.tie - b.tie);
  const hosts: string[] = [];
  for (const k of keyed) if (!hosts.includes(k.host)) hosts.push(k.host);
  return { kind: 'hosts', hosts, implicit: false, records: usable };
}

/** The destination site of a set of MX hosts: the same set, whatever the domain, is one site. */
export function siteOf(hosts: string[]): string {
  return [...new Set(hosts.map(normal))].sort().join(',');
}

/** The MX plan of a domain through the resolver (DNS_SERVERS). */
export async function resolveMxPlan(resolver: Resolver, domain: string): Promise<MxPlan> {
  try {
    const records = await resolver.resolveMx(domain);
    if (records.length > 0) return orderMx(records);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTFOUND') return { kind: 'none', reason: `${domain} does not exist`, permanent: true };
    if (code !== 'ENODATA')
      return { kind: 'none', reason: `MX lookup for ${domain} failed (${code})`, permanent: false };
  }
  // no MX records: the domain's own address is its implicit MX (RFC 5321 §5.1)
  return { kind: 'hosts', hosts: [normal(domain)], implicit: true };
}

/** A host's IPv4 then IPv6 addresses; a host without any is skipped by the caller. */
export async function addressesOf(resolver: Resolver, host: string): Promise<string[]> {
  const [v4, v6] = await Promise.all([
    resolver.resolve4(host).catch(() => [] as string[]),
    resolver.resolve6(host).catch(() => [] as string[]),
  ]);
  return [...v4, ...v6];
}
