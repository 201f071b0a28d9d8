// The tracking endpoints mail clients fetch: GET /t/o/<token> (the open pixel) and GET /t/c/<token>
// (a tracked link). Public, no session and no CSRF: the token is the only credential. HEAD requests
// (link scanners, prefetchers) are answered alike and recorded as a machine's (machine-rules.ts).
import { type Context, Hono } from 'hono';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, clientIp } from '../http/middleware.ts';
import { type HitClient, recordClick, recordOpen, resolveClick, verifyOpenToken } from './tracking.service.ts';

// the smallest transparent 1×1 GIF (GIF89a, one transparent pixel)
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
// every fetch must reach us to be counted, so nothing may keep a copy
const NO_STORE = {
  'Cache-Control': 'no-store, no-cache, must-revalidate, max-age=0, private',
  Pragma: 'no-cache',
  Expires: '0',
};
const NOT_FOUND_PAGE = 'This link is not valid. It may have been mistyped or cut short.\n';

/** Who fetched: the address (clientIp: X-Forwarded-For under TRUST_PROXY), the agent, and GET or HEAD. */
function hitClient(c: Context<ApiEnv>): HitClient {
  return {
    ip: clientIp(c),
    userAgent: c.req.header('user-agent') ?? null,
    // Hono answers a HEAD with the GET route, without the body
    method: c.req.method === 'HEAD' ? 'HEAD' : 'GET',
  };
}

export function trackingRoutes(ctx: AppContext): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/t/o/:token', (c) => {
    const uuid = verifyOpenToken(ctx.config.secret!, c.req.param('token'));
    if (uuid) recordOpen(ctx, uuid, hitClient(c));
    // forged or not, the answer is the same pixel: a mail client shows no broken image
    return c.body(new Uint8Array(PIXEL), 200, {
      ...NO_STORE,
      'Content-Type': 'image/gif',
      'Content-Length': String(PIXEL.length),
    });
  });

  app.get('/t/c/:token', async (c) => {
    const link = await resolveClick(ctx, c.req.param('token'));
    // only http(s) is ever stored (message/tracking-rewrite.ts); checked again so no stored row can
    // redirect elsewhere
    if (!link || !/^https?:\/\//i.test(link.url)) return c.text(NOT_FOUND_PAGE, 404, NO_STORE);
    recordClick(ctx, link, hitClient(c));
    for (const [name, value] of Object.entries(NO_STORE)) c.header(name, value);
    // the destination need not learn the token (it could replay the click)
    c.header('Referrer-Policy', 'no-referrer');
    return c.redirect(link.url, 302);
  });

  return app;
}
