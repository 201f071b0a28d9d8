// Whether a download link can still be used: one rule for the public page (which refuses
// a dead link with 410), the API (which sends the state with each link) and the console (which
// shows it), so the list never calls live a link its recipients cannot use. Also how a console
// page reads a link's id from its path.
import { formatLongDate } from './dates.ts';

export type LinkState = 'live' | 'expired' | 'exhausted';

export interface LinkFacts {
  /** unix seconds, or null: never expires */
  expiry: number | null;
  /** 0: no limit */
  accessLimit: number;
  downloads: number;
}

/** Expired wins over exhausted: an expired link's limit no longer matters. */
export function linkState(link: LinkFacts, nowSeconds: number): LinkState {
  if (link.expiry !== null && link.expiry <= nowSeconds) return 'expired';
  if (link.accessLimit > 0 && link.downloads >= link.accessLimit) return 'exhausted';
  return 'live';
}

/** '0 of 2 left', or 'No limit'. */
export function downloadsLeft(link: Pick<LinkFacts, 'accessLimit' | 'downloads'>): string {
  if (link.accessLimit <= 0) return 'No limit';
  return `${Math.max(0, link.accessLimit - link.downloads)} of ${link.accessLimit} left`;
}

/** What a dead link says in the console: 'Download limit reached', 'Expired on 3 March 2026'; null when live. */
export function stateLabel(state: LinkState, expiry: number | null): string | null {
  if (state === 'exhausted') return 'Download limit reached';
  if (state === 'expired') return expiry ? `Expired on ${formatLongDate(expiry)}` : 'Expired';
  return null;
}

/** What the public page says instead of the files of a dead link; the console's preview says the same. */
export const DEAD_LINK_NOTICES: Record<Exclude<LinkState, 'live'>, { heading: string; text: string }> = {
  expired: {
    heading: 'This link has expired',
    text: 'The files of this link can no longer be downloaded. Ask the sender for a new link.',
  },
  exhausted: {
    heading: 'Download limit reached',
    text: 'This link has been downloaded as many times as its sender allowed. Ask the sender for a new link.',
  },
};

/** A link's id from its page's path segment; 0 (no such link: the page says so) when it is not a number. */
export function linkIdOf(segment: string | undefined): number {
  const raw = segment ?? '';
  return /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
}

/** The name a link gets when none is given (the editor's and the API's default). */
export const DEFAULT_LINK_NAME = 'Untitled';

/**
 * The name a link's download page shows under its heading 'Online Attachments' (docs/console-reports.md
 * §2, the preview's title), in the editor's preview and on the page itself; null for the default name.
 */
export function shownLinkName(name: string | null | undefined): string | null {
  const own = name?.trim() ?? '';
  return own === '' || own === DEFAULT_LINK_NAME ? null : own;
}
