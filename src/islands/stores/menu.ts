// The side menu's expanded/collapsed state, remembered in a cookie so the server renders the page
// the way it was left (no flash on load).
import { atom } from 'nanostores';

export const MENU_COOKIE = 'transact_menu';
export const menuCollapsed = atom<boolean>(false);

export function toggleMenu(): void {
  const collapsed = !menuCollapsed.get();
  menuCollapsed.set(collapsed);
  document.body.classList.toggle('menu-collapsed', collapsed);
  document.cookie = `${MENU_COOKIE}=${collapsed ? 'collapsed' : 'expanded'}; Path=/; Max-Age=31536000; SameSite=Lax`;
}
