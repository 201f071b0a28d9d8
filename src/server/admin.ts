// The admin CLI's commands: `npm run admin -- <command>` (the process is admin-cli.ts; tests run
// commands in-process through main). Exit codes: 0 done, 1 refused (not found, conflict, invalid
// value), 2 usage error, 3 the embedded database is held by a running service.
import { sentOf } from '../lib/figures.ts';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, settingsTable } from './core/config.ts';
import { createContext } from './create-context.ts';
import { DataDirBusyError, lockDataDir } from './db/data-lock.ts';
import { PERMISSIONS, type Permission } from '../contract/values.ts';
import { DomainError } from './core/errors.ts';
import {
  createCustomer,
  createEnterprise,
  createUser,
  customerIdOf,
  listAccounts,
  setPassword,
} from './accounts/accounts.service.ts';
import { credentialsForConsole, rotateCredentials } from './credentials/credentials.service.ts';
import { addDomain, dnsRecords, setDomainReceiving } from './domains/domains.service.ts';
import { randomToken } from './core/crypto.ts';
import type { AppContext } from './core/context.ts';
import { addressWarning, readServiceRecord } from './ops/service-record.ts';
import { DEFAULT_DEMO_TRANSACTIONS, DEMO_CUSTOMER, DEMO_ENTERPRISE, fillDemo } from './demo/demo.ts';
import pino from 'pino';
import { listSites } from './delivery/sites.ts';
import { formatSites, resume, suspend } from './delivery/queue-admin.ts';

const USAGE = `Usage: npm run admin -- <command> [options]

  enterprise create --name NAME [--colour #RRGGBB] [--logo URL] [--parent-url URL] [--sms]
  customer create   --enterprise ID --name NAME [--quota N] [--reseller]
  user create       --customer ID|NAME --email EMAIL --name NAME [--password PASSWORD]
                    [--admin | --permissions p1,p2,…] [--no-send]
  user password     --email EMAIL [--password PASSWORD]   (generated and printed when omitted)
  domain add DOMAIN --customer ID|NAME [--verified] [--receiving]  (prints the DNS records to publish)
  credentials show  --customer ID|NAME
  credentials rotate --customer ID|NAME                   (the old API key and SMTP password stop working)
  list              [--json]
  demo              [--transactions N] [--replace]   a demo account with 30 days of history
                    (refused when one exists; --replace deletes it and fills a new one)
  config            print every setting (environment variable, default, meaning)
  queue             [--json]  destination sites of direct MX delivery: queued, in flight, limit,
                    paused until, suspended, last reply
  queue suspend SITE [--minutes N]   no new connections to SITE (a site as listed, one of its MX
                    hosts, or a recipient domain) in any worker process, until resumed or N minutes
  queue resume SITE lift a suspension or pause; the site's waiting messages are due at once

Permissions: ${PERMISSIONS.join(', ')}
Exit codes: 0 done, 1 refused, 2 usage error, 3 data directory in use by a running service.
Settings come from the environment, as for the service: run the CLI with the service's environment
(DATA_DIR or DATABASE_URL, TRANSACT_SECRET, PUBLIC_URL, PORT, SMTP_PORT, SMTP_PUBLIC_HOST, …).`;

/** Commands that print addresses from the settings (the API endpoint, the SMTP host and port, the sign-in page). */
const SHOWS_ADDRESSES = ['credentials show', 'credentials rotate', 'demo'];

class UsageError extends Error {}

/** Where a command's output goes: the process's console, or one that collects it (tests). */
export type AdminOutput = Pick<Console, 'log' | 'error'>;

// an option's value: a string, or a flag's presence
const text = { type: 'string' } as const;
const flag = { type: 'boolean' } as const;
const options = {
  name: text,
  colour: text,
  logo: text,
  'parent-url': text,
  sms: flag,
  enterprise: text,
  quota: text,
  reseller: flag,
  customer: text,
  email: text,
  password: text,
  admin: flag,
  permissions: text,
  'no-send': flag,
  json: flag,
  verified: flag,
  receiving: flag,
  transactions: text,
  replace: flag,
  minutes: text,
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values'] & {
  _positional?: string;
};

/** Commands of one word. */
const SINGLE = ['list', 'demo'];

function required(values: Values, key: keyof Values): string {
  const value = values[key];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${key} is required`);
  return value.trim();
}

function positiveInt(raw: string, name: string): number {
  if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a whole number, got '${raw}'`);
  return Number(raw);
}

function httpUrl(raw: string | undefined, name: string): string | null {
  if (raw === undefined) return null;
  try {
    const url = new URL(raw);
    if (url.protocol === 'http:' || url.protocol === 'https:') return raw.replace(/\/+$/, '');
  } catch {
    // fall through
  }
  throw new UsageError(`--${name} must be an http(s) URL, got '${raw}'`);
}

function permissionsFrom(values: Values): Permission[] | 'all' {
  if (values.admin && values.permissions) throw new UsageError('use --admin or --permissions, not both');
  let granted: Permission[];
  if (values.admin) granted = [...PERMISSIONS];
  else if (values.permissions) {
    const names = values.permissions
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
    const unknown = names.filter((n) => !(PERMISSIONS as readonly string[]).includes(n));
    if (unknown.length)
      throw new UsageError(`unknown permission(s): ${unknown.join(', ')} (known: ${PERMISSIONS.join(', ')})`);
    granted = names as Permission[];
    if (!granted.includes('send_transactions')) granted.push('send_transactions');
  } else granted = ['send_transactions'];
  if (values['no-send']) granted = granted.filter((p) => p !== 'send_transactions');
  return granted;
}

/** One command: `console` is a parameter so that every command prints through the caller's output. */
type Command = (ctx: AppContext, values: Values, console: AdminOutput) => Promise<void>;

async function enterpriseCreate(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const colour = values.colour ?? '#243447';
  if (!/^#[0-9a-f]{3,8}$/i.test(colour))
    throw new UsageError(`--colour must be a hex colour like #1f6feb, got '${colour}'`);
  const e = await createEnterprise(ctx, {
    name: required(values, 'name'),
    header_colour: colour,
    logo_url: httpUrl(values.logo, 'logo'),
    parent_url: httpUrl(values['parent-url'], 'parent-url'),
    sms_enabled: values.sms ?? false,
  });
  console.log(`enterprise ${e.id} created: ${e.name}`);
}

async function customerCreate(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const enterpriseId = positiveInt(required(values, 'enterprise'), 'enterprise');
  const c = await createCustomer(ctx, {
    enterprise_id: enterpriseId,
    name: required(values, 'name'),
    ...(values.quota ? { monthly_quota: positiveInt(values.quota, 'quota') } : {}),
    is_reseller: values.reseller ?? false,
  });
  console.log(`customer ${c.id} created: ${c.name} (enterprise ${enterpriseId})`);
}

async function userCreate(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  // the arguments first: a usage error answers before any lookup
  const [email, name] = [required(values, 'email'), required(values, 'name')];
  const customerId = await customerIdOf(ctx, required(values, 'customer'));
  const generated = values.password ? undefined : randomToken(12);
  const u = await createUser(ctx, {
    customerId,
    email,
    name,
    password: values.password ?? generated,
    permissions: permissionsFrom(values),
  });
  console.log(`user ${u.id} created: ${u.email} (customer ${customerId})`);
  if (generated) console.log(`password: ${generated}`);
}

async function userPassword(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const email = required(values, 'email');
  const generated = values.password ? undefined : randomToken(12);
  await setPassword(ctx, email, values.password ?? generated!);
  console.log(`password changed for ${email}; their sessions were ended`);
  if (generated) console.log(`password: ${generated}`);
}

async function domainAdd(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const name = values._positional;
  if (!name)
    throw new UsageError(
      'domain add needs the domain name: domain add <domain> --customer ID|NAME [--verified] [--receiving]',
    );
  if (values.receiving && !values.verified)
    throw new UsageError('--receiving needs --verified: mail is received only for a verified domain');
  const customerId = await customerIdOf(ctx, required(values, 'customer'));
  const domain = await addDomain(ctx, customerId, name, { verified: values.verified ?? false });
  if (values.receiving) await setDomainReceiving(ctx, customerId, domain.id, { receiving: true });
  // --verified vouches for the domain, not for its records: the console shows them 'Not checked yet'
  // until a DNS check answers (on demand, or every DNS_CHECK_INTERVAL_MINUTES)
  console.log(
    `domain ${domain.id} added: ${domain.domain} (customer ${customerId}, ` +
      `${domain.sending_verified ? 'sending-verified' : 'not verified'}${values.receiving ? ', receiving' : ''})`,
  );
  console.log('Publish these DNS records:');
  // the row as it now is: with receiving on, the MX record is one of them
  for (const r of dnsRecords(ctx, { ...domain, receiving_enabled: values.receiving ?? false }))
    console.log(`  ${r.purpose.padEnd(11)} ${r.type.padEnd(5)} ${r.name}  "${r.value}"`);
}

type ConsoleCredentials = Awaited<ReturnType<typeof credentialsForConsole>>;

function printSmtpLogin(console: AdminOutput, creds: ConsoleCredentials): void {
  console.log(
    `smtp:         ${creds.smtpCredentials.host}:${creds.smtpCredentials.port} ` +
      `${creds.smtpCredentials.username} / ${creds.smtpCredentials.password}`,
  );
}

async function credentialsRotate(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const customerId = await customerIdOf(ctx, required(values, 'customer'));
  await rotateCredentials(ctx, customerId);
  const creds = await credentialsForConsole(ctx, customerId);
  console.log(`credentials rotated for customer ${customerId}; the old API key and SMTP password no longer work`);
  console.log(`api username: ${creds.apiCredentials.username}\napi key:      ${creds.apiCredentials.apiKey}`);
  printSmtpLogin(console, creds);
}

async function credentialsShow(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const customerId = await customerIdOf(ctx, required(values, 'customer'));
  const creds = await credentialsForConsole(ctx, customerId);
  console.log(
    `api username: ${creds.apiCredentials.username}\napi key:      ` +
      `${creds.apiCredentials.apiKey}\napi endpoint: ${creds.apiCredentials.url}`,
  );
  printSmtpLogin(console, creds);
}

async function list(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const { users: rows, organisations: orgs } = await listAccounts(ctx);
  if (values.json) {
    console.log(JSON.stringify({ organisations: orgs, users: rows }, null, 2));
    return;
  }
  for (const o of orgs)
    console.log(
      `enterprise ${o.enterprise_id} ${o.enterprise_name}${
        o.customer_id ? `  ›  customer ${o.customer_id} ` + `${o.customer_name}` : ''
      }`,
    );
  for (const r of rows)
    console.log(`user ${r.user_id} ${r.email} (${r.user_name})  ›  customer ${r.customer_id} ${r.customer_name}`);
}

async function demoCreate(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const transactions =
    values.transactions === undefined ? DEFAULT_DEMO_TRANSACTIONS : positiveInt(values.transactions, 'transactions');
  if (transactions < 1 || transactions > 10_000_000)
    throw new UsageError('--transactions must be between 1 and 10000000');
  const demo = await fillDemo(ctx, {
    transactions,
    replace: values.replace ?? false,
    progress: (line) => console.error(line),
  });
  if (demo.admin.generatedPassword)
    console.log(
      `The empty database got its first administrator first: ${demo.admin.email} / ${demo.admin.generatedPassword}`,
    );
  const f = demo.figures;
  console.log(
    `${demo.replaced ? 'Replaced the demo account' : 'Demo account created'} in ${demo.seconds} s: customer ` +
      `${demo.customerId} '${DEMO_CUSTOMER}' (enterprise '${DEMO_ENTERPRISE}'), domain ${demo.domain}`,
  );
  // the figures the console shows for all time (docs/console-reports.md "Figures")
  console.log(
    `  ${f.transactions} transactions: ${f.delivered} delivered, ${f.bounced} bounced (${f.bouncesHard} hard, ` +
      `${f.bouncesSoft} soft), ${f.failed} failed, ${f.pending} pending; ${sentOf(f)} sent; opened by ` +
      `${f.uniqueOpens} people and clicked by ${f.uniqueClicks} (${f.opens} opens and ${f.clicks} clicks; ` +
      `${f.machineOpens} opens by Apple Mail's proxy); ${f.complaints} spam complaints, ` +
      `${demo.counts.unsubscribes} unsubscribes`,
  );
  console.log(
    `Sign in at ${ctx.config.publicUrl}/login (start the service with ` +
      `npm start)\n  email:    ${demo.email}\n  password: ${demo.password}`,
  );
  // the same addresses the console and `credentials show` give: all from this environment's settings
  const creds = await credentialsForConsole(ctx, demo.customerId);
  console.log(
    `API endpoint ${creds.apiCredentials.url}, SMTP ${creds.smtpCredentials.host}:${creds.smtpCredentials.port} ` +
      `(keys: npm run admin -- credentials show --customer '${DEMO_CUSTOMER}')`,
  );
}

async function queue(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const rows = await listSites(ctx.db);
  console.log(
    values.json
      ? JSON.stringify(rows, null, 2)
      : rows.length
        ? formatSites(rows)
        : 'No destination sites yet (direct MX delivery records them as it goes).',
  );
}

async function queueSuspend(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const minutes = values.minutes === undefined ? null : positiveInt(values.minutes, 'minutes');
  const done = await suspend(ctx, required(values, '_positional'), minutes);
  console.log(`Suspended ${done.site} ${done.until ? `until ${done.until.toISOString()}` : 'until resumed'}`);
}

async function queueResume(ctx: AppContext, values: Values, console: AdminOutput): Promise<void> {
  const done = await resume(ctx, required(values, '_positional'));
  console.log(`Resumed ${done.site}: ${done.due} waiting message(s) due now`);
}

/** Every command by its words, in the order of USAGE. */
const HANDLERS = new Map<string, Command>([
  ['enterprise create', enterpriseCreate],
  ['customer create', customerCreate],
  ['user create', userCreate],
  ['user password', userPassword],
  ['domain add', domainAdd],
  ['credentials show', credentialsShow],
  ['credentials rotate', credentialsRotate],
  ['list', list],
  ['demo', demoCreate],
  ['queue', queue],
  ['queue suspend', queueSuspend],
  ['queue resume', queueResume],
]);
const COMMANDS = [...HANDLERS.keys()];

async function run(ctx: AppContext, command: string, values: Values, console: AdminOutput): Promise<void> {
  const handler = HANDLERS.get(command);
  if (!handler) throw new UsageError(`unknown command '${command}'`);
  await handler(ctx, values, console);
}

/** Runs a command; maps a usage error to exit 2 and a refusal to exit 1. */
async function execute(ctx: AppContext, command: string, values: Values, console: AdminOutput): Promise<number> {
  try {
    await run(ctx, command, values, console);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`admin: ${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof DomainError) {
      console.error(`admin: ${err.message}`);
      return 1;
    }
    throw err;
  }
}

/**
 * Runs one command line (the arguments after `admin`) and resolves with its exit code; output goes
 * through `console`. Given `open`, the command runs on that context (tests keep one open across
 * commands) instead of opening the database the environment names.
 */
const parseArgv = (argv: string[]) => parseArgs({ args: argv, options, allowPositionals: true, strict: true });

export async function main(
  argv: string[],
  console: AdminOutput = globalThis.console,
  open?: AppContext,
): Promise<number> {
  let parsed: ReturnType<typeof parseArgv>;
  try {
    parsed = parseArgv(argv);
  } catch (err) {
    console.error(`admin: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (positionals.length === 0) {
    console.error(USAGE);
    return 2;
  }
  if (positionals[0] === 'config') {
    console.log(settingsTable());
    return 0;
  }
  // `queue` alone lists; `queue suspend SITE` and `queue resume SITE` take the site after them
  const queueAction = positionals[0] === 'queue' && (positionals[1] === 'suspend' || positionals[1] === 'resume');
  const words = queueAction ? 2 : SINGLE.includes(positionals[0]) || positionals[0] === 'queue' ? 1 : 2;
  const command = positionals.slice(0, words).join(' ');
  const extra = positionals.slice(words);
  if (
    !COMMANDS.includes(command) ||
    extra.length > (command === 'domain add' || queueAction ? 1 : 0) ||
    (queueAction && extra.length === 0)
  ) {
    console.error(`admin: unknown command '${positionals.join(' ')}'\n\n${USAGE}`);
    return 2;
  }

  if (open) return execute(open, command, { ...values, _positional: extra[0] }, console);

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`admin: configuration error: ${err.message}`);
      return 2;
    }
    throw err;
  }
  if (SHOWS_ADDRESSES.includes(command)) {
    // the usual cause of wrong addresses: the CLI run without the service's environment
    const cli = {
      publicUrl: config.publicUrl,
      publicUrlSet: Boolean(process.env.PUBLIC_URL),
      databaseUrl: Boolean(config.databaseUrl),
    };
    const warning = addressWarning(cli, readServiceRecord(config.dataPath));
    if (warning) console.error(warning);
  }
  let unlock = () => {};
  if (!config.databaseUrl) {
    try {
      unlock = lockDataDir(config.dataPath, { role: 'the admin CLI' });
    } catch (err) {
      if (err instanceof DataDirBusyError) {
        console.error(`admin: ${err.message}`);
        return 3;
      }
      throw err;
    }
  }
  const { ctx, close } = await createContext(config, { logger: pino({ level: 'warn' }), collectDefaultMetrics: false });
  try {
    return await execute(ctx, command, { ...values, _positional: extra[0] }, console);
  } finally {
    await close();
    unlock();
  }
}
