// VERP envelope senders (bounces+<token>@<return-path domain>): the token names the transaction
// and carries an HMAC, so a bounce can be matched to its message and a forged token is refused.
import { type LocalPartKind, parseSignedLocalPart, signedToken } from '../message/signed-local-part.ts';

const VERP: LocalPartKind = { prefix: 'bounces', label: 'verp' };

/** The token for a transaction uuid: 32 hex characters, a dot, 12 hex characters of HMAC. */
export function verpToken(secret: string, transactionUuid: string): string {
  return signedToken(VERP, secret, transactionUuid);
}

export function verpAddress(secret: string, transactionUuid: string, returnPathDomain: string): string {
  return `bounces+${verpToken(secret, transactionUuid)}@${returnPathDomain}`;
}

/** The transaction uuid a VERP local part names, or null when it is not one of ours. */
export function parseVerp(secret: string, localPart: string): string | null {
  return parseSignedLocalPart(VERP, secret, localPart);
}
