// Where a webhook may point (against SSRF; docs/webhooks.md): http or https, no user-info, at most
// 2,048 characters, and a host that neither is nor resolves to a loopback, private (RFC 1918, ULA), link-local
// (cloud metadata included), CGNAT, multicast, unspecified or otherwise reserved address. This is
// the save-time check, on every spelling: WHATWG URL parsing turns decimal, octal, hex and short
// IPv4 forms into dotted quads, IPv4-mapped IPv6 is unwrapped, trailing dots are dropped. The
// connect-time check on the address actually dialled is request-filtering-agent's (deliver.ts),
// so a name that resolves elsewhere later (DNS rebinding) still cannot reach our network.
import net from 'node:net';
import type { Resolver } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export const MAX_URL_LENGTH = 2048;

/** Whether `address` lies in one of the CIDRs of WEBHOOK_ALLOWED_NETWORKS. */
export function inAllowedNetworks(address: string, allowed: readonly string[]): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return allowed.some((cidr) => {
    const range = ipaddr.parseCIDR(cidr);
    return parsed.kind() === range[0].kind() && parsed.match(range);
  });
}

/** Why an IP address may not be a webhook target, or null when it may. */
export function blockedAddressReason(address: string, allowed: readonly string[]): string | null {
  if (inAllowedNetworks(address, allowed)) return null;
  let parsed = ipaddr.parse(address);
  // ::ffff:a.b.c.d reaches a.b.c.d
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
    if (inAllowedNetworks(parsed.toString(), allowed)) return null;
  }
  const range = parsed.range();
  // every special-purpose range (loopback, private, uniqueLocal, linkLocal, carrierGradeNat,
  // multicast, unspecified, broadcast, reserved, 6to4, teredo…) is refused, not only the common ones
  return range === 'unicast' ? null : `${parsed.toString()} is a ${describeRange(range)} address`;
}

function describeRange(range: string): string {
  const names: Record<string, string> = {
    loopback: 'loopback',
    private: 'private (RFC 1918)',
    uniqueLocal: 'private (unique local)',
    linkLocal: 'link-local (or cloud metadata)',
    carrierGradeNat: 'carrier-grade NAT',
    multicast: 'multicast',
    unspecified: 'unspecified',
    broadcast: 'broadcast',
  };
  return names[range] ?? `reserved (${range})`;
}

export interface UrlCheckOptions {
  allowed: readonly string[];
  resolver: Pick<Resolver, 'resolve4' | 'resolve6'>;
  /** What the answer calls the URL: 'The webhook URL' unless given (attachments by URL share the rules). */
  subject?: string;
}

/** Resolves a name's A and AAAA records; [] when it has none. */
async function addressesOf(host: string, resolver: UrlCheckOptions['resolver']): Promise<string[]> {
  const settle = (p: Promise<string[]>) => p.catch(() => [] as string[]);
  const [v4, v6] = await Promise.all([settle(resolver.resolve4(host)), settle(resolver.resolve6(host))]);
  return [...v4, ...v6];
}

/** Why `raw` may not be a webhook (or attachment) URL, a sentence for the refusal; null when it may. */
export async function webhookUrlProblem(raw: string, opts: UrlCheckOptions): Promise<string | null> {
  const subject = opts.subject ?? 'The webhook URL';
  if (raw.length > MAX_URL_LENGTH)
    return `${subject} is longer than ${MAX_URL_LENGTH.toLocaleString('en-US')} characters.`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${subject} is not a valid absolute URL.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `${subject} must use http or https, not ${url.protocol.replace(/:$/, '')}.`;
  if (url.username || url.password)
    return opts.subject
      ? `${subject} must not contain a user name or password.`
      : `${subject} must not contain a user name or password; use Basic authentication instead.`;
  const host = url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  if (host === '') return `${subject} has no host.`;
  if (net.isIP(host)) {
    const reason = blockedAddressReason(host, opts.allowed);
    return reason ? `${subject} is not allowed: ${reason}.` : null;
  }
  if (host === 'localhost' || host.endsWith('.localhost'))
    return `${subject} is not allowed: localhost is a loopback address.`;
  const addresses = await addressesOf(host, opts.resolver);
  if (addresses.length === 0) return `${subject} is not allowed: ${host} does not resolve to an address.`;
  for (const address of addresses) {
    const reason = blockedAddressReason(address, opts.allowed);
    if (reason) return `${subject} is not allowed: ${host} resolves to ${reason}.`;
  }
  return null;
}
