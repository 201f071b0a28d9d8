// Rules every request meets before a route sees it, for the API and the pages alike (a sweep from
// outside found requests that answered 500): no control characters in the path or query, 405 with
// an Allow header for a method no route serves, and one canonical address for console pages (no
// trailing slash).
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Hono, MiddlewareHandler, NotFoundHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { DomainError } from '../core/errors.ts';
import { HttpRefusal, errorAnswer } from './errors.ts';
import { isResendPath, resendErrorBody } from './resend-errors.ts';

/**
 * C0 controls (NUL among them), DEL and C1 controls, raw or percent-encoded (C1 as UTF-8, %C2%80–
 * %C2%9F). A NUL in a path parameter reached PostgreSQL as text and answered 500; none of them
 * belongs in an address, a search term or an id.
 */
const CONTROL_RAW = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_ENCODED = /%(?:[01][0-9a-f]|7f)|%c2%[89][0-9a-f]/i;

/** The refusal for a request target (path and query) holding control characters, or undefined. */
export function badTarget(url: string): DomainError | undefined {
  if (CONTROL_RAW.test(url) || CONTROL_ENCODED.test(url)) {
    return new DomainError('bad_request', 'The address must not contain control characters');
  }
  return undefined;
}

/** The same rule as Hono middleware, for the API served without the HTTP server (tests, astro dev). */
export const refuseControlCharacters: MiddlewareHandler = async (c, next) => {
  const url = c.req.url;
  const refused = badTarget(url.slice(url.indexOf('/', url.indexOf('//') + 2)));
  if (refused) throw refused;
  await next();
};

/**
 * Methods the fetch standard forbids: a web Request cannot be built for them, so neither Hono nor Astro can see them.
 */
export const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Pages answer GET and HEAD; forms on the public pages (unsubscribe, domain verification) POST. */
export const PAGE_METHODS = ['GET', 'HEAD', 'POST'];

const API_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The methods the API's routes serve at a path (HEAD wherever GET is); empty when no route has the path. */
/** What the request guard and the server read of the API app (any Hono app, whatever its env). */
export type ApiApp = Pick<Hono, 'routes' | 'fetch'>;

export function apiMethodsFinder(api: ApiApp): (path: string) => string[] {
  let router: TrieRouter<true> | undefined;
  return (path) => {
    if (!router) {
      // built on first use, when every route is registered; middleware (method ALL) serves nothing itself
      router = new TrieRouter<true>();
      for (const route of api.routes) if (route.method !== 'ALL') router.add(route.method, route.path, true);
    }
    const served = API_METHODS.filter((method) => method !== 'HEAD' && router!.match(method, path)[0].length > 0);
    return served.includes('GET') ? ['GET', 'HEAD', ...served.filter((m) => m !== 'GET')] : served;
  };
}

export function methodNotAllowed(method: string, allowed: string[]): HttpRefusal {
  return new HttpRefusal('method_not_allowed', `${method} is not served here (allowed: ${allowed.join(', ')})`, {
    headers: { Allow: allowed.join(', ') },
  });
}

/** The API's answer to a path no route serves: 405 naming the methods some route serves there, otherwise 404. */
export function apiNotFound(methodsAt: (path: string) => string[]): NotFoundHandler {
  return (c) => {
    const allowed = methodsAt(c.req.path);
    const refused =
      allowed.length === 0
        ? new DomainError('not_found', `No route ${c.req.method} ${c.req.path}`)
        : methodNotAllowed(c.req.method, allowed);
    const { status, headers, body } = errorAnswer(refused);
    return c.json(body, status, headers);
  };
}

/**
 * A refusal answered before Hono or Astro sees the request: in the API's error shape, or in
 * Resend's under /resend (its SDK reads no other), for the request target `url`.
 */
export function refuse(res: ServerResponse, error: DomainError, url: string): void {
  const { status, headers, body: answer } = errorAnswer(error);
  const resend = isResendPath(url.split('?', 1)[0]);
  // no credential matters to these refusals: a missing key is never their reason
  const body = JSON.stringify(resend ? resendErrorBody(error, status, true) : answer);
  res.writeHead(status, STATUS_CODES[status], {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(body);
}

/** The same refusal written straight to a socket, for requests Node never turns into a ServerResponse. */
export function refuseOnSocket(socket: Duplex, error: DomainError): void {
  const { status, headers: own, body: answer } = errorAnswer(error);
  const body = JSON.stringify(answer);
  const headers = {
    ...own,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
}

/**
 * The one address of a console page: `/groups/` and `/groups//` answer 301 to `/groups`, keeping
 * the query (islands' relative calls broke under a trailing slash). Leading slashes collapse to one
 * and backslashes are encoded, so `//evil.example/` or `/\evil.example/` can only lead to a path
 * of ours, never to another host. Undefined when the path is already canonical.
 */
export function canonicalPageLocation(url: string): string | undefined {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path.length <= 1 || !path.endsWith('/')) return undefined;
  const trimmed = `/${path.replace(/^[/\\]+/, '').replace(/\/+$/, '')}`.replace(/\\/g, '%5C');
  return trimmed + (queryAt === -1 ? '' : url.slice(queryAt));
}
