// Strict email address parsing for everything we send. Only dot-atom local parts (RFC 5322
// §3.2.3) are accepted: quoted local parts, comments, source routes and groups are refused, so a
// value like `"a@x y"@victim.example` can never be read two ways by two parsers.
import { domainToASCII } from 'node:url';
import type { Address } from '../db/schema.ts';

const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export class AddressError extends Error {}

/** The ASCII (punycode) form of a domain, lower-cased, or null when it is not a valid host name. */
export function normalizeDomain(domain: string): string | null {
  const ascii = domainToASCII(domain.trim().replace(/\.$/, '')).toLowerCase();
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !TLD.test(labels[labels.length - 1])) return null;
  return ascii;
}

/** A bare address `local@domain` with the domain normalised, or an AddressError. */
export function parseEmail(value: string): string {
  const email = value.trim();
  const at = email.lastIndexOf('@');
  if (at <= 0 || email.length > 320) throw new AddressError(`'${value}' is not a valid email address`);
  const local = email.slice(0, at);
  const domain = normalizeDomain(email.slice(at + 1));
  if (local.length > 64 || !LOCAL.test(local) || !domain)
    throw new AddressError(`'${value}' is not a valid email address`);
  return `${local}@${domain}`;
}

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Parses `email`, `Name <email>` or `{ email, name }` into an Address. */
export function parseAddress(value: string | { email: string; name?: string | null }): Address {
  if (typeof value !== 'string') {
    const name = value.name?.trim() || null;
    if (name && (CONTROL.test(name) || name.length > 200))
      throw new AddressError(`The name for ${value.email} contains control characters or is too long`);
    return { email: parseEmail(value.email), name };
  }
  if (CONTROL.test(value)) throw new AddressError('An address contains a line break or control character');
  const m = /^\s*(.*?)\s*<([^<>]*)>\s*$/.exec(value);
  if (!m) return { email: parseEmail(value), name: null };
  let name = m[1];
  if (name.startsWith('"') && name.endsWith('"') && name.length >= 2) name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  if (name.length > 200 || /[<>]/.test(name)) throw new AddressError(`'${value}' is not a valid address`);
  return { email: parseEmail(m[2]), name: name.trim() || null };
}

/** The domain part of a parsed address. */
export function domainOf(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1);
}
