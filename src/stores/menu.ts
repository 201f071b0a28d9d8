// The side menu's expanded/collapsed state, remembered in a cookie (MENU_COOKIE) so the server renders
// the page the way it was left (no flash on load).
import { atom } from 'nanostores';
import { MENU_COOKIE } from '../lib/menu-drawer.ts';

export const menuCollapsed = atom<boolean>(false);

export function toggleMenu(): void {
  const collapsed = !menuCollapsed.get();
  menuCollapsed.set(collapsed);
  document.body.classList.toggle('menu-collapsed', collapsed);
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and older Safari
  document.cookie = `${MENU_COOKIE}=${collapsed ? 'collapsed' : 'expanded'}; Path=/; Max-Age=31536000; SameSite=Lax`;
}
