// Signed, expiring download links: a URL that names one file and the second it stops working,
// signed with TRANSACT_SECRET, so it needs no session and no API key. Received mail's raw message and
// attachments (docs/receiving.md "Reading it by API") and a sent message's attachments (Resend's
// emails.attachments.*) hand them out; each domain keeps its own path and purpose label.
import { createHmac } from 'node:crypto';
import { safeEqual } from './crypto.ts';

/** What a link signs: its purpose (so a link of one kind never works for another) and the parts its path names. */
export interface LinkSubject {
  purpose: string;
  parts: readonly string[];
}

function signature(secret: string, subject: LinkSubject, expires: number): string {
  return createHmac('sha256', secret)
    .update([subject.purpose, ...subject.parts, String(expires)].join('\n'))
    .digest('base64url');
}

/** The unix second `seconds` after `now`: when a link made now stops working. */
export function expiryAfter(seconds: number, now = new Date()): number {
  return Math.floor(now.getTime() / 1000) + seconds;
}

/**
 * The query (`expires`, `signature`) of a link to `subject` that works until `expires` (unix
 * seconds), and that moment as an ISO date for the answer's `expires_at`.
 */
export function signLink(
  secret: string,
  subject: LinkSubject,
  expires: number,
): { query: URLSearchParams; expiresAt: string } {
  return {
    query: new URLSearchParams({ expires: String(expires), signature: signature(secret, subject, expires) }),
    expiresAt: new Date(expires * 1000).toISOString(),
  };
}

/**
 * Whether a link's `signature` is the one we made for `subject` and `expires` ('invalid' when not),
 * and if so whether it still works ('expired' from the second `expires` on).
 */
export function checkLink(
  secret: string,
  subject: LinkSubject,
  link: { expires: number; signature: string },
  now = new Date(),
): 'valid' | 'invalid' | 'expired' {
  if (!safeEqual(signature(secret, subject, link.expires), link.signature)) return 'invalid';
  return link.expires * 1000 > now.getTime() ? 'valid' : 'expired';
}
