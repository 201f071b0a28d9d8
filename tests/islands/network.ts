// The network boundary of the islands' tests: src/lib/api.ts (ofetch) calls the global fetch, which
// these tests replace. Every call is recorded; a route answers it with a JSON Response, or with a
// promise the test settles when it wants (to look at the page while a call is in flight).
import { act } from '@testing-library/react';
import { vi } from 'vitest';

export interface Call {
  method: string;
  /** The path, e.g. '/v1/ui-settings'. */
  path: string;
  body: unknown;
}

export type Answer = Response | Promise<Response>;
export type Route = (call: Call) => Answer;

/** A JSON answer. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}

/** An answer the test sends later: `answer.resolve(json(...))`. */
export function later(): { promise: Promise<Response>; resolve(response: Response): void } {
  let resolve!: (response: Response) => void;
  const promise = new Promise<Response>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Replaces fetch: `routes` maps 'METHOD /path' to an answer; anything else answers 404, so a call
 * the test did not expect shows as a failed call, not a hang. Returns the calls made.
 */
export function stubNetwork(routes: Record<string, Route>): Call[] {
  const calls: Call[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      'http://console.test',
    );
    const method = (init.method ?? 'GET').toUpperCase();
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : (init.body ?? null);
    const call = { method, path: url.pathname, body };
    calls.push(call);
    const route = routes[`${method} ${url.pathname}`];
    return route
      ? route(call)
      : json({ error: { code: 'not_found', message: `no route ${method} ${url.pathname}` } }, 404);
  });
  return calls;
}

/** How long `until` waits, on the real clock, before it gives up: a bound for a failure, not a delay. */
const UNTIL_MS = 15_000;

/**
 * Lets the page take its turns (a stubbed answer, a module loaded on demand, React's render) until
 * `shown` answers something, without moving a fake clock (vi.waitFor would advance it by its polling
 * interval). It gives up after UNTIL_MS on the real clock (performance.now, which no test fakes),
 * not after a count of turns: a module's first load on a loaded machine takes many more turns.
 */
export async function until<T>(shown: () => T | null | undefined | false | 0): Promise<T> {
  const deadline = performance.now() + UNTIL_MS;
  for (;;) {
    const found = shown();
    if (found) return found;
    if (performance.now() > deadline) throw new Error(`never shown in ${UNTIL_MS} ms`);
    await act(() => new Promise<void>((resolve) => setImmediate(resolve)));
  }
}
