// Local parts that name a transaction and carry an HMAC of it (`<prefix>+<32 hex of the uuid>.<12 hex
// of HMAC>`), so a reply can be matched to its message and a forged one is refused: VERP's
// `bounces+` (delivery/verp.ts) and the List-Unsubscribe mailto's `unsubscribe+` (list-unsubscribe.ts).
import { createHmac } from 'node:crypto';
import { safeEqual } from '../core/crypto.ts';

/** What a kind of local part is: its prefix, and the HMAC's label (each kind its own, so no token serves another). */
export interface LocalPartKind {
  prefix: string;
  label: string;
}

function mac(kind: LocalPartKind, secret: string, id: string): string {
  return createHmac('sha256', secret).update(`${kind.label}:${id}`).digest('hex').slice(0, 12);
}

/** The token for a transaction uuid: 32 hex characters, a dot, 12 hex characters of HMAC. */
export function signedToken(kind: LocalPartKind, secret: string, transactionUuid: string): string {
  const id = transactionUuid.replace(/-/g, '');
  return `${id}.${mac(kind, secret, id)}`;
}

/** The transaction uuid a local part of this kind names, or null when it is not one of ours. */
export function parseSignedLocalPart(kind: LocalPartKind, secret: string, localPart: string): string | null {
  const m = /^([^+]+)\+([0-9a-f]{32})\.([0-9a-f]{12})$/i.exec(localPart);
  if (!m || m[1].toLowerCase() !== kind.prefix) return null;
  const id = m[2].toLowerCase();
  if (!safeEqual(mac(kind, secret, id), m[3].toLowerCase())) return null;
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}
