// Whether a request's body is in a media type its operation lists (src/contract/common.ts
// `mediaTypes`): the contract documents what each call reads, and a body in anything else is
// refused before it is read, so nothing is stored from a body the client labelled otherwise.
import { DomainError } from '../core/errors.ts';

/** The request headers the decision reads, as the client sent them. */
export interface BodyHeaders {
  contentType?: string;
  contentLength?: string;
  transferEncoding?: string;
}

/**
 * A media type without its parameters, lower case (RFC 9110 §8.3.1: type and subtype are
 * case-insensitive; `charset` and `boundary` are parameters): `application/json; charset=utf-8`
 * → `application/json`. Undefined for a value that is not `type/subtype`.
 */
export function mediaTypeOf(contentType: string): string | undefined {
  const essence = contentType.split(';')[0].trim().toLowerCase();
  return /^[!#$%&'*+.^_`|~\w-]+\/[!#$%&'*+.^_`|~\w-]+$/.test(essence) ? essence : undefined;
}

/** RFC 9112 §6.3: a request has a body when it says how long it is, or that it is chunked. */
function carriesBody(headers: BodyHeaders): boolean {
  if (headers.transferEncoding !== undefined) return true;
  return headers.contentLength !== undefined && headers.contentLength.trim() !== '0';
}

/**
 * The 415 for a request whose body is not in one of `accepted`, or undefined when it may be read.
 * A Content-Type is always checked; without one, a request that carries a body is refused too
 * (RFC 9110 §8.3 leaves the recipient to guess, and we do not), and one without a body passes (a
 * call whose body is optional, or a missing body the schema then refuses).
 */
export function unsupportedMediaType(headers: BodyHeaders, accepted: readonly string[]): DomainError | undefined {
  if (accepted.length === 0) return undefined;
  const listed = accepted.join(' or ');
  if (headers.contentType === undefined) {
    if (!carriesBody(headers)) return undefined;
    return new DomainError('unsupported_media_type', `Send the request body as ${listed}, with that Content-Type`);
  }
  const type = mediaTypeOf(headers.contentType);
  if (type !== undefined && accepted.includes(type)) return undefined;
  return new DomainError(
    'unsupported_media_type',
    `This call takes a request body in ${listed}, not ${type ?? `'${headers.contentType.slice(0, 100)}'`}`,
  );
}
