// The one Node HTTP server. /v1/*, /resend/*, /t/* and the operations paths go straight to the Hono app (an
// Astro route in between cost 7x in throughput, docs/architecture.md §2); built assets are served from disk with
// their precompressed .br/.gz twins; every other path is rendered by Astro, compressed here.
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, STATUS_CODES, type Server, type ServerResponse, createServer } from 'node:http';
import type { Duplex } from 'node:stream';
import compression from 'compression';
import { getRequestListener } from '@hono/node-server';
import sirv from 'sirv';
import type { ApiApp } from './http/request-guard.ts';
import type { AppContext } from './core/context.ts';
import type { PageBridge } from './page-bridge.ts';
import { DomainError } from './core/errors.ts';
import {
  FORBIDDEN_METHODS,
  PAGE_METHODS,
  apiMethodsFinder,
  badTarget,
  canonicalPageLocation,
  methodNotAllowed,
  refuse,
  refuseOnSocket,
} from './http/request-guard.ts';

type NodeHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  next?: (err?: unknown) => void,
  locals?: object,
) => void | Promise<void>;

export interface HttpServerOptions {
  ctx: AppContext;
  api: ApiApp;
  /** Astro's middleware-mode handler (dist/server/entry.mjs). */
  pages?: NodeHandler;
  /** What pages get in Astro.locals. */
  bridge?: PageBridge;
  /** Directory of built client assets (dist/client). */
  clientDir?: string;
}

const API_PREFIXES = ['/v1/', '/resend/', '/t/'];
const API_EXACT = new Set(['/v1', '/healthz', '/readyz', '/metrics']);
const ONE_CLICK_PATH = /^\/header-unsubscribe\/[^/?#]+(\?|$)/;
// online attachments' public pages: downloads are cross-site form POSTs, served by the API
const ATTACHMENT_PATH = /^\/a\/[^/?#]+(\/|\?|$)/;

/** Which part of the service answers a path; used for routing and for metric labels. */
export function areaOf(url: string): 'api' | 'static' | 'page' {
  const path = url.split('?', 1)[0];
  if (API_EXACT.has(path) || API_PREFIXES.some((p) => path.startsWith(p))) return 'api';
  if (path.startsWith('/_astro/') || /\.(js|css|svg|png|ico|jpg|jpeg|gif|webp|woff2?|txt)$/.test(path)) return 'static';
  return 'page';
}

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not Found</title></head>' +
  '<body style="font-family:system-ui,sans-serif;text-align:center;padding:4rem 1rem;color:#34495e">' +
  '<h1>Not Found</h1><p><a href="/">Back to the dashboard</a></p></body></html>';

/** Paths no page matches: answered here, since Astro's own fallback renders without our locals. */
function notFound(res: ServerResponse): void {
  res.writeHead(404, 'Not Found', {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(NOT_FOUND_PAGE);
}

/**
 * Astro copies its Response's statusText onto the Node response, and a page that sets only
 * Astro.response.status (the 404 page) keeps the 'OK' of its 200: "404 OK". Pages never choose a
 * reason phrase, so the standard one is written for every status.
 */
function standardReasonPhrase(res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (typeof rest[0] === 'string') rest[0] = STATUS_CODES[status] ?? rest[0];
    else this.statusMessage = STATUS_CODES[status] ?? '';
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}

export function createHttpServer(opts: HttpServerOptions): Server {
  const { ctx } = opts;
  const apiListener = getRequestListener(opts.api.fetch);
  const serveStatic = opts.clientDir ? staticFiles(opts.clientDir) : undefined;
  const renderPage = pageRenderer(opts);
  const apiMethodsAt = apiMethodsFinder(opts.api);

  // headersTimeout (set by main.ts) is enforced by a sweep over open connections, every 30 s by
  // default: once a second closes a connection that never sent its headers close to the limit
  const server = createServer({ connectionsCheckingInterval: 1000 }, (req, res) => {
    const area = tagAndMeasure(ctx, req, res);
    if (refusedBeforeRouting(req, res, area, apiMethodsAt)) return;
    // RFC 8058 one-click POSTs arrive cross-site without Origin, which Astro's origin check refuses
    if (
      area === 'api' ||
      (req.method === 'POST' && ONE_CLICK_PATH.test(req.url ?? '')) ||
      ATTACHMENT_PATH.test(req.url ?? '')
    ) {
      void apiListener(req, res);
    } else if (area === 'static' && serveStatic) {
      serveStatic(req, res, () => renderPage(req, res));
    } else {
      renderPage(req, res);
    }
  });

  // CONNECT is handed to a 'connect' listener instead of the request handler; without one Node
  // drops the connection unanswered. We are no proxy: 405 like any other method not served.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    ctx.metrics.httpRequests.inc({ area: 'page', method: 'CONNECT', status: '405' });
    refuseOnSocket(socket, methodNotAllowed('CONNECT', PAGE_METHODS));
  });
  server.on('clientError', answerClientError);
  return server;
}

/** Built assets from disk, with their precompressed .br/.gz twins. */
function staticFiles(clientDir: string): ReturnType<typeof sirv> {
  return sirv(clientDir, {
    brotli: true,
    gzip: true,
    etag: true,
    setHeaders(res, pathname) {
      // hashed build output never changes under one name
      res.setHeader(
        'Cache-Control',
        pathname.startsWith('/_astro/') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600',
      );
    },
  });
}

/** Astro renders the page, compressed here; without Astro (API-only tests) every page is a 404. */
function pageRenderer(opts: HttpServerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const compress = compression({ threshold: 1024 });
  const locals = { bridge: opts.bridge };
  return (req, res) => {
    if (!opts.pages) {
      notFound(res);
      return;
    }
    standardReasonPhrase(res);
    compress(req as Parameters<typeof compress>[0], res as Parameters<typeof compress>[1], () => {
      void opts.pages!(req, res, () => notFound(res), locals);
    });
  };
}

/**
 * Gives the request its id (the client's X-Request-Id when it is a sane one) and, when it is
 * answered, counts, times and logs it (assets are not logged); returns the area that answers it.
 */
function tagAndMeasure(ctx: AppContext, req: IncomingMessage, res: ServerResponse): ReturnType<typeof areaOf> {
  const started = process.hrtime.bigint();
  const incomingId = req.headers['x-request-id'];
  const requestId = typeof incomingId === 'string' && /^[\w.-]{1,64}$/.test(incomingId) ? incomingId : randomUUID();
  req.headers['x-request-id'] = requestId;
  res.setHeader('X-Request-Id', requestId);
  const area = areaOf(req.url ?? '/');
  res.once('finish', () => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    ctx.metrics.httpRequests.inc({ area, method: req.method ?? '?', status: String(res.statusCode) });
    ctx.metrics.httpDuration.observe({ area }, seconds);
    if (area !== 'static') {
      ctx.logger.info(
        { requestId, method: req.method, url: req.url, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    }
  });
  return area;
}

/**
 * Answers what no route should see: a method not served (405), a malformed target, a page address
 * that is not canonical (301). True when it answered.
 */
function refusedBeforeRouting(
  req: IncomingMessage,
  res: ServerResponse,
  area: ReturnType<typeof areaOf>,
  apiMethodsAt: ReturnType<typeof apiMethodsFinder>,
): boolean {
  const url = req.url ?? '/';
  const method = req.method ?? 'GET';
  // Methods no route serves get 405 here: TRACE and CONNECT cannot become a web Request (they
  // answered 500 inside Hono and Astro), and pages only answer GET, HEAD and POST.
  if (area === 'api' ? FORBIDDEN_METHODS.has(method) : !PAGE_METHODS.includes(method)) {
    const allowed = area === 'api' ? apiMethodsAt(url.split('?', 1)[0]) : PAGE_METHODS;
    refuse(
      res,
      allowed.length > 0
        ? methodNotAllowed(method, allowed)
        : new DomainError('not_found', `No route ${method} ${url.split('?', 1)[0]}`),
      url,
    );
    return true;
  }
  const badAddress = badTarget(url);
  if (badAddress) {
    refuse(res, badAddress, url);
    return true;
  }
  const canonical = area === 'page' && (method === 'GET' || method === 'HEAD') ? canonicalPageLocation(url) : undefined;
  if (canonical) {
    res.writeHead(301, { Location: canonical, 'Cache-Control': 'no-store' });
    res.end();
    return true;
  }
  return false;
}

/**
 * A method Node's parser does not know (`FOO / HTTP/1.1`) fails before any request exists; it
 * gets the same 405. Other parse errors keep Node's own answers (its default listener's codes).
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  const inResponse =
    (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || inResponse) {
    socket.destroy();
    return;
  }
  if (err.code === 'HPE_INVALID_METHOD') {
    refuseOnSocket(socket, methodNotAllowed('This method', PAGE_METHODS));
    return;
  }
  const status =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 431
      : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
        ? 413
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 408
          : 400;
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
}
