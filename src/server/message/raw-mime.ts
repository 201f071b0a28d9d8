// Tracking an SMTP-submitted message means rewriting its text parts in place: the message arrived as
// raw MIME (`messages.raw`) and is relayed as such, so only the text/plain and text/html leaves that
// change are decoded, rewritten and re-encoded; every other byte (headers, attachments, preambles,
// boundaries) is copied as it was. Messages are CRLF throughout (submission refuses bare CR/LF).
// Used by tracking and by attachments' download block, so it sits in the message layer below both
// (docs/architecture.md §3.2).
import { buildHeaderValue, parseHeaderValue } from 'nodemailer/lib/mime-funcs';
import { encode as base64Encode, wrap as base64Wrap } from 'nodemailer/lib/base64';
import { encode as qpEncode, wrap as qpWrap } from 'nodemailer/lib/qp';

export type TextSubtype = 'plain' | 'html';
/** Rewrites one decoded text part; returning the input unchanged leaves the part's bytes as they were. */
export type TextRewriter = (content: string, subtype: TextSubtype) => string;

const CRLF = '\r\n';
// nesting deeper than any real mail client produces is left alone rather than walked
const MAX_DEPTH = 16;
// RFC 5322 §2.1.1: a line is at most 998 characters without its CRLF
const MAX_LINE = 998;

interface Entity {
  /** The header block, each field ending in CRLF (latin1, so one char per byte). */
  head: string;
  body: Buffer;
}

function splitEntity(entity: Buffer): Entity | null {
  // no headers (RFC 2046 §5.1.1)
  if (entity.subarray(0, 2).toString('latin1') === CRLF) return { head: '', body: entity.subarray(2) };
  const end = entity.indexOf('\r\n\r\n');
  if (end < 0) return null;
  return { head: entity.subarray(0, end + 2).toString('latin1'), body: entity.subarray(end + 4) };
}

/** The unfolded value of the first field `name` (RFC 5322 §2.2.3), or undefined. */
function field(head: string, name: string): string | undefined {
  const re = new RegExp(`^${name}[ \\t]*:([^\\r]*(?:\\r\\n[ \\t][^\\r]*)*)`, 'im');
  const m = re.exec(head);
  return m ? m[1].replace(/\r\n/g, '').trim() : undefined;
}

/** The header block with field `name` replaced by (or, when absent, extended with) `line`. */
function withField(head: string, name: string, line: string): string {
  const re = new RegExp(`^${name}[ \\t]*:[^\\r]*\\r\\n(?:[ \\t][^\\r]*\\r\\n)*`, 'im');
  return re.test(head) ? head.replace(re, () => line + CRLF) : head + line + CRLF;
}

/** RFC 2045 §6.7 quoted-printable decoding, tolerant of the lowercase hex that some clients write. */
export function decodeQuotedPrintable(body: Buffer): Buffer {
  // rule 3: whitespace at the end of an encoded line was added in transport and is dropped
  const s = body
    .toString('latin1')
    .replace(/[ \t]+(?=\r\n|$)/g, '')
    .replace(/=\r\n/g, '');
  const out = Buffer.alloc(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3d && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      out[n++] = parseInt(s.slice(i + 1, i + 3), 16);
      i += 2;
    } else {
      out[n++] = c;
    }
  }
  return out.subarray(0, n);
}

function decodeBody(body: Buffer, encoding: string): Buffer | null {
  if (encoding === 'base64') return Buffer.from(body.toString('latin1').replace(/[^A-Za-z0-9+/]/g, ''), 'base64');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === '7bit' || encoding === '8bit' || encoding === 'binary') return body;
  return null; // x-uuencode and the like: not ours to touch
}

function decoderFor(charset: string): TextDecoder | null {
  try {
    return new TextDecoder(charset, { ignoreBOM: true }); // a byte order mark stays in the text, and so in the output
  } catch {
    return null; // a charset we cannot decode is left as it is rather than mangled
  }
}

// Charsets that encode ASCII text as plain ASCII bytes: an ASCII-only result keeps its label.
const NOT_ASCII_COMPATIBLE = /^(utf-?(16|32|7)|ucs-?[24]|cp037|ibm0?37|ebcdic)/i;

function fitsAsIs(bytes: Buffer, sevenBit: boolean): boolean {
  let line = 0;
  for (const b of bytes) {
    if (sevenBit && b > 0x7f) return false;
    if (b === 0x0a) line = 0;
    else if (++line > MAX_LINE + 1) return false; // +1: the CR before LF
  }
  return true;
}

function rewriteLeaf(
  entity: Buffer,
  split: Entity,
  subtype: TextSubtype,
  params: Record<string, string>,
  rewrite: TextRewriter,
): Buffer {
  if (/^\s*attachment/i.test(field(split.head, 'content-disposition') ?? '')) return entity;
  const encoding = (field(split.head, 'content-transfer-encoding') ?? '7bit').toLowerCase();
  const bytes = decodeBody(split.body, encoding);
  const charset = (params.charset ?? 'us-ascii').trim();
  const decoder = decoderFor(charset);
  if (!bytes || !decoder) return entity;
  const content = decoder.decode(bytes);
  const rewritten = rewrite(content, subtype);
  if (rewritten === content) return entity;

  let head = split.head;
  // keep the label when it still describes the bytes; otherwise the part becomes UTF-8
  const keepLabel =
    /^utf-?8$/i.test(charset) || (/^[\x00-\x7f]*$/.test(rewritten) && !NOT_ASCII_COMPATIBLE.test(charset));
  if (!keepLabel) {
    const type = parseHeaderValue(field(head, 'content-type') ?? `text/${subtype}`);
    head = withField(
      head,
      'Content-Type',
      `Content-Type: ${buildHeaderValue({ value: type.value, params: { ...type.params, charset: 'utf-8' } })}`,
    );
  }
  const out = Buffer.from(rewritten, 'utf8');
  let body: string | Buffer;
  if (encoding === 'base64') body = base64Wrap(base64Encode(out), 76);
  else if (encoding === 'quoted-printable') body = qpWrap(qpEncode(out), 76);
  else if (fitsAsIs(out, encoding === '7bit')) body = out;
  else {
    // a longer line or 8-bit text in a 7bit part: quoted-printable carries it safely
    head = withField(head, 'Content-Transfer-Encoding', 'Content-Transfer-Encoding: quoted-printable');
    body = qpWrap(qpEncode(out), 76);
  }
  const tail = typeof body === 'string' ? Buffer.from(body, 'latin1') : body;
  // the encoders drop a final line break the original body may have ended with; keep it
  const ending =
    split.body.subarray(-2).toString('latin1') === CRLF && tail.subarray(-2).toString('latin1') !== CRLF ? CRLF : '';
  return Buffer.concat([Buffer.from(head + CRLF, 'latin1'), tail, Buffer.from(ending, 'latin1')]);
}

interface Delimiter {
  /** offset of the CRLF before the delimiter line (or of the line itself at the body's start) */
  before: number;
  /** offset just after the delimiter line's CRLF */
  after: number;
  close: boolean;
}

/** The delimiter lines of a multipart body (RFC 2046 §5.1.1), up to and including the close delimiter. */
function delimiters(body: string, boundary: string): Delimiter[] {
  const dash = `--${boundary}`;
  const found: Delimiter[] = [];
  let from = 0;
  for (;;) {
    const at = body.indexOf(dash, from);
    if (at < 0) return found;
    from = at + dash.length;
    if (at !== 0 && body.slice(at - 2, at) !== CRLF) continue;
    const close = body.startsWith('--', from);
    const lineEnd = body.indexOf(CRLF, from);
    const padding = body.slice(from + (close ? 2 : 0), lineEnd < 0 ? body.length : lineEnd);
    if (!/^[ \t]*$/.test(padding)) continue; // a longer boundary that merely starts with this one
    found.push({ before: at === 0 ? 0 : at - 2, after: lineEnd < 0 ? body.length : lineEnd + 2, close });
    if (close) return found;
  }
}

function rewriteMultipart(
  entity: Buffer,
  split: Entity,
  boundary: string,
  rewrite: TextRewriter,
  depth: number,
): Buffer {
  const marks = delimiters(split.body.toString('latin1'), boundary);
  const pieces: Buffer[] = [];
  let copied = 0;
  let changed = false;
  for (let i = 0; i < marks.length && !marks[i].close; i++) {
    const start = marks[i].after;
    const end = i + 1 < marks.length ? marks[i + 1].before : split.body.length;
    if (end <= start) continue;
    const part = split.body.subarray(start, end);
    const next = rewriteEntity(part, rewrite, depth + 1);
    if (next === part) continue;
    pieces.push(split.body.subarray(copied, start), next);
    copied = end;
    changed = true;
  }
  if (!changed) return entity;
  pieces.push(split.body.subarray(copied));
  return Buffer.concat([Buffer.from(split.head + CRLF, 'latin1'), ...pieces]);
}

function rewriteEntity(entity: Buffer, rewrite: TextRewriter, depth: number): Buffer {
  if (depth > MAX_DEPTH) return entity;
  const split = splitEntity(entity);
  if (!split) return entity;
  // RFC 2045 §5.2: no Content-Type means text/plain; charset=us-ascii
  const type = parseHeaderValue(field(split.head, 'content-type') ?? 'text/plain');
  const mime = type.value.toLowerCase();
  if (mime.startsWith('multipart/')) {
    const boundary = type.params.boundary;
    return boundary ? rewriteMultipart(entity, split, boundary, rewrite, depth) : entity;
  }
  if (mime === 'text/plain' || mime === 'text/html')
    return rewriteLeaf(entity, split, mime === 'text/html' ? 'html' : 'plain', type.params, rewrite);
  return entity; // attachments, images, message/rfc822 (a forwarded message is not ours to track)
}

/**
 * Rewrites the text/plain and text/html parts of a raw CRLF message (attachments excepted), in
 * document order. Returns the very same Buffer when nothing changed.
 */
export function rewriteTextParts(raw: Buffer, rewrite: TextRewriter): Buffer {
  return rewriteEntity(raw, rewrite, 0);
}
