// The `url` query parameter of /login names where to go after sign-in (docs/console-reports.md §2, route guard:
// "redirect to /{url}"). Only a path on this site is accepted, so it can never send a user away.

/** '/'+url when url is a plain relative path on this site, else '/'. */
export function safeNextPath(url: string | null | undefined): string {
  if (!url) return '/';
  const trimmed = url.trim().replace(/^\/+/, '');
  if (trimmed === '' || trimmed.length > 2048) return '/';
  // no scheme, no protocol-relative or backslash tricks, no control characters
  if (/[\\\u0000-\u001f\u007f]/.test(trimmed) || /^[a-z][a-z0-9+.-]*:/i.test(trimmed)) return '/';
  const resolved = new URL(`/${trimmed}`, 'http://transact.invalid');
  // dot segments can resolve to '//host' ('..//evil.com'), which a browser reads as another site
  if (resolved.host !== 'transact.invalid' || resolved.pathname.startsWith('//')) return '/';
  return `${resolved.pathname}${resolved.search}${resolved.hash}`;
}

/** The `url` value the guard puts on /login for a page: its path without the leading slash. */
export function nextParam(pathname: string, search = ''): string {
  return `${pathname.replace(/^\/+/, '')}${search}`;
}
