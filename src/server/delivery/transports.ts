// Delivery through SMTP_RELAY_URL: a nodemailer pool to the smarthost, file and URL access
// disabled. Without a relay the worker delivers to the recipients' MX hosts itself (direct.ts).
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../core/config.ts';

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
        auth: url.username
          ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) }
          : undefined,
        tls: { rejectUnauthorized: url.searchParams.get('tls_verify') !== 'false' },
      });
    return {
      async routeFor() {
        return { key: 'relay', transport: get('relay', relay) };
      },
      close: () => {
        for (const t of pools.values()) t.close();
      },
    };
  }

  // without a relay the worker delivers to each recipient domain's MX hosts itself (direct.ts)
  return {
    routeFor: (domain) =>
      Promise.reject(new NoRouteError(`no relay for ${domain}: direct MX delivery goes through direct.ts`, 'ENORELAY')),
    close: () => {},
  };
}
