// The signed, expiring links that serve a received message's raw bytes and attachments
// (docs/receiving.md "Reading it by API"): the API, the console and full `email.received` payloads
// hand them out; GET /v1/received-files/{id}/{file} checks them. A link names one file of one
// message and its expiry, signed with TRANSACT_SECRET, so it needs no session and no account.
import type { AppContext } from '../core/context.ts';
import { checkLink, expiryAfter, type LinkSubject, signLink } from '../core/signed-links.ts';

/** How long a link of the API or the console works: one hour. */
const LINK_SECONDS = 3600;

const subjectOf = (id: string, file: string): LinkSubject => ({ purpose: 'received-file', parts: [id, file] });

/**
 * A link to `file` ('raw' or an attachment id) of message `id`, valid until `expires` (unix
 * seconds; one hour from now unless given).
 */
export function signedLink(
  ctx: Pick<AppContext, 'config'>,
  id: string,
  file: string,
  expires = expiryAfter(LINK_SECONDS),
): { url: string; expiresAt: string } {
  const { query, expiresAt } = signLink(ctx.config.secret!, subjectOf(id, file), expires);
  return { url: `${ctx.config.publicUrl}/v1/received-files/${id}/${encodeURIComponent(file)}?${query}`, expiresAt };
}

/** Whether `given` is the signature of this link and the link has not expired. */
export function validSignature(
  ctx: Pick<AppContext, 'config'>,
  link: { id: string; file: string; expires: number; signature: string },
): boolean {
  return checkLink(ctx.config.secret!, subjectOf(link.id, link.file), link) === 'valid';
}
