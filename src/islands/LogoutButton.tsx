import { type ReactNode, useState } from 'react';
import { call } from '../lib/api.ts';

/** Logout (docs/console.md §2): calls the logout endpoint, then sends the browser to the parent platform. */
export default function LogoutButton({ label = 'Logout', children }: { label?: string; children?: ReactNode }) {
  const [busy, setBusy] = useState(false);
  async function logout() {
    setBusy(true);
    try {
      const { redirect } = await call('POST /v1/logout', { body: {} });
      window.location.assign(redirect || '/login');
    } catch {
      window.location.assign('/login');
    }
  }
  return (
    <a
      href="/login"
      className="menu-link"
      title={label}
      data-testid="logout"
      aria-disabled={busy}
      onClick={(e) => {
        e.preventDefault();
        if (!busy) void logout();
      }}
    >
      {children}
      <span className="menu-label">{label}</span>
    </a>
  );
}
