// The recipients' download page /a/{public id} (ours to design): the customer's logo and
// colours, the link's title, 'Expiry date: …' when set, and each file with its size and a Download
// button. Every button is a form POST (a link scanner's GET only sees the page), so the page ships
// no script at all. Escaped by hand: it is the only HTML the API renders.
import type { BrandingSettings } from '../db/schema.ts';
import { formatLongDate } from '../../lib/dates.ts';
import { formatFileSize } from '../../lib/file-size.ts';
import { shownLinkName } from '../../lib/attachment-state.ts';

export interface PublicPageView {
  /** The link's name: shown under the heading unless it is the default (shownLinkName). */
  title: string;
  /** Who shares the link (the account's name), under the heading. */
  sender: string | null;
  branding: BrandingSettings;
  logoUrl: string | null;
  expiry: number | null;
  files: { id: number; name: string; size: number }[];
  actionBase: string;
  recipient: string | null;
  /** When set, the page says this instead of listing files (expired, limit reached, not found). */
  notice?: { heading: string; text: string };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const hex = (s: string) => (/^#[0-9a-fA-F]{6}$/.test(s) ? s : '#333333');

export function renderPublicPage(view: PublicPageView): string {
  const b = view.branding;
  const css =
    `body{margin:0;font-family:system-ui,-apple-system,"Segoe ` +
    `UI",Roboto,sans-serif;background:${hex(b.page.colour)};color:${hex(b.page.text_colour)}}
main{max-width:40rem;margin:0 auto;padding:2rem 1rem}
.logo{max-height:64px;max-width:240px;display:block;margin:0 auto 1.5rem}
h1{font-size:1.6rem;margin:0 0 .25rem;text-align:center}
.expiry{text-align:center;margin:0 0 1.5rem}
.link-name,.sender{text-align:center;margin:0 0 .5rem}
.sender{opacity:.85;font-size:.95rem}
ul{list-style:none;margin:0;padding:0}
li{display:flex;align-items:center;gap:1rem;padding:.75rem 1rem;margin:0 0 ` +
    `.5rem;border-radius:6px;background:${hex(b.link.colour)};color:${hex(b.link.text_colour)};border:1px solid ` +
    `rgba(0,0,0,.12)}
.name{flex:1;min-width:0;overflow-wrap:anywhere}
.size{display:block;font-size:.875rem;opacity:.85}
button{font:inherit;font-weight:600;cursor:pointer;border:0;border-radius:4px;padding:.5rem ` +
    `1rem;background:${hex(b.button.colour)};color:${hex(b.button.text_colour)}}
button:focus-visible{outline:3px solid ${hex(b.page.text_colour)};outline-offset:2px}
form{margin:0}
.notice{padding:1rem;border-radius:6px;background:${hex(b.link.colour)};color:${hex(b.link.text_colour)};border:1px ` +
    `solid rgba(0,0,0,.12);text-align:center}`;
  const logo = view.logoUrl ? `<img class="logo" src="${escapeHtml(view.logoUrl)}" alt="Logo">` : '';
  const expiry = view.expiry
    ? `<p class="expiry" data-testid="expiry">Expiry date: ${escapeHtml(formatLongDate(view.expiry))}</p>`
    : '';
  const hidden = view.recipient ? `<input type="hidden" name="r" value="${escapeHtml(view.recipient)}">` : '';
  // a dead link's page keeps the customer's logo and colours: the notice sits in a box in
  // the link colours, under the link's name, so the recipient sees whose link it was
  // the heading the editor's preview shows, the link's own name and who shares it under it
  const name = shownLinkName(view.title);
  const title = view.notice?.heading ?? name ?? 'Online Attachments';
  const byline =
    (name ? `<p class="link-name" data-testid="link-name">${escapeHtml(name)}</p>` : '') +
    (view.sender ? `<p class="sender" data-testid="sender">Shared by ${escapeHtml(view.sender)}</p>` : '');
  const body = view.notice
    ? `<h1>${escapeHtml(view.notice.heading)}</h1>${byline}<p class="notice" data-testid="notice">${escapeHtml(
        view.notice.text,
      )}</p>`
    : `<h1>Online Attachments</h1>${byline}${expiry}<ul aria-label="Files">${view.files
        .map(
          (f) =>
            `<li><span class="name">${escapeHtml(f.name)}<span ` +
            `class="size">${escapeHtml(formatFileSize(f.size))}</span></span>` +
            `<form method="post" action="${escapeHtml(`${view.actionBase}/files/${f.id}`)}">${hidden}<button ` +
            `type="submit" aria-label="Download ${escapeHtml(f.name)}">Download</button></form></li>`,
        )
        .join('')}</ul>`;
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" ` +
    `content="width=device-width, initial-scale=1"><meta name="robots" ` +
    `content="noindex"><title>${escapeHtml(title)}</title>` +
    `<link rel="icon" href="/favicon.svg" type="image/svg+xml"><style>${css}</style></head>` +
    `<body><main>${logo}${body}</main></body></html>`
  );
}
