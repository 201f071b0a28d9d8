// The whole API in-process for integration tests: a real migrated database, the real Hono app,
// and helpers to create accounts and sign in. Requests go through app.request() (no socket).
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { loadConfig } from '../../src/server/core/config.ts';
import type { AppContext } from '../../src/server/core/context.ts';
import { createContext } from '../../src/server/create-context.ts';
import { createApi } from '../../src/server/app.ts';
import * as accounts from '../../src/server/accounts/accounts.repository.ts';
import { createUser } from '../../src/server/accounts/accounts.service.ts';
import type { Permission } from '../../src/server/db/schema.ts';
import { createTestDatabase } from './database.ts';
import { responseChecker } from './openapi-check.ts';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123';
export const ORIGIN = 'http://localhost:4321';

export interface TestApp {
  ctx: AppContext;
  api: ReturnType<typeof createApi>;
  /** app.request with JSON helpers; `cookie` sends a session. */
  call(
    method: string,
    path: string,
    opts?: { body?: unknown; raw?: string; cookie?: string; headers?: Record<string, string> },
  ): Promise<Response>;
  /** An enterprise, customer and user; returns their ids and the password. */
  createAccount(opts?: AccountOptions): Promise<TestAccount>;
  /** Signs in through POST /v1/auth/login and returns the Cookie header value. */
  signIn(email: string, password: string): Promise<string>;
  close(): Promise<void>;
}

export interface AccountOptions {
  email?: string;
  password?: string;
  name?: string;
  permissions?: readonly Permission[] | 'all';
  enterprise?: {
    name?: string;
    header_colour?: string;
    logo_url?: string | null;
    parent_url?: string | null;
    sms_enabled?: boolean;
  };
  customerName?: string;
}

export interface TestAccount {
  enterpriseId: number;
  customerId: number;
  userId: number;
  email: string;
  password: string;
}

let counter = 0;

export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    TRANSACT_SECRET: TEST_SECRET,
    PUBLIC_URL: ORIGIN,
    LOG_LEVEL: 'silent',
    ...database.env,
    ...env,
  });
  const { ctx, close } = await createContext(config, {
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    collectDefaultMetrics: false,
    loadDataDir: config.dataDir === 'memory://' ? database.loadDataDir : undefined,
  });
  const api = createApi(ctx);
  // every answer is checked against the OpenAPI document (tests/helpers/openapi-check.ts)
  const checker = responseChecker(config.publicUrl);
  const fetch = api.fetch;
  api.fetch = async (request: Request, ...rest) => {
    const res = await fetch(request, ...rest);
    try {
      await checker.check(request.method, request.url, res);
    } catch (err) {
      // through createHttpServer a throw here reaches the client as a bare 500: say why
      console.error(err);
      throw err;
    }
    return res;
  };

  const call: TestApp['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { 'Request-Type': 'ui', Origin: ORIGIN, ...opts.headers };
    if (opts.cookie) headers.Cookie = opts.cookie;
    let body: string | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['Content-Type'] = 'application/json';
    return api.request(`${ORIGIN}${path}`, { method, headers, body });
  };

  const createAccount: TestApp['createAccount'] = async (opts = {}) => {
    counter += 1;
    const enterprise = await accounts.insertEnterprise(ctx.db, { name: `Enterprise ${counter}`, ...opts.enterprise });
    const customer = await accounts.insertCustomer(ctx.db, {
      enterprise_id: enterprise.id,
      name: opts.customerName ?? `Customer ${counter}`,
    });
    const password = opts.password ?? 'a-long-enough-password';
    const email = opts.email ?? `user${counter}-${Date.now()}@example.com`;
    const user = await createUser(ctx, {
      customerId: customer.id,
      email,
      name: opts.name ?? `User ${counter}`,
      password,
      permissions: opts.permissions ?? 'all',
    });
    return { enterpriseId: enterprise.id, customerId: customer.id, userId: user.id, email, password };
  };

  const signIn: TestApp['signIn'] = async (email, password) => {
    const res = await call('POST', '/v1/auth/login', { body: { email, password } });
    if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
    const setCookie = res.headers.get('set-cookie') ?? '';
    const match = /transact_session=([^;]+)/.exec(setCookie);
    if (!match) throw new Error('sign-in set no session cookie');
    return `transact_session=${match[1]}`;
  };

  return {
    ctx,
    api,
    call,
    createAccount,
    signIn,
    async close() {
      await close();
      await database.close();
    },
  };
}

/** How many times sendAsClient sends one request before it gives the last answer back. */
const CLIENT_ATTEMPTS = 6;

/**
 * POSTs `body` as JSON to a send call (`/v1/mail`, `/v1/mail/batch`, …) with `apiKey`, as a real
 * client does: with an Idempotency-Key, and again after the Retry-After of a 503 — the service's
 * answer when it cannot reach its database in time (restarting, or a machine so loaded that a new
 * connection takes longer than the pool waits: seen with CI's four lanes on two slow cores). The
 * key makes a retry answer the first acceptance instead of queuing twice. Any other answer, and the
 * last 503, is returned as it came.
 */
export async function sendAsClient(app: TestApp, path: string, apiKey: string, body: unknown): Promise<Response> {
  const headers = {
    Authorization: `Bearer ${apiKey}`,
    'Content-Type': 'application/json',
    'Idempotency-Key': randomUUID(),
  };
  for (let attempt = 1; ; attempt++) {
    const res = await app.api.request(`${ORIGIN}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const retryAfter = Number(res.headers.get('retry-after'));
    if (res.status !== 503 || !(retryAfter >= 0) || attempt === CLIENT_ATTEMPTS) return res;
    await res.body?.cancel();
    await sleep(retryAfter * 1000);
  }
}

/**
 * How long a test waits for separate processes of the service (workers it spawned) to reach a state:
 * a bound for a failure, never a delay (the poll ends as soon as the state is there). CI's lanes
 * share two cores, where a process's start and a drain of 2,000 messages took minutes, not seconds.
 */
export const PROCESS_WAIT_MS = 240_000;
/** A test that waits for such processes a few times over. */
export const PROCESS_TEST_MS = 3 * PROCESS_WAIT_MS;
