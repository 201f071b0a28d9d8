// The recipients' side of online attachments, no session:
//   GET  /a/{public id}                    the branded page (changes nothing)
//   GET  /a/{public id}/logo               the customer's logo
//   POST /a/{public id}/files/{asset id}   the download: counts against the access limit, records a
//                                          `download` event when the link came in a mail (?r=…);
//                                          a resume (Range not at 0) by the same client is not counted
// POSTs here need no CSRF token: a forged one could only spend a download of a link its sender
// already holds. server.ts routes /a/* here, past Astro's origin check.
import { createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { create as contentDisposition } from 'content-disposition';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type Context } from 'hono';
import { DEAD_LINK_NOTICES, linkState } from '../../lib/attachment-state.ts';
import type { AppContext } from '../core/context.ts';
import { type ApiEnv, clientIp } from '../http/middleware.ts';
import type { ByteRange } from '../storage/storage.ts';
import type * as repo from './attachments.repository.ts';
import { DEFAULT_BRANDING, recipientOf } from './attachments.service.ts';
import { countDownload, findPublicAsset, findPublicGroup, hasRecentDownload } from './public.service.ts';
import { publicBranding, publicFiles, publicSender } from './public.service.ts';
import { type PublicPageView, renderPublicPage } from './public-page.ts';

type Refusal = 'expired' | 'exhausted';
const NOTICES: Record<Refusal | 'missing', { heading: string; text: string }> = {
  ...DEAD_LINK_NOTICES,
  missing: { heading: 'Link not found', text: 'There is no download at this address. Check the link you were sent.' },
};

function stateOf(group: repo.GroupRow, now: Date): Refusal | null {
  const expiry = group.expires_at ? new Date(group.expires_at).getTime() / 1000 : null;
  const state = linkState(
    { expiry, accessLimit: group.access_limit, downloads: group.downloads },
    now.getTime() / 1000,
  );
  return state === 'live' ? null : state;
}

/** Parses a single `bytes=` range against `size` (RFC 9110 §14.1.2); null: serve whole; 'bad': 416. */
export function parseRange(header: string | undefined, size: number): ByteRange | null | 'bad' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null; // several ranges or another unit: whole file
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'bad';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'bad';
  return { start, end };
}

/**
 * Who asks for a download, for the resume check: an HMAC of the client address (X-Forwarded-For's
 * first entry under TRUST_PROXY, as clientIp reads it everywhere) and the recipient's transaction,
 * so the table holds no addresses.
 */
function clientDigest(ctx: AppContext, ip: string | null, transactionUuid: string | undefined): string {
  return createHmac('sha256', ctx.config.secret!)
    .update(`attachment-client:${ip ?? ''}:${transactionUuid ?? ''}`)
    .digest('base64url');
}

export function publicAttachmentRoutes(ctx: AppContext, clock: () => Date = () => new Date()): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  const page = async (
    c: Context<ApiEnv>,
    group: repo.GroupRow | undefined,
    status: number,
    refusal: Refusal | 'missing' | null,
  ) => {
    const branding = group ? await publicBranding(ctx, group) : undefined;
    const recipient = c.req.query('r') ?? null;
    const view: PublicPageView = {
      title: group?.name ?? '',
      sender: group ? await publicSender(ctx, group) : null,
      branding: branding?.settings ?? DEFAULT_BRANDING,
      logoUrl: group && branding?.logo_key ? `/a/${group.public_id}/logo` : null,
      expiry: group?.expires_at ? Math.floor(new Date(group.expires_at).getTime() / 1000) : null,
      files: group && !refusal ? await publicFiles(ctx, group) : [],
      actionBase: group ? `/a/${group.public_id}` : '',
      recipient: group && recipient && recipientOf(ctx, group.public_id, recipient) ? recipient : null,
      notice: refusal ? NOTICES[refusal] : undefined,
    };
    c.header('Cache-Control', 'no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    c.header(
      'Content-Security-Policy',
      "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; " +
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    return c.html(renderPublicPage(view), status as 200);
  };

  const findGroup = (publicId: string) => findPublicGroup(ctx, publicId);

  app.get('/a/:publicId', async (c) => {
    const group = await findGroup(c.req.param('publicId'));
    if (!group) return page(c, undefined, 404, 'missing');
    const refusal = stateOf(group, clock());
    return page(c, group, refusal ? 410 : 200, refusal);
  });

  app.get('/a/:publicId/logo', async (c) => {
    const group = await findGroup(c.req.param('publicId'));
    const branding = group ? await publicBranding(ctx, group) : undefined;
    const body = branding?.logo_key ? await ctx.storage.get(branding.logo_key) : undefined;
    if (!branding?.logo_type || !body) return c.body(null, 404);
    return new Response(Readable.toWeb(body) as ReadableStream, {
      headers: {
        'Content-Type': branding.logo_type,
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'public, max-age=300',
      },
    });
  });

  app.post('/a/:publicId/files/:assetId', async (c) => {
    const group = await findGroup(c.req.param('publicId'));
    const assetId = c.req.param('assetId');
    const asset = group ? await findPublicAsset(ctx, group, assetId) : undefined;
    if (!group || !asset) return page(c, undefined, 404, 'missing');
    const size = Number(asset.size);
    const range = parseRange(c.req.header('range'), size);
    if (range === 'bad') {
      return c.body(null, 416, { 'Content-Range': `bytes */${size}` });
    }
    const now = clock();
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const token = typeof form.r === 'string' ? form.r : c.req.query('r');
    const uuid = recipientOf(ctx, group.public_id, token);
    const client = clientDigest(ctx, clientIp(c), uuid);
    // A range that does not start at byte 0 continues a download only when this client
    // has a recent counted download of this file on this link: then it is served uncounted, even
    // if that download took the last slot. Any other range counts like a new download, or anyone
    // could take all but the first byte of every file without limit.
    const resuming = range !== null && range.start > 0 && (await hasRecentDownload(ctx, group, asset, client, now));
    if (resuming) {
      if (stateOf(group, now) === 'expired') return page(c, group, 410, 'expired');
    } else {
      const counted = await countDownload(ctx, group, asset, { client, transactionUuid: uuid, now });
      if (!counted) {
        const fresh = (await findPublicGroup(ctx, group.public_id)) ?? group;
        return page(c, fresh, 410, stateOf(fresh, now) ?? 'exhausted');
      }
    }
    const body = await ctx.storage.get(asset.storage_key, range ?? undefined);
    if (!body) return page(c, undefined, 404, 'missing');
    const headers: Record<string, string> = {
      'Content-Type': asset.content_type,
      'Content-Length': String(range ? range.end - range.start + 1 : size),
      'Content-Disposition': contentDisposition(asset.name),
      'X-Content-Type-Options': 'nosniff',
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'no-store',
      ...(range ? { 'Content-Range': `bytes ${range.start}-${range.end}/${size}` } : {}),
    };
    const status = range ? 206 : 200;
    // under the real server, pipe the file straight into the socket (no web-stream hop)
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing && typeof outgoing.writeHead === 'function') {
      outgoing.writeHead(status, headers);
      pipeline(body, outgoing).catch(() => undefined); // a recipient who stops reading ends the pipe
      return RESPONSE_ALREADY_SENT;
    }
    return new Response(Readable.toWeb(body) as ReadableStream, { status, headers });
  });

  return app;
}
