import { useStore } from '@nanostores/react';
import { useEffect } from 'react';
import { menuCollapsed, toggleMenu } from './stores/menu.ts';

/** The expand/collapse control of the side menu; the server renders the remembered state. */
export default function SideMenuToggle({ initiallyCollapsed }: { initiallyCollapsed: boolean }) {
  useEffect(() => menuCollapsed.set(initiallyCollapsed), [initiallyCollapsed]);
  const $collapsed = useStore(menuCollapsed);
  return (
    <button
      type="button"
      className="button is-small is-white side-toggle"
      aria-expanded={!$collapsed}
      aria-label={$collapsed ? 'Expand menu' : 'Collapse menu'}
      onClick={toggleMenu}
      data-testid="menu-toggle"
    >
      {$collapsed ? '»' : '«'}
    </button>
  );
}
