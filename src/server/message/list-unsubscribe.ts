// The List-Unsubscribe (RFC 2369) and List-Unsubscribe-Post (RFC 8058) headers every delivered
// message carries, and the HMAC-protected mailto address they name, so mailbox providers can offer
// their own unsubscribe button and a forged address unsubscribes nobody. Part of the message layer
// (docs/architecture.md §3.2): the return-path domain is the caller's to pass (domains.service.ts
// returnPathDomainOf), so this module imports no domain.
import type { Config } from '../core/config.ts';
import { type LocalPartKind, parseSignedLocalPart, signedToken } from './signed-local-part.ts';
import { DKIM_SIGNED_FIELDS } from './dkim.ts';

/** RFC 8058 §3.1: the exact key=value a one-click POST carries (and the header announces). */
export const ONE_CLICK_BODY = 'List-Unsubscribe=One-Click';

// a different label from VERP's, so a bounce token is never a valid unsubscribe token
const UNSUBSCRIBE: LocalPartKind = { prefix: 'unsubscribe', label: 'unsubscribe' };

/** unsubscribe+<32 hex of the uuid>.<12 hex of HMAC>@<return-path domain> */
export function unsubscribeAddress(secret: string, transactionUuid: string, returnPathDomain: string): string {
  return `unsubscribe+${signedToken(UNSUBSCRIBE, secret, transactionUuid)}@${returnPathDomain}`;
}

/** The transaction uuid an unsubscribe local part names, or null when it is not one of ours. */
export function parseUnsubscribeLocalPart(secret: string, localPart: string): string | null {
  return parseSignedLocalPart(UNSUBSCRIBE, secret, localPart);
}

/** The transaction an `unsubscribe+…@<return-path domain>` recipient names, or null when it is not ours. */
export function parseUnsubscribeAddress(secret: string, returnPathDomain: string, address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.slice(at + 1).toLowerCase() !== returnPathDomain.toLowerCase()) return null;
  return parseUnsubscribeLocalPart(secret, address.slice(0, at));
}

/** The page a provider's one-click POST (and a person's click) reaches for this transaction. */
export function headerUnsubscribeUrl(publicUrl: string, transactionUuid: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/header-unsubscribe/${transactionUuid}`;
}

/** The two header values for one transaction: the HTTPS URI first (RFC 8058 §3.1), then mailto. */
export function listUnsubscribeHeaders(
  config: Pick<Config, 'secret' | 'publicUrl'>,
  returnPathDomain: string,
  transactionUuid: string,
): { 'List-Unsubscribe': string; 'List-Unsubscribe-Post': string } {
  const mailto = unsubscribeAddress(config.secret!, transactionUuid, returnPathDomain);
  return {
    'List-Unsubscribe': `<${headerUnsubscribeUrl(config.publicUrl, transactionUuid)}>, <mailto:${mailto}>`,
    'List-Unsubscribe-Post': ONE_CLICK_BODY,
  };
}

const OURS = /^list-unsubscribe(-post)?$/i;

/**
 * `raw` (a CRLF message) with any List-Unsubscribe / List-Unsubscribe-Post the client set removed
 * (continuation lines too) and ours put first. The list header is folded after its comma (RFC 5322
 * §2.2.3) to stay under 78 characters a line.
 */
export function prependListUnsubscribe(raw: Buffer, headers: Record<string, string>): Buffer {
  const blank = raw.indexOf('\r\n\r\n');
  const end = blank < 0 ? raw.length : blank + 2;
  const kept: string[] = [];
  let dropping = false;
  for (const line of raw.subarray(0, end).toString('latin1').split('\r\n')) {
    if (/^[ \t]/.test(line) && dropping) continue;
    dropping = OURS.test(line.split(':', 1)[0].trim());
    if (!dropping) kept.push(line);
  }
  const ours = Object.entries(headers).map(([name, value]) => `${name}: ${value.replace(/>, </g, '>,\r\n <')}\r\n`);
  return Buffer.concat([Buffer.from(ours.join('') + kept.join('\r\n'), 'latin1'), raw.subarray(end)]);
}

interface Composed {
  raw?: Buffer | string;
  headers?: Record<string, string>;
  dkim: object;
}

/**
 * The composed nodemailer message with both headers added (replacing the client's), and the DKIM
 * options told to sign them. API messages get them as header fields, SMTP-submitted ones (raw)
 * have them written into the message before nodemailer signs it.
 */
export function withListUnsubscribe<T extends Composed>(
  config: Pick<Config, 'secret' | 'publicUrl'>,
  returnPathDomain: string,
  transactionUuid: string,
  mail: T,
): T & { dkim: { headerFieldNames: string } } {
  const headers = listUnsubscribeHeaders(config, returnPathDomain, transactionUuid);
  const dkim = { ...mail.dkim, headerFieldNames: DKIM_SIGNED_FIELDS };
  if (mail.raw !== undefined) {
    return {
      ...mail,
      dkim,
      raw: prependListUnsubscribe(Buffer.isBuffer(mail.raw) ? mail.raw : Buffer.from(mail.raw, 'latin1'), headers),
    };
  }
  const own = Object.fromEntries(Object.entries(mail.headers ?? {}).filter(([name]) => !OURS.test(name.trim())));
  return { ...mail, dkim, headers: { ...own, ...headers } };
}
