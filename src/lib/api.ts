// The console's one HTTP client (docs/console-reports.md §7, shared client): JSON, `Request-Type: ui`,
// credentials included, 45 s timeout, and 401/403 answers send the browser to /unauthorized.
import { FetchError, ofetch } from 'ofetch';
import type { AnswerOf, AnswerWithStatusOf, CallKey, CallOptions } from '../contract/client.ts';
import { REQUEST_TIMEOUT_MS } from './timings.ts';

export interface ApiErrorBody {
  error?: { code?: string; message?: string };
  message?: string;
}

/**
 * Calls go to the site root whatever the page's address: 'v1/x' from /groups/ (or /domains/5)
 * would otherwise resolve to /groups/v1/x. ofetch's baseURL '/' leaves a relative path
 * as it is, so the path is made absolute here, before ofetch applies baseURL and query.
 */
export function absolutePath(request: string): string {
  return /^[a-z][a-z\d+.-]*:/i.test(request) || request.startsWith('/') ? request : `/${request}`;
}

function createClient(redirectOnAuthError: boolean) {
  return ofetch.create({
    baseURL: '/',
    credentials: 'include',
    timeout: REQUEST_TIMEOUT_MS,
    headers: { 'Request-Type': 'ui', Accept: 'application/json' },
    onRequest(context) {
      if (typeof context.request === 'string') context.request = absolutePath(context.request);
    },
    onResponseError({ response }) {
      if (
        redirectOnAuthError &&
        (response.status === 401 || response.status === 403) &&
        typeof window !== 'undefined'
      ) {
        window.location.assign('/unauthorized');
      }
    },
  });
}

/** For every console call. */
export const api = createClient(true);

/** A call's address: the path with its `{name}` parameters filled in, each encoded. */
export function pathOf(template: string, params: Record<string, unknown> | undefined): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) throw new Error(`${template}: no value for {${name}}`);
    return encodeURIComponent(String(value));
  });
}

/** The address and fetch options of a call named 'METHOD /path'. */
function requestOf(key: string, options: unknown) {
  const at = key.indexOf(' ');
  const opts = (options ?? {}) as {
    params?: Record<string, unknown>;
    query?: Record<string, unknown>;
    body?: unknown;
    signal?: AbortSignal;
  };
  return [
    pathOf(key.slice(at + 1), opts.params),
    {
      method: key.slice(0, at),
      ...(opts.query === undefined ? {} : { query: opts.query }),
      ...(opts.body === undefined ? {} : { body: opts.body as BodyInit | Record<string, unknown> }),
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  ] as const;
}

function typedCall(client: typeof api) {
  return function call<K extends CallKey>(key: K, ...[options]: CallOptionsArg<K>): Promise<AnswerOf<K>> {
    return client<AnswerOf<K>>(...requestOf(key, options));
  };
}

/** The options are required when the call has path parameters. */
type CallOptionsArg<K extends CallKey> =
  CallOptions<K> extends { params: object } ? [options: CallOptions<K>] : [options?: CallOptions<K>];

/**
 * Every console call, typed from the contract (src/contract/client.ts): `call('POST
 * /v1/templates/search', { body })` checks the body and types the answer from the operation's schemas.
 */
export const call = typedCall(api);

/**
 * A console call whose success status matters (200 ready, 202 still preparing, 204 none): its
 * answer with the status, typed per documented success. A refusal throws as with `call`.
 */
export async function callWithStatus<K extends CallKey>(
  key: K,
  ...[options]: CallOptionsArg<K>
): Promise<AnswerWithStatusOf<K>> {
  const response = await api.raw(...requestOf(key, options));
  return { status: response.status, data: response._data } as AnswerWithStatusOf<K>;
}

/** The server's message from a failed call, or `fallback`. */
export function errorMessage(err: unknown, fallback: string): string {
  if (err instanceof FetchError) {
    const body = err.data as ApiErrorBody | undefined;
    return body?.error?.message ?? body?.message ?? fallback;
  }
  return fallback;
}

/** The HTTP status of a failed call, if it got an answer. */
export function errorStatus(err: unknown): number | undefined {
  return err instanceof FetchError ? err.status : undefined;
}
