// Open and click tracking rewrites a message's content: http(s) links become tracking links
// that carry only a token (docs/architecture.md §4.1 `links`: never the destination, so no open redirect), and an
// HTML part gets a 1×1 pixel. Pure string work, in the message layer (docs/architecture.md §3.2) so its
// rules have table-driven tests; the stateful part (link tokens, their rows) stays in tracking.service.ts.

/** What the rewriters need to know; `track` maps a destination to its tracking link. */
export interface RewriteOptions {
  /** PUBLIC_URL (no trailing slash): its unsubscribe and tracking links are never rewritten. */
  publicUrl: string;
  /** The tracking link for a destination URL; absent when only `+notrack` markers are resolved. */
  track?: (url: string) => string;
}

/** How one link is treated: tracked (with its decoded destination), opted out, or left alone. */
export type LinkDecision = { kind: 'track'; url: string } | { kind: 'notrack'; url: string } | { kind: 'keep' };

// Postal's convention for opting a single link out: `https+notrack://…` is sent as `https://…`.
const NOTRACK = /^(https?)\+notrack:\/\//i;
const HTTP = /^https?:\/\//i;
// Paths of our own that must reach the recipient untouched: unsubscribe pages (RFC 8058 one-click
// links are POSTed to by the mailbox provider; a redirect in between would break them) and links
// that already are tracking links.
const OWN_PATHS = ['/unsubscribe/', '/header-unsubscribe/', '/t/'];

/** Decides what to do with a link's destination (already entity-decoded). */
export function classifyLink(href: string, publicUrl: string): LinkDecision {
  // the URL parser drops tabs and newlines and trims spaces (WHATWG URL §4.4), so do the same
  const url = href.replace(/[\t\n\r]/g, '').trim();
  const notrack = NOTRACK.exec(url);
  if (notrack) return { kind: 'notrack', url: `${notrack[1]}://${url.slice(notrack[0].length)}` };
  if (!HTTP.test(url)) return { kind: 'keep' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { kind: 'keep' }; // a broken link stays as broken as it was, not a redirect to nowhere
  }
  const base = new URL(publicUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  if (parsed.origin === base.origin && OWN_PATHS.some((p) => parsed.pathname.toLowerCase().startsWith(basePath + p)))
    return { kind: 'keep' };
  return { kind: 'track', url };
}

// Character references in attribute values (HTML §13.2.5.72): numeric ones always; the few named
// ones a URL uses. A legacy reference without ';' is decoded only when no letter, digit or '=' follows
// (HTML's rule for attributes, which is why `?a=1&copy=2` keeps its `&copy`).
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const LEGACY = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp']);

/** Decodes the character references of an HTML attribute value. */
export function decodeAttribute(value: string): string {
  return value.replace(
    /&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([a-zA-Z]+))(;?)/g,
    (
      whole,
      dec: string | undefined,
      hex: string | undefined,
      name: string | undefined,
      semi: string,
      offset: number,
      all: string,
    ) => {
      if (dec !== undefined || hex !== undefined) {
        const code = dec !== undefined ? Number(dec) : parseInt(hex!, 16);
        return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff)
          ? String.fromCodePoint(code)
          : '\ufffd';
      }
      const lower = name!;
      if (!(lower in NAMED)) return whole;
      if (semi) return NAMED[lower];
      const next = all[offset + whole.length] ?? '';
      return LEGACY.has(lower) && !/[A-Za-z0-9=]/.test(next) ? NAMED[lower] : whole;
    },
  );
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// The start of a tag of an element whose href is followed when clicked (HTML §4.6.1: a and area).
// <link href> and <base href> are not links a reader clicks.
const LINK_TAG_START = /<(a|area)(?=[\s/>])/gi;
// longer "tags" are broken markup; the cap keeps a pathological message linear to scan
const MAX_TAG_CHARS = 65_536;

/** Where the tag whose attributes start at `from` ends ('>' outside quotes), or how far to skip. */
function tagEnd(html: string, from: number): { end: number } | { skipTo: number } {
  const limit = Math.min(html.length, from + MAX_TAG_CHARS);
  let quote = '';
  for (let i = from; i < limit; i++) {
    const ch = html[i];
    if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '>') return { end: i };
  }
  return { skipTo: limit };
}
// one attribute (name, optional = value in any of the three syntaxes), or the space between them
const ATTRIBUTE = /([^\s"'>/=]+)(?:(\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?|[\s/]+/gy;

function rewriteAttributes(attributes: string, opts: RewriteOptions): string {
  let out = '';
  let pos = 0;
  let seenHref = false;
  while (pos < attributes.length) {
    ATTRIBUTE.lastIndex = pos;
    const m = ATTRIBUTE.exec(attributes);
    if (!m) break; // something unparseable (a stray quote): the rest is kept as written
    pos = ATTRIBUTE.lastIndex;
    const [whole, name, equals, dq, sq, bare] = m;
    const value = dq ?? sq ?? bare;
    // only the first href counts (HTML §13.2.5.33: a duplicate attribute is dropped)
    if (name?.toLowerCase() !== 'href' || value === undefined || seenHref) {
      if (name?.toLowerCase() === 'href') seenHref = true;
      out += whole;
      continue;
    }
    seenHref = true;
    const decision = classifyLink(decodeAttribute(value), opts.publicUrl);
    const target =
      decision.kind === 'notrack'
        ? decision.url
        : decision.kind === 'track' && opts.track
          ? opts.track(decision.url)
          : null;
    out += target === null ? whole : `${name}${equals}"${escapeAttribute(target)}"`;
  }
  return out + attributes.slice(pos);
}

/** Rewrites the http(s) hrefs of <a> and <area> tags to tracking links and resolves `+notrack`. */
export function rewriteHtmlLinks(html: string, opts: RewriteOptions): string {
  let out = '';
  let copied = 0;
  LINK_TAG_START.lastIndex = 0;
  for (let m = LINK_TAG_START.exec(html); m; m = LINK_TAG_START.exec(html)) {
    const from = m.index + m[0].length;
    const found = tagEnd(html, from);
    if ('skipTo' in found) {
      LINK_TAG_START.lastIndex = found.skipTo; // an unclosed tag: left as written
      continue;
    }
    out += html.slice(copied, from) + rewriteAttributes(html.slice(from, found.end), opts);
    copied = found.end;
    LINK_TAG_START.lastIndex = found.end;
  }
  return out + html.slice(copied);
}

// A URL in plain text: from the scheme to the first space, angle bracket or quote (the delimiters of
// RFC 3986 Appendix C); punctuation that ends a sentence is trimmed off below.
const TEXT_URL = /(?<![\w+.-])https?(?:\+notrack)?:\/\/[^\s<>"]+/gi;
const TRAILING = /[.,;:!?'*]+$/;

function trimTrailing(url: string): string {
  let u = url;
  for (;;) {
    const before = u;
    u = u.replace(TRAILING, '');
    // a closing bracket is part of the URL only when it closes one opened inside it (Wikipedia links)
    for (const [open, close] of [
      ['(', ')'],
      ['[', ']'],
    ] as const) {
      if (u.endsWith(close) && u.split(close).length > u.split(open).length) u = u.slice(0, -1);
    }
    if (u === before) return u;
  }
}

/** Rewrites the http(s) URLs of a text part to tracking links and resolves `+notrack`. */
export function rewriteTextLinks(text: string, opts: RewriteOptions): string {
  return text.replace(TEXT_URL, (match: string) => {
    const url = trimTrailing(match);
    const rest = match.slice(url.length);
    const decision = classifyLink(url, opts.publicUrl);
    if (decision.kind === 'notrack') return decision.url + rest;
    if (decision.kind === 'track' && opts.track) return opts.track(decision.url) + rest;
    return match;
  });
}

/** The open-tracking pixel: a 1×1 transparent GIF, kept out of the layout. */
export function pixelTag(pixelUrl: string): string {
  return (
    `<img src="${escapeAttribute(pixelUrl)}" width="1" height="1" alt="" ` +
    `style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`
  );
}

/** Inserts the pixel before the last </body>, or appends it when there is none. */
export function insertOpenPixel(html: string, pixelUrl: string): string {
  const tag = pixelTag(pixelUrl);
  let at = -1;
  for (const m of html.matchAll(/<\/body\s*>/gi)) at = m.index;
  return at < 0 ? html + tag : html.slice(0, at) + tag + html.slice(at);
}

/** Whether the content holds a `+notrack` marker that must be resolved even with tracking off. */
export function hasNotrackMarker(content: string): boolean {
  return /https?\+notrack:/i.test(content);
}
