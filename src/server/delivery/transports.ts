// Where a message goes: through SMTP_RELAY_URL when set, else straight to the recipient domain's
// MX hosts (RFC 5321 §5.1: lowest preference first; no MX → the domain's own address). Transports
// are nodemailer pools, one per destination host, with file and URL access disabled.
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';
import { createResolver } from '../domains/resolver.ts';

export class NoRouteError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export interface Route {
  key: string;
  transport: Transporter;
}

export interface TransportPool {
  /** The transport for a recipient domain. */
  routeFor(domain: string): Promise<Route>;
  close(): void;
}

const BASE = {
  pool: true,
  maxConnections: 8,
  maxMessages: 500,
  disableFileAccess: true,
  disableUrlAccess: true,
  connectionTimeout: 30_000,
  greetingTimeout: 30_000,
  socketTimeout: 60_000,
} as const;

export function createTransportPool(config: Config): TransportPool {
  const heloName = config.heloName ?? new URL(config.publicUrl).hostname;
  const pools = new Map<string, Transporter>();
  const get = (key: string, make: () => Transporter) => {
    let t = pools.get(key);
    if (!t) {
      t = make();
      pools.set(key, t);
    }
    return t;
  };

  if (config.smtpRelayUrl) {
    const url = new URL(config.smtpRelayUrl);
    const relay = () =>
      nodemailer.createTransport({
        ...BASE,
        host: url.hostname,
        port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 587)),
        secure: url.protocol === 'smtps:',
        name: heloName,
        auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
        tls: { rejectUnauthorized: url.searchParams.get('tls_verify') !== 'false' },
      });
    return {
      async routeFor() {
        return { key: 'relay', transport: get('relay', relay) };
      },
      close: () => pools.forEach((t) => t.close()),
    };
  }

  const resolver = createResolver(config);
  const mxCache = new Map<string, { host: string; until: number }>();

  async function mxHost(domain: string): Promise<string> {
    const cached = mxCache.get(domain);
    if (cached && cached.until > Date.now()) return cached.host;
    let host = domain;
    try {
      const records = await resolver.resolveMx(domain);
      const usable = records.filter((r) => r.exchange && r.exchange !== '.').sort((a, b) => a.priority - b.priority);
      if (records.length > 0 && usable.length === 0) throw new NoRouteError(`${domain} does not accept mail (null MX, RFC 7505)`, 'ENODOMAIN');
      if (usable.length) host = usable[0].exchange;
    } catch (err) {
      if (err instanceof NoRouteError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND') throw new NoRouteError(`${domain} does not exist`, 'ENOTFOUND');
      if (code !== 'ENODATA') throw new NoRouteError(`MX lookup for ${domain} failed (${code})`, code ?? 'EDNS');
    }
    mxCache.set(domain, { host, until: Date.now() + 300_000 });
    return host;
  }

  return {
    async routeFor(domain) {
      const host = await mxHost(domain);
      const key = `${host}:${config.mxPort}`;
      return {
        key,
        transport: get(key, () =>
          nodemailer.createTransport({
            ...BASE,
            host,
            port: config.mxPort,
            secure: false,
            name: heloName,
            // opportunistic STARTTLS: MX certificates are often not valid for the MX name
            tls: { rejectUnauthorized: false },
          }),
        ),
      };
    },
    close: () => pools.forEach((t) => t.close()),
  };
}
