// The HTML part of a received message made safe to show in the console (docs/console.md §2 "Inbound"):
// mail from strangers may carry scripts, handlers, forms, frames and remote images (tracking pixels
// that tell the sender the message was read). sanitize-html keeps the tags and attributes mail layout
// uses and drops the rest; remote images are dropped and counted. The console shows the result in a
// sandboxed frame whose CSP forbids scripts and every remote load as well, so neither line alone holds.

const LAYOUT_ATTRIBUTES = [
  'style',
  'class',
  'id',
  'align',
  'valign',
  'width',
  'height',
  'bgcolor',
  'color',
  'dir',
  'lang',
  'title',
  'border',
  'cellpadding',
  'cellspacing',
  'colspan',
  'rowspan',
];

/** A reference that leaves the message: an absolute or protocol-relative URL (not data: or cid:). */
const REMOTE = /^\s*(?:[a-z][a-z0-9+.-]*:)?\/\//i;
/** CSS `url(…)` naming a remote resource (a background image, a web font). */
const REMOTE_CSS_URL = /url\(\s*(['"]?)\s*(?:[a-z][a-z0-9+.-]*:)?\/\/[^)]*\)/gi;

export interface SanitizedHtml {
  html: string;
  /** How many remote references (images, url()s in style attributes) were dropped. */
  remoteBlocked: number;
}

/** `html` with only layout left: no script, handler, form, frame, base, meta, remote image or style url(). */
export async function sanitizeReceivedHtml(html: string): Promise<SanitizedHtml> {
  // loaded on the first received message shown: a process that shows none never reads it
  const { default: sanitizeHtml } = await import('sanitize-html');
  let remoteBlocked = 0;
  const css = (text: string) =>
    text.replace(REMOTE_CSS_URL, () => {
      remoteBlocked++;
      return 'none';
    });
  const clean = sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'style', 'font', 'center', 'big'],
    // a <style> element is kept for layout, as written: inside the sandboxed, script-less frame it can only
    // style, and the frame's CSP refuses what it would load (an @import, a remote url())
    allowVulnerableTags: true,
    allowedAttributes: {
      '*': LAYOUT_ATTRIBUTES,
      a: ['href', 'name', 'target', 'rel'],
      img: ['src', 'alt', 'width', 'height'],
      font: ['face', 'size', 'color'],
    },
    allowedSchemes: ['http', 'https', 'mailto', 'tel'],
    // images only from the message itself; a cid: reference shows its alt text
    allowedSchemesByTag: { img: ['data', 'cid'] },
    allowProtocolRelative: false,
    transformTags: {
      // links open outside the console, never inside the frame, and tell the site nothing
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer' } }),
      img: (tagName, attribs) => {
        if (attribs.src !== undefined && REMOTE.test(attribs.src)) {
          remoteBlocked++;
          const { src: _src, ...rest } = attribs;
          return { tagName, attribs: rest };
        }
        return { tagName, attribs };
      },
      '*': (tagName, attribs) =>
        attribs.style === undefined
          ? { tagName, attribs }
          : { tagName, attribs: { ...attribs, style: css(attribs.style) } },
    },
  });
  return { html: clean, remoteBlocked };
}
