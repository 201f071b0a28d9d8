// VERP envelope senders (bounces+<token>@<return-path domain>): the token names the transaction
// and carries an HMAC, so a bounce can be matched to its message and a forged token is refused.
import { createHmac } from 'node:crypto';
import { safeEqual } from '../core/crypto.ts';

function mac(secret: string, id: string): string {
  return createHmac('sha256', secret).update(`verp:${id}`).digest('hex').slice(0, 12);
}

/** The token for a transaction uuid: 32 hex characters, a dot, 12 hex characters of HMAC. */
export function verpToken(secret: string, transactionUuid: string): string {
  const id = transactionUuid.replace(/-/g, '');
  return `${id}.${mac(secret, id)}`;
}

export function verpAddress(secret: string, transactionUuid: string, returnPathDomain: string): string {
  return `bounces+${verpToken(secret, transactionUuid)}@${returnPathDomain}`;
}

/** The transaction uuid a VERP local part names, or null when it is not one of ours. */
export function parseVerp(secret: string, localPart: string): string | null {
  const m = /^bounces\+([0-9a-f]{32})\.([0-9a-f]{12})$/i.exec(localPart);
  if (!m) return null;
  const id = m[1].toLowerCase();
  if (!safeEqual(mac(secret, id), m[2].toLowerCase())) return null;
  return `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`;
}
