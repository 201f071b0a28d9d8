// The side menu's cookie and its off-canvas drawer: what the console layout renders with on the server
// and wires in its one script; the collapsed state an island toggles is in src/stores/menu.ts.

/** Remembers the side menu expanded or collapsed, so the server renders the page the way it was left. */
export const MENU_COOKIE = 'transact_menu';

/** Bulma's $desktop: from here on the side menu is always shown and the burger is hidden. */
const DESKTOP = '(min-width: 1024px)';

/**
 * Below Bulma's desktop breakpoint the side menu is off-canvas behind the header's burger. Wires the
 * burger, Escape, the backdrop, the menu's links and the breakpoint to it. Never rendered open: every
 * page load, so every navigation, starts with it closed.
 */
export function bindMenuDrawer(): void {
  const burger = document.getElementById('menu-burger');
  const menu = document.getElementById('side-menu');
  if (!burger || !menu) return;
  let open = false;
  /** Opens or closes the drawer; closing moves focus back to the burger when asked. */
  const setOpen = (next: boolean, returnFocus = false) => {
    open = next;
    document.body.classList.toggle('menu-open', next);
    burger.setAttribute('aria-expanded', String(next));
    // the page behind the open menu takes neither focus nor clicks
    document.querySelector('.app-main')?.toggleAttribute('inert', next);
    if (next) menu.querySelector<HTMLElement>('a[href]:not([aria-disabled=true])')?.focus();
    else if (returnFocus) burger.focus();
  };
  burger.addEventListener('click', () => setOpen(!open, true));
  document.querySelector('.menu-backdrop')?.addEventListener('click', () => setOpen(false, true));
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && open) setOpen(false, true);
  });
  // a link leaves the page; closed at once so a page restored from the back-forward cache is too
  menu.addEventListener('click', (event) => {
    if (open && (event.target as Element).closest('a[href]')) setOpen(false);
  });
  window.addEventListener('pageshow', () => setOpen(false));
  window.matchMedia(DESKTOP).addEventListener('change', (query) => {
    if (query.matches && open) setOpen(false);
  });
}
