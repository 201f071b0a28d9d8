// The side menu's expanded/collapsed state, remembered in a cookie so the server renders the page
// the way it was left (no flash on load).
import { atom } from 'nanostores';

export const MENU_COOKIE = 'transact_menu';
export const menuCollapsed = atom<boolean>(false);

export function toggleMenu(): void {
  const collapsed = !menuCollapsed.get();
  menuCollapsed.set(collapsed);
  document.body.classList.toggle('menu-collapsed', collapsed);
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and older Safari
  document.cookie = `${MENU_COOKIE}=${collapsed ? 'collapsed' : 'expanded'}; Path=/; Max-Age=31536000; SameSite=Lax`;
}

/**
 * Below Bulma's desktop breakpoint the side menu is off-canvas behind the header's burger.
 * Never rendered open: every page load, so every navigation, starts with it closed.
 */
export const menuOpen = atom<boolean>(false);

/** Bulma's $desktop: from here on the side menu is always shown and the burger is hidden. */
const DESKTOP = '(min-width: 1024px)';

/** Opens or closes the off-canvas menu; closing moves focus back to the burger when asked. */
export function setMenuOpen(open: boolean, returnFocus = false): void {
  menuOpen.set(open);
  const burger = document.getElementById('menu-burger');
  const menu = document.getElementById('side-menu');
  document.body.classList.toggle('menu-open', open);
  burger?.setAttribute('aria-expanded', String(open));
  // the page behind the open menu takes neither focus nor clicks
  document.querySelector('.app-main')?.toggleAttribute('inert', open);
  if (open) menu?.querySelector<HTMLElement>('a[href]:not([aria-disabled=true])')?.focus();
  else if (returnFocus) burger?.focus();
}

/** Wires the burger, Escape, the backdrop, the menu's links and the breakpoint to setMenuOpen. */
export function bindMenuDrawer(): void {
  const burger = document.getElementById('menu-burger');
  const menu = document.getElementById('side-menu');
  if (!burger || !menu) return;
  burger.addEventListener('click', () => setMenuOpen(!menuOpen.get(), true));
  document.querySelector('.menu-backdrop')?.addEventListener('click', () => setMenuOpen(false, true));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && menuOpen.get()) setMenuOpen(false, true);
  });
  // a link leaves the page; closed at once so a page restored from the back-forward cache is too
  menu.addEventListener('click', (event) => {
    if (menuOpen.get() && (event.target as Element).closest('a[href]')) setMenuOpen(false);
  });
  window.addEventListener('pageshow', () => setMenuOpen(false));
  window.matchMedia(DESKTOP).addEventListener('change', (query) => {
    if (query.matches && menuOpen.get()) setMenuOpen(false);
  });
}
