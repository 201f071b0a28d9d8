// The `url` parameter of /login decides where a signed-in user lands (docs/console-reports.md §2, route guard:
// "redirect to /{url}"); it must never be able to send the browser to another site.
import { describe, expect, it } from 'vitest';
import { nextParam, safeNextPath } from '../../src/lib/next-path.ts';

/** The host a browser would go to if it followed `location` from our page. */
function hostReached(location: string): string {
  return new URL(location, 'https://transact.example/login').host;
}

describe('safeNextPath', () => {
  it.each([
    ['groups', '/groups'],
    ['/groups', '/groups'],
    ['groups/abc/overview', '/groups/abc/overview'],
    ['groups?page=2&sort=asc', '/groups?page=2&sort=asc'],
    ['settings#webhooks', '/settings#webhooks'],
    ['groups/abc/sent?page=3#top', '/groups/abc/sent?page=3#top'],
  ])('keeps the relative path %j as %j', (input, expected) => {
    expect(safeNextPath(input)).toBe(expected);
  });

  it.each([null, undefined, '', '   ', '/', '///'])('answers / for the empty value %j', (input) => {
    expect(safeNextPath(input)).toBe('/');
  });

  it.each([
    'https://evil.com',
    'http://evil.com/groups',
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    '/\\evil.com',
    '\\\\evil.com',
    'groups\u0000',
    'gro\tups',
    'groups\n//evil.com',
    'a\u007fb',
  ])('answers / for %j', (input) => {
    expect(safeNextPath(input)).toBe('/');
  });

  it.each([
    '//evil.com',
    '///evil.com',
    '..//evil.com',
    './/evil.com',
    '/.//evil.com',
    '%2e%2e//evil.com',
    'a/../..//evil.com',
    ' //evil.com',
    '/%2F%2Fevil.com',
  ])('never leaves the site for %j', (input) => {
    const location = safeNextPath(input);
    expect(location.startsWith('/')).toBe(true);
    expect(location.startsWith('//')).toBe(false);
    expect(hostReached(location)).toBe('transact.example');
  });

  it('refuses values longer than 2048 characters', () => {
    expect(safeNextPath(`groups/${'a'.repeat(2100)}`)).toBe('/');
  });
});

describe('nextParam', () => {
  it('is the path without its leading slash, with the query, and round-trips through safeNextPath', () => {
    expect(nextParam('/groups/abc/sent', '?page=2')).toBe('groups/abc/sent?page=2');
    expect(safeNextPath(nextParam('/groups/abc/sent', '?page=2'))).toBe('/groups/abc/sent?page=2');
  });
});
