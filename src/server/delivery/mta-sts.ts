// MTA-STS (RFC 8461): a recipient domain that publishes `_mta-sts.<domain>` TXT and a policy at
// https://mta-sts.<domain>/.well-known/mta-sts.txt tells us which MX hosts may take its mail and
// whether TLS with a valid certificate is required (`enforce`) or only reported (`testing`). The
// TXT record and the policy host's address come through DNS_SERVERS; the certificate is checked
// against the default CAs (plus NODE_EXTRA_CA_CERTS) and the system's. Policies are cached for
// their max_age, fetched again when the TXT id changes, and kept when a fetch fails (§5.1).
import type { Resolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';

export interface StsPolicy {
  mode: 'enforce' | 'testing' | 'none';
  mx: string[];
  maxAge: number;
}

/** The id of an `_mta-sts` TXT record set (RFC 8461 §3.1), or null when there is not exactly one. */
export function parseStsTxt(records: string[]): string | null {
  const sts = records.filter((r) => /^v=STSv1\s*(;|$)/.test(r));
  if (sts.length !== 1) return null;
  const id = /(?:^|;)\s*id=([A-Za-z0-9]{1,32})\s*(?:;|$)/.exec(sts[0]);
  return id ? id[1] : null;
}

/** A policy file (RFC 8461 §3.2), or null when it is not a valid STSv1 policy. */
export function parseStsPolicy(text: string): StsPolicy | null {
  const fields: [string, string][] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^([A-Za-z0-9_]+):\s*(.*?)\s*$/.exec(line);
    if (m) fields.push([m[1], m[2]]);
  }
  const one = (k: string) => fields.find(([key]) => key === k)?.[1];
  const mode = one('mode');
  const maxAge = Number(one('max_age'));
  if (one('version') !== 'STSv1' || (mode !== 'enforce' && mode !== 'testing' && mode !== 'none')) return null;
  if (!Number.isInteger(maxAge) || maxAge < 0 || maxAge > 31_557_600) return null;
  const mx = fields.filter(([k]) => k === 'mx').map(([, v]) => v.toLowerCase());
  if (mode !== 'none' && mx.length === 0) return null;
  return { mode, mx, maxAge };
}

/** Whether an MX host name matches a policy `mx` pattern (`*.example.net`: one leftmost label). */
export function mxMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, '');
  const h = host.toLowerCase().replace(/\.$/, '');
  if (p.startsWith('*.')) {
    const rest = p.slice(2);
    const dot = h.indexOf('.');
    return dot > 0 && h.slice(dot + 1) === rest;
  }
  return p === h;
}

interface Cached {
  id: string;
  policy: StsPolicy;
  expires: number;
}

const TXT_CACHE_MS = 60_000;
const FETCH_TIMEOUT_MS = 10_000;
const MAX_POLICY_BYTES = 64 * 1024;

/**
 * The certificate authorities an MTA-STS check trusts: Node's bundled ones, the system's (Node ≥
 * 22.15 can list them) and the PEM file of NODE_EXTRA_CA_CERTS, read here as well so the setting
 * given to this service's config counts even when the process was started without it.
 */
export function trustedCas(extraFile: string | undefined): string[] {
  // absent before Node 22.15 (the engines field allows 22.12), which its typings do not say
  const get: typeof tls.getCACertificates | undefined = tls.getCACertificates;
  const cas = new Set<string>(tls.rootCertificates);
  if (get) {
    for (const kind of ['default', 'system'] as const) {
      try {
        for (const c of get(kind)) cas.add(c);
      } catch {
        // a store the platform does not have
      }
    }
  }
  if (extraFile) {
    const pem = readFileSync(extraFile, 'utf8');
    for (const c of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) cas.add(c);
  }
  return [...cas];
}

export class MtaSts {
  readonly #resolver: Resolver;
  readonly #policies = new Map<string, Cached>();
  readonly #txt = new Map<string, { id: string | null; until: number }>();
  readonly #ca: string[];
  readonly #port: number;

  readonly #txtCacheMs: number;

  /** `port` is 443 and `txtCacheMs` a minute but for tests (a policy server cannot listen on 443 there). */
  constructor(resolver: Resolver, ca: string[], port = 443, txtCacheMs = TXT_CACHE_MS) {
    this.#resolver = resolver;
    this.#ca = ca;
    this.#port = port;
    this.#txtCacheMs = txtCacheMs;
  }

  /** The policy that applies to mail for `domain` now, or null (none published, or mode none). */
  async policyFor(domain: string): Promise<StsPolicy | null> {
    const now = Date.now();
    const cached = this.#policies.get(domain);
    const id = await this.#txtId(domain);
    // the TXT lookup failed (not "no such record"): a cached policy still applies (RFC 8461 §5.1),
    // so blocking DNS cannot turn enforcement off
    if (id === undefined) return cached && cached.expires > now ? usable(cached.policy) : null;
    if (cached && cached.expires > now && id === cached.id) return usable(cached.policy);
    if (id === null) {
      if (cached) this.#policies.delete(domain);
      return null;
    }
    try {
      const policy = await this.#fetch(domain);
      if (policy) {
        this.#policies.set(domain, { id, policy, expires: now + policy.maxAge * 1000 });
        return usable(policy);
      }
    } catch {
      // a failed fetch keeps a cached policy that has not expired (RFC 8461 §5.1)
    }
    return cached && cached.expires > now ? usable(cached.policy) : null;
  }

  /**
   * The policy id the TXT record publishes; null when there is none (or no valid one); undefined when the lookup
   * failed.
   */
  async #txtId(domain: string): Promise<string | null | undefined> {
    const hit = this.#txt.get(domain);
    if (hit && hit.until > Date.now()) return hit.id;
    let id: string | null;
    try {
      id = parseStsTxt((await this.#resolver.resolveTxt(`_mta-sts.${domain}`)).map((parts) => parts.join('')));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'ENOTFOUND' && code !== 'ENODATA') return undefined; // SERVFAIL, timeout, refused: not cached
      id = null;
    }
    this.#txt.set(domain, { id, until: Date.now() + this.#txtCacheMs });
    return id;
  }

  #fetch(domain: string): Promise<StsPolicy | null> {
    const host = `mta-sts.${domain}`;
    return new Promise((resolve, reject) => {
      const req = https.get(
        {
          host,
          port: this.#port,
          path: '/.well-known/mta-sts.txt',
          servername: host,
          ca: this.#ca,
          timeout: FETCH_TIMEOUT_MS,
          agent: false,
          // the policy host's address through DNS_SERVERS too
          lookup: (hostname, opts, cb) => {
            const done = cb as (
              err: Error | null,
              address: string | { address: string; family: number }[],
              family?: number,
            ) => void;
            this.#resolver.resolve4(hostname).then(
              // net asks for every address at once when it may try several (autoSelectFamily)
              (addrs) =>
                (opts as { all?: boolean }).all
                  ? done(
                      null,
                      addrs.map((address) => ({ address, family: 4 })),
                    )
                  : done(null, addrs[0], 4),
              (err: Error) => done(err, '', 4),
            );
          },
        },
        (res) => {
          // no redirects (§3.3): anything but 200 text/plain is no policy
          if (res.statusCode !== 200 || !/^text\/plain/i.test(res.headers['content-type'] ?? '')) {
            res.resume();
            return resolve(null);
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_POLICY_BYTES) req.destroy(new Error('policy too large'));
            else chunks.push(c);
          });
          res.on('end', () => resolve(parseStsPolicy(Buffer.concat(chunks).toString('utf8'))));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('policy fetch timed out')));
      req.on('error', reject);
    });
  }
}

const usable = (p: StsPolicy) => (p.mode === 'none' ? null : p);
