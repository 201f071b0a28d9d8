// The console's one HTTP client (docs/console-reports.md §7, shared client): JSON, `Request-Type: ui`,
// credentials included, 45 s timeout, and 401/403 answers send the browser to /unauthorized.
import { FetchError, ofetch } from 'ofetch';
import { REQUEST_TIMEOUT_MS } from './timings.ts';

export interface ApiErrorBody {
  error?: { code?: string; message?: string };
  message?: string;
}

/**
 * Calls go to the site root whatever the page's address: 'v1/x' from /groups/ (or /domains/5)
 * would otherwise resolve to /groups/v1/x (issue 11). ofetch's baseURL '/' leaves a relative path
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
      if (redirectOnAuthError && (response.status === 401 || response.status === 403) && typeof window !== 'undefined') {
        window.location.assign('/unauthorized');
      }
    },
  });
}

/** For every console call. */
export const api = createClient(true);
/** For the sign-in page, where 401 is an answer to show, not a reason to leave. */
export const publicApi = createClient(false);

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
