// The one Node HTTP server. /v1/*, /t/* and the operations paths go straight to the Hono app (an
// Astro route in between cost 7x in throughput, DESIGN.md); built assets are served from disk with
// their precompressed .br/.gz twins; every other path is rendered by Astro, compressed here.
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import compression from 'compression';
import { getRequestListener } from '@hono/node-server';
import sirv from 'sirv';
import type { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { PageBridge } from '../page-bridge.ts';

type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void, locals?: object) => void | Promise<void>;

export interface HttpServerOptions {
  ctx: AppContext;
  api: Hono<any>;
  /** Astro's middleware-mode handler (dist/server/entry.mjs). */
  pages?: NodeHandler;
  /** What pages get in Astro.locals. */
  bridge?: PageBridge;
  /** Directory of built client assets (dist/client). */
  clientDir?: string;
}

const API_PREFIXES = ['/v1/', '/t/'];
const API_EXACT = new Set(['/v1', '/healthz', '/readyz', '/metrics']);
const ONE_CLICK_PATH = /^\/header-unsubscribe\/[^/?#]+(\?|$)/;

/** Which part of the service answers a path; used for routing and for metric labels. */
export function areaOf(url: string): 'api' | 'static' | 'page' {
  const path = url.split('?', 1)[0];
  if (API_EXACT.has(path) || API_PREFIXES.some((p) => path.startsWith(p))) return 'api';
  if (path.startsWith('/_astro/') || /\.(js|css|svg|png|ico|jpg|jpeg|gif|webp|woff2?|txt)$/.test(path)) return 'static';
  return 'page';
}

const NOT_FOUND_PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head>' +
  '<body style="font-family:system-ui,sans-serif;text-align:center;padding:4rem 1rem;color:#34495e">' +
  '<h1>Page not found</h1><p><a href="/">Back to the dashboard</a></p></body></html>';

/** Paths no page matches: answered here, since Astro's own fallback renders without our locals. */
function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(NOT_FOUND_PAGE);
}

export function createHttpServer(opts: HttpServerOptions): Server {
  const { ctx } = opts;
  const apiListener = getRequestListener(opts.api.fetch);
  const compress = compression({ threshold: 1024 });
  const serveStatic = opts.clientDir
    ? sirv(opts.clientDir, {
        brotli: true,
        gzip: true,
        etag: true,
        setHeaders(res, pathname) {
          // hashed build output never changes under one name
          res.setHeader('Cache-Control', pathname.startsWith('/_astro/') ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
        },
      })
    : undefined;
  const locals = { bridge: opts.bridge };

  const renderPage = (req: IncomingMessage, res: ServerResponse) => {
    if (!opts.pages) {
      notFound(res);
      return;
    }
    compress(req as any, res as any, () => {
      void opts.pages!(req, res, () => notFound(res), locals);
    });
  };

  return createServer((req, res) => {
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
        ctx.logger.info({ requestId, method: req.method, url: req.url, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 }, 'request');
      }
    });
    // RFC 8058 one-click POSTs arrive cross-site without Origin, which Astro's origin check refuses
    if (area === 'api' || (req.method === 'POST' && ONE_CLICK_PATH.test(req.url ?? ''))) {
      void apiListener(req, res);
    } else if (area === 'static' && serveStatic) {
      serveStatic(req, res, () => renderPage(req, res));
    } else {
      renderPage(req, res);
    }
  });
}
