// Every setting of the service: one environment variable each, with a default and a description.
// docs/configuration.md's table is printed from this list (`npm run admin -- config`), so the
// two cannot drift. Secrets also accept `<NAME>_FILE` (a path whose contents are the value).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { isWireDay } from '../../lib/dates.ts';

type Kind = 'string' | 'int' | 'bool' | 'url' | 'list';

interface Setting {
  env: string;
  kind: Kind;
  default: string | undefined;
  description: string;
  secret?: boolean;
}

/** The table of settings; `key` is the name used in code. */
export const SETTINGS = {
  port: {
    env: 'PORT',
    kind: 'int',
    default: '4321',
    description: 'HTTP port for the console, API, tracking and public pages.',
  },
  host: { env: 'HOST', kind: 'string', default: '0.0.0.0', description: 'Address the HTTP server listens on.' },
  publicUrl: {
    env: 'PUBLIC_URL',
    kind: 'url',
    default: undefined,
    description:
      'Public base URL of this service (links in mail, API endpoint shown to customers). Default ' +
      'http://localhost:PORT.',
  },
  trackingUrl: {
    env: 'TRACKING_URL',
    kind: 'url',
    default: undefined,
    description:
      'Base URL of open and click tracking links (/t/o, /t/c) when recipients should reach them at another host than ' +
      'PUBLIC_URL (e.g. click.example.com pointing at this service). Default: PUBLIC_URL.',
  },
  roles: {
    env: 'ROLES',
    kind: 'list',
    default: 'web,smtp,worker',
    description: 'Roles this process runs (also `--roles`): web, smtp, worker.',
  },
  dataDir: {
    env: 'DATA_DIR',
    kind: 'string',
    default: './data',
    description: 'Directory for the embedded database and local files. One service per directory.',
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    kind: 'string',
    default: undefined,
    secret: true,
    description: 'postgres://… to use PostgreSQL instead of the embedded PGlite database.',
  },
  databasePoolSize: {
    env: 'DATABASE_POOL_SIZE',
    kind: 'int',
    default: '10',
    description: 'PostgreSQL connections per process.',
  },
  pgliteSharedBuffers: {
    env: 'PGLITE_SHARED_BUFFERS',
    kind: 'string',
    default: '16MB',
    description:
      "PGlite: PostgreSQL's shared_buffers, in the process's own memory (PostgreSQL's default of 128MB costs that " +
      "much memory for good; reads beyond it come from the operating system's page cache).",
  },
  pgliteSyncCommits: {
    env: 'PGLITE_SYNC_COMMITS',
    kind: 'bool',
    default: 'true',
    description:
      'PGlite: fdatasync the WAL after every commit before answering, so a power cut loses nothing acknowledged. ' +
      'false trades that for speed.',
  },
  secret: {
    env: 'TRANSACT_SECRET',
    kind: 'string',
    default: undefined,
    secret: true,
    description:
      'Master secret for encrypting credentials at rest and signing tokens (32+ characters). Required with ' +
      'DATABASE_URL; with the embedded database one is generated into DATA_DIR on first start.',
  },
  adminEmail: {
    env: 'TRANSACT_ADMIN_EMAIL',
    kind: 'string',
    default: 'admin@localhost',
    description: 'Email of the administrator created on first start with an empty database.',
  },
  adminPassword: {
    env: 'TRANSACT_ADMIN_PASSWORD',
    kind: 'string',
    default: undefined,
    secret: true,
    description: 'Password of that administrator; when unset, one is generated and printed once.',
  },
  consoleToday: {
    env: 'CONSOLE_TODAY',
    kind: 'string',
    default: undefined,
    description:
      'The UTC day (YYYY-MM-DD) the console takes for today where the server renders a date range (the default ' +
      "range ends on it). Unset: the clock's day. For tests that must not depend on the calendar; the browser " +
      'keeps its own clock after the page loads.',
  },
  parentPlatformUrl: {
    env: 'PARENT_PLATFORM_URL',
    kind: 'url',
    default: undefined,
    description: 'Base URL of the parent platform that signs users in with the challenge flow (/login?install_url=…).',
  },
  parentPlatformSecret: {
    env: 'PARENT_PLATFORM_SECRET',
    kind: 'string',
    default: undefined,
    secret: true,
    description: 'Shared secret (HS256) the parent platform signs its sign-in assertions with.',
  },
  sessionTtlSeconds: {
    env: 'SESSION_TTL_SECONDS',
    kind: 'int',
    default: '604800',
    description: 'Idle lifetime of a console session; every use extends it (sliding expiry).',
  },
  loginMaxFailures: {
    env: 'LOGIN_MAX_FAILURES',
    kind: 'int',
    default: '5',
    description: 'Failed sign-ins allowed per email or per client address within LOGIN_WINDOW_SECONDS before 429.',
  },
  loginWindowSeconds: {
    env: 'LOGIN_WINDOW_SECONDS',
    kind: 'int',
    default: '900',
    description: 'Window over which failed sign-ins are counted.',
  },
  consoleBodyLimitBytes: {
    env: 'CONSOLE_BODY_LIMIT_BYTES',
    kind: 'int',
    default: '1048576',
    description: 'Largest request body accepted by console API calls.',
  },
  sendBodyLimitBytes: {
    env: 'SEND_BODY_LIMIT_BYTES',
    kind: 'int',
    default: '41943040',
    description:
      'Largest request body accepted by the send endpoints (/v1/mail, /v1/emails); attachments are base64, so about ' +
      '4/3 of the 25 MB message limit plus headroom.',
  },
  smtpPort: {
    env: 'SMTP_PORT',
    kind: 'int',
    default: '2525',
    description: 'Port of the SMTP submission server (smtp role).',
  },
  smtpPublicHost: {
    env: 'SMTP_PUBLIC_HOST',
    kind: 'string',
    default: undefined,
    description: 'SMTP host name shown to customers. Default: the host of PUBLIC_URL.',
  },
  smtpTlsKeyFile: {
    env: 'SMTP_TLS_KEY_FILE',
    kind: 'string',
    default: undefined,
    description:
      'PEM private key for STARTTLS on the submission port; without it a self-signed certificate is generated at ' +
      'start.',
  },
  smtpTlsCertFile: {
    env: 'SMTP_TLS_CERT_FILE',
    kind: 'string',
    default: undefined,
    description: 'PEM certificate (chain) for STARTTLS.',
  },
  smtpAllowInsecureAuth: {
    env: 'SMTP_ALLOW_INSECURE_AUTH',
    kind: 'bool',
    default: undefined,
    description: 'Allow AUTH before STARTTLS. Default: true only when HOST is a loopback address.',
  },
  smtpMaxMessageBytes: {
    env: 'SMTP_MAX_MESSAGE_BYTES',
    kind: 'int',
    default: '36700160',
    description: 'Largest message accepted over SMTP (announced in EHLO SIZE, checked at MAIL FROM and after DATA).',
  },
  bounceSmtpPort: {
    env: 'BOUNCE_SMTP_PORT',
    kind: 'int',
    default: '2526',
    description:
      'Port of the bounce receiver (smtp role), which takes delivery status notifications sent to the VERP return ' +
      'path and feedback-loop reports (spam complaints) sent there or to any address of RETURN_PATH_DOMAIN, such as ' +
      'fbl@. In production it is the MX of RETURN_PATH_DOMAIN, on port 25 (or forwarded there). 0 disables it.',
  },
  inboundMaxMessageBytes: {
    env: 'INBOUND_MAX_MESSAGE_BYTES',
    kind: 'int',
    default: '41943040',
    description:
      'Largest message the MX listener (BOUNCE_SMTP_PORT) takes for a receiving domain: announced in EHLO SIZE, ' +
      'refused with 552 above it (docs/receiving.md).',
  },
  inboundRetentionDays: {
    env: 'INBOUND_RETENTION_DAYS',
    kind: 'int',
    default: '30',
    description:
      'Days a received message (its row, raw file and attachments) is kept before the worker role deletes it.',
  },
  inboundMxHost: {
    env: 'INBOUND_MX_HOST',
    kind: 'string',
    default: undefined,
    description:
      "Host name of this service's MX listener, the value of a receiving domain's MX record. Default: " +
      'SMTP_PUBLIC_HOST, else the host of PUBLIC_URL.',
  },
  smtpRelayUrl: {
    env: 'SMTP_RELAY_URL',
    kind: 'string',
    default: undefined,
    secret: true,
    description:
      "Deliver through this smarthost (smtp://user:pass@host:587) instead of directly to each recipient domain's MX.",
  },
  dnsServers: {
    env: 'DNS_SERVERS',
    kind: 'list',
    default: '',
    description:
      'DNS resolvers (ip or ip:port, comma-separated) for MX lookups and domain checks. Default: the system resolver.',
  },
  dnsCheckIntervalMinutes: {
    env: 'DNS_CHECK_INTERVAL_MINUTES',
    kind: 'int',
    default: '60',
    description:
      "How often the worker role re-checks each sending domain's SPF, DKIM, " +
      'DMARC and return-path records in DNS; 0 turns the periodic check off.',
  },
  mxPort: {
    env: 'MX_PORT',
    kind: 'int',
    default: '25',
    description: "Port used when delivering directly to a recipient domain's MX hosts.",
  },
  shapingFile: {
    env: 'SHAPING_FILE',
    kind: 'string',
    default: undefined,
    description:
      'TOML or JSON file of per-destination limits for direct MX delivery (connections, messages per connection, ' +
      'messages per second), with overrides by site, MX host pattern or domain (docs/delivery.md).',
  },
  mxTimeoutSeconds: {
    env: 'MX_TIMEOUT_SECONDS',
    kind: 'int',
    default: '30',
    description: 'How long connecting to an MX host and its greeting may take before the next host is tried.',
  },
  mtaStsPort: {
    env: 'MTA_STS_PORT',
    kind: 'int',
    default: '443',
    description: 'HTTPS port MTA-STS policies are fetched from (RFC 8461 says 443; another only for tests).',
  },
  sitePauseSeconds: {
    env: 'SITE_PAUSE_SECONDS',
    kind: 'int',
    default: '30',
    description:
      'First pause of a destination site after a slow-down reply (421, 4.7.x rate limit); doubles up to 30 minutes ' +
      'while the replies repeat.',
  },
  extraCaCerts: {
    env: 'NODE_EXTRA_CA_CERTS',
    kind: 'string',
    default: undefined,
    description:
      "PEM file of extra certificate authorities (Node's own variable), also trusted for MTA-STS policy fetches and " +
      'MX certificates under an enforce policy.',
  },
  heloName: {
    env: 'SMTP_HELO_NAME',
    kind: 'string',
    default: undefined,
    description: 'Name this service announces in EHLO when delivering. Default: the host of PUBLIC_URL.',
  },
  systemFrom: {
    env: 'SYSTEM_FROM',
    kind: 'string',
    default: undefined,
    description:
      "Sender of the service's own mail (domain verification), e.g. `Transact <no-reply@mail.example.com>`; sent " +
      'through the normal pipeline, DKIM-signed with a key of its own. Default: no-reply@ the host of PUBLIC_URL ' +
      '(transact.localhost when that is not a domain name).',
  },
  returnPathDomain: {
    env: 'RETURN_PATH_DOMAIN',
    kind: 'string',
    default: undefined,
    description: 'Domain of the VERP envelope sender (bounces+<token>@…). Default: the host of PUBLIC_URL.',
  },
  deliveryConcurrency: {
    env: 'DELIVERY_CONCURRENCY',
    kind: 'int',
    default: '32',
    description: 'Messages one worker process delivers at the same time.',
  },
  smtpInFlowDelayMs: {
    env: 'SMTP_IN_FLOW_DELAY_MS',
    kind: 'int',
    default: '1000',
    description:
      'When delivery falls behind, how long a new SMTP message may wait before its MAIL FROM is answered (like ' +
      "Postfix's in_flow_delay): senders slow down to the delivery rate instead of filling the queue. The message " +
      'is accepted after the wait either way; 0 turns the pause off.',
  },
  smtpInFlowLagMs: {
    env: 'SMTP_IN_FLOW_LAG_MS',
    kind: 'int',
    default: '20',
    description:
      'Delivery counts as behind when the oldest message the delivery worker takes has waited longer than this since ' +
      'it was accepted.',
  },
  deliveryLeaseSeconds: {
    env: 'DELIVERY_LEASE_SECONDS',
    kind: 'int',
    default: '30',
    description:
      'How long a claimed message stays with its worker without a renewal; the worker renews the leases of what it ' +
      "is delivering every third of this, so a crashed worker's messages are " +
      'claimable again within it while a slow delivery is never taken twice.',
  },
  retryMaxHours: {
    env: 'RETRY_MAX_HOURS',
    kind: 'int',
    default: '48',
    description: 'Temporary failures are retried with backoff for this long, then the message fails (soft bounce).',
  },
  trustProxy: {
    env: 'TRUST_PROXY',
    kind: 'bool',
    default: 'false',
    description:
      'Take the client address from X-Forwarded-For and TLS from X-Forwarded-Proto (behind a reverse proxy).',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    kind: 'string',
    default: 'info',
    description: 'pino log level: fatal, error, warn, info, debug, trace, silent.',
  },
  shutdownGraceSeconds: {
    env: 'SHUTDOWN_GRACE_SECONDS',
    kind: 'int',
    default: '10',
    description:
      'On SIGTERM, how long SMTP transactions and deliveries in flight may finish; what is left is released to be ' +
      'taken again, and the process exits 0.',
  },
  heapGrowthPercent: {
    env: 'HEAP_GROWTH_PERCENT',
    kind: 'int',
    default: '60',
    description:
      "How far V8's old generation may grow past what survived the last full garbage collection before the next " +
      "one, in percent; 0 leaves it to V8 (which lets a busy service's heap grow to about four times what is " +
      'live). Lower costs more collections, higher costs memory (docs/operations.md).',
  },
  databaseWaitSeconds: {
    env: 'DATABASE_WAIT_SECONDS',
    kind: 'int',
    default: '60',
    description:
      'Started while PostgreSQL does not answer, how long the service keeps trying (with backoff, each attempt ' +
      'logged) before it gives up.',
  },
  minFreeSpaceMb: {
    env: 'MIN_FREE_SPACE_MB',
    kind: 'int',
    default: '100',
    description:
      'Below this much free space on the disk under DATA_DIR, new mail is refused (SMTP 452 4.3.1, API 507 ' +
      'storage_full) until space is freed; 0 turns the check off.',
  },
  smtpMaxConnectionsPerIp: {
    env: 'SMTP_MAX_CONNECTIONS_PER_IP',
    kind: 'int',
    default: '50',
    description: 'SMTP connections one client address may hold at once; more are answered 421 and closed.',
  },
  httpHeadersTimeoutSeconds: {
    env: 'HTTP_HEADERS_TIMEOUT_SECONDS',
    kind: 'int',
    default: '30',
    description: "An HTTP connection that has not sent a request's headers within this is closed.",
  },
  attachmentFetchTimeoutSeconds: {
    env: 'ATTACHMENT_FETCH_TIMEOUT_SECONDS',
    kind: 'int',
    default: '30',
    description:
      'An attachment given by URL (Resend’s `path`) must be fetched within this, redirects included, or the send ' +
      'is refused; it is fetched before the send is answered.',
  },
  webhookAllowedNetworks: {
    env: 'WEBHOOK_ALLOWED_NETWORKS',
    kind: 'list',
    default: '',
    description:
      'CIDRs (comma-separated) webhooks and attachments by URL may reach although they are private, loopback or ' +
      'link-local, e.g. ' +
      '127.0.0.0/8 for development and tests; each family needs its own entry (127.0.0.0/8 does not include ::1). ' +
      'Default: none.',
  },
  webhookLogRetentionDays: {
    env: 'WEBHOOK_LOG_RETENTION_DAYS',
    kind: 'int',
    default: '30',
    description:
      'Webhook requests and their attempts are kept this long (Webhook Logs), then the worker role deletes them.',
  },
  webhookConcurrency: {
    env: 'WEBHOOK_CONCURRENCY',
    kind: 'int',
    default: '64',
    description: 'Webhook requests one worker process sends at the same time.',
  },
  webhookConcurrencyPerCustomer: {
    env: 'WEBHOOK_CONCURRENCY_PER_CUSTOMER',
    kind: 'int',
    default: '8',
    description: "Of those, at most this many to one customer's webhook, so a slow receiver cannot hold every slot.",
  },
  storageUrl: {
    env: 'STORAGE_URL',
    kind: 'string',
    default: undefined,
    description:
      'Where files (online attachments, logos) live: unset for DATA_DIR/files, or ' +
      's3://bucket?endpoint=https://…&region=…&path_style=true for S3-compatible object storage shared by several ' +
      'web processes.',
  },
  s3AccessKeyId: {
    env: 'S3_ACCESS_KEY_ID',
    kind: 'string',
    default: undefined,
    secret: true,
    description: "Access key for STORAGE_URL=s3://… (default: the AWS SDK's credential chain, e.g. AWS_ACCESS_KEY_ID).",
  },
  s3SecretAccessKey: {
    env: 'S3_SECRET_ACCESS_KEY',
    kind: 'string',
    default: undefined,
    secret: true,
    description: 'Secret key for STORAGE_URL=s3://….',
  },
  attachmentMaxFileBytes: {
    env: 'ATTACHMENT_MAX_FILE_BYTES',
    kind: 'int',
    default: '104857600',
    description: 'Largest file accepted for an online attachment (413 while it streams; nothing is kept).',
  },
  exportRetentionDays: {
    env: 'EXPORT_RETENTION_DAYS',
    kind: 'int',
    default: '7',
    description: 'Days a report export (its CSV file and its row) is kept before the worker role deletes it.',
  },
} as const satisfies Record<string, Setting>;

type Settings = typeof SETTINGS;
type ValueOf<S extends Setting> = S['kind'] extends 'int'
  ? number
  : S['kind'] extends 'bool'
    ? boolean
    : S['kind'] extends 'list'
      ? string[]
      : S['default'] extends string
        ? string
        : string | undefined;

export type Config = { readonly [K in Exclude<keyof Settings, 'publicUrl'>]: ValueOf<Settings[K]> } & {
  /** PUBLIC_URL, or http://localhost:PORT. */
  readonly publicUrl: string;
  /** Absolute path of dataDir. */
  readonly dataPath: string;
};

export class ConfigError extends Error {}

function readRaw(setting: Setting, env: NodeJS.ProcessEnv): string | undefined {
  const direct = env[setting.env];
  if (direct !== undefined && direct !== '') return direct;
  if (setting.secret) {
    const file = env[`${setting.env}_FILE`];
    if (file) {
      try {
        return readFileSync(file, 'utf8').trim();
      } catch (err) {
        throw new ConfigError(`${setting.env}_FILE: cannot read ${file} (${(err as Error).message})`);
      }
    }
  }
  return setting.default;
}

function parse(setting: Setting, raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  switch (setting.kind) {
    case 'int': {
      if (!/^\d+$/.test(raw)) throw new ConfigError(`${setting.env} must be a whole number, got '${raw}'`);
      return Number(raw);
    }
    case 'bool': {
      if (!/^(true|false|1|0|yes|no)$/i.test(raw))
        throw new ConfigError(`${setting.env} must be true or false, got '${raw}'`);
      return /^(true|1|yes)$/i.test(raw);
    }
    case 'url': {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ConfigError(`${setting.env} must be an absolute http(s) URL, got '${raw}'`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new ConfigError(`${setting.env} must be an http(s) URL, got '${raw}'`);
      }
      return raw.replace(/\/+$/, '');
    }
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

/** Reads, checks and freezes the configuration; throws ConfigError with one clear line when a value is wrong. */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<Record<keyof Settings, unknown>> = {},
): Config {
  const values: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [keyof Settings, Setting][]) {
    values[key] = key in overrides ? overrides[key] : parse(setting, readRaw(setting, env));
  }
  const roles = values.roles as string[];
  for (const role of roles) {
    if (!['web', 'smtp', 'worker'].includes(role))
      throw new ConfigError(`ROLES: unknown role '${role}' (web, smtp, worker)`);
  }
  for (const cidr of values.webhookAllowedNetworks as string[]) {
    if (!ipaddr.isValidCIDR(cidr))
      throw new ConfigError(`WEBHOOK_ALLOWED_NETWORKS: '${cidr}' is not a CIDR (e.g. 127.0.0.0/8)`);
  }
  if (values.secret !== undefined && (values.secret as string).length < 32) {
    throw new ConfigError('TRANSACT_SECRET must be at least 32 characters');
  }
  if (values.databaseUrl === undefined) {
    // nothing more: PGlite lives in dataDir
  } else if (!/^postgres(ql)?:\/\//.test(values.databaseUrl as string)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  } else if (values.secret === undefined) {
    throw new ConfigError('TRANSACT_SECRET is required when DATABASE_URL is set (every process must share it)');
  }
  if ((values.parentPlatformUrl === undefined) !== (values.parentPlatformSecret === undefined)) {
    throw new ConfigError('PARENT_PLATFORM_URL and PARENT_PLATFORM_SECRET are set together or not at all');
  }
  if (values.consoleToday !== undefined && !isWireDay(values.consoleToday as string))
    throw new ConfigError(`CONSOLE_TODAY must be a day YYYY-MM-DD, got '${values.consoleToday}'`);
  if (values.storageUrl !== undefined && !/^s3:\/\/[^/?]+/.test(values.storageUrl as string)) {
    throw new ConfigError('STORAGE_URL must look like s3://bucket?endpoint=…&region=…');
  }
  if (values.publicUrl === undefined) values.publicUrl = `http://localhost:${values.port}`;
  values.dataPath = path.resolve(values.dataDir as string);
  return Object.freeze(values) as Config;
}

/** The settings as Markdown table rows, for docs/configuration.md. */
export function settingsTable(): string {
  const rows = Object.values(SETTINGS as Record<string, Setting>).map(
    (s) =>
      `| \`${s.env}\`${s.secret ? ' (or `_FILE`)' : ''} | ${s.default === undefined ? '—' : `\`${s.default}\``} | ` +
      `${s.description} |`,
  );
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...rows].join('\n');
}
