import { useStore } from '@nanostores/react';
import { useEffect, useState } from 'react';
import { menuCollapsed, toggleMenu } from '../stores/menu.ts';

/**
 * The expand/collapse control of the side menu; the server renders the remembered state. Until the
 * store is synced on the client the prop is shown, since the store module is shared by every request
 * on the server and cannot hold one user's state.
 */
export default function SideMenuToggle({ initiallyCollapsed }: { initiallyCollapsed: boolean }) {
  const [synced, setSynced] = useState(false);
  useEffect(() => {
    menuCollapsed.set(initiallyCollapsed);
    setSynced(true);
  }, [initiallyCollapsed]);
  const $collapsed = useStore(menuCollapsed);
  const collapsed = synced ? $collapsed : initiallyCollapsed;
  return (
    <button
      type="button"
      className="button is-small is-white side-toggle"
      aria-expanded={!collapsed}
      aria-label={collapsed ? 'Expand menu' : 'Collapse menu'}
      onClick={toggleMenu}
      data-testid="menu-toggle"
    >
      {collapsed ? '»' : '«'}
    </button>
  );
}
