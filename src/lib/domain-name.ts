// The domain rule of docs/console.md §5, shared by the domain modal and the API so both say the same:
// dot-separated labels of letters, digits, underscore or hyphen, ending in a top-level part of
// 1 to 10 letters. DNS limits (RFC 1035 §2.3.4: labels ≤ 63, names ≤ 253) are checked too.

export const DOMAIN_PATTERN = /^(?:[A-Za-z0-9_-]+\.)+[A-Za-z]{1,10}$/;
export const INVALID_DOMAIN_MESSAGE = 'Please enter a valid domain name';
export const MAX_LABEL_LENGTH = 63;
export const MAX_DOMAIN_LENGTH = 253;

/** Why `domain` cannot be a sending domain, or null when it can. */
export function domainNameProblem(domain: string): string | null {
  if (!DOMAIN_PATTERN.test(domain)) return INVALID_DOMAIN_MESSAGE;
  if (domain.length > MAX_DOMAIN_LENGTH) return `A domain name may have at most ${MAX_DOMAIN_LENGTH} characters`;
  if (domain.split('.').some((label) => label.length > MAX_LABEL_LENGTH))
    return `Each part of a domain name may have at most ${MAX_LABEL_LENGTH} characters`;
  return null;
}

/** An email local part we accept for the verification address (a dot-atom, RFC 5322 §3.2.3). */
export const LOCAL_PART_PATTERN = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
