// The console's one HTTP client (spec part two §7, shared client): JSON, `Request-Type: ui`,
// credentials included, 45 s timeout, and 401/403 answers send the browser to /unauthorized.
import { FetchError, ofetch } from 'ofetch';
import { REQUEST_TIMEOUT_MS } from './timings.ts';

export interface ApiErrorBody {
  error?: { code?: string; message?: string };
  message?: string;
}

function createClient(redirectOnAuthError: boolean) {
  return ofetch.create({
    baseURL: '/',
    credentials: 'include',
    timeout: REQUEST_TIMEOUT_MS,
    headers: { 'Request-Type': 'ui', Accept: 'application/json' },
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
