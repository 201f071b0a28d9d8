// The signed, expiring links that serve a received message's raw bytes and attachments
// (docs/receiving.md "Reading it by API"): the API, the console and full `email.received` payloads
// hand them out; GET /v1/received-files/{id}/{file} checks them. A link names one file of one
// message and its expiry, signed with TRANSACT_SECRET, so it needs no session and no account.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../core/context.ts';

/** How long a link of the API or the console works: one hour. */
const LINK_SECONDS = 3600;

function signature(ctx: Pick<AppContext, 'config'>, id: string, file: string, expires: number): string {
  return createHmac('sha256', ctx.config.secret!)
    .update(`received-file\n${id}\n${file}\n${expires}`)
    .digest('base64url');
}

/**
 * A link to `file` ('raw' or an attachment id) of message `id`, valid until `expires` (unix
 * seconds; one hour from now unless given).
 */
export function signedLink(
  ctx: Pick<AppContext, 'config'>,
  id: string,
  file: string,
  expires = Math.floor(Date.now() / 1000) + LINK_SECONDS,
): { url: string; expiresAt: string } {
  const query = new URLSearchParams({ expires: String(expires), signature: signature(ctx, id, file, expires) });
  return {
    url: `${ctx.config.publicUrl}/v1/received-files/${id}/${encodeURIComponent(file)}?${query}`,
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

/** Whether `given` is the signature of this link and the link has not expired. */
export function validSignature(
  ctx: Pick<AppContext, 'config'>,
  link: { id: string; file: string; expires: number; signature: string },
): boolean {
  const expected = Buffer.from(signature(ctx, link.id, link.file, link.expires));
  const actual = Buffer.from(link.signature);
  return expected.length === actual.length && timingSafeEqual(expected, actual) && link.expires * 1000 > Date.now();
}
