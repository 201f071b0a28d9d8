// Islands' calls go to the site root whatever the page's address (issue 11: from /groups/ or
// /domains/5 a relative 'v1/x' resolved inside the page's folder).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { absolutePath, api } from '../../src/lib/api.ts';

describe('absolutePath', () => {
  it.each([
    ['v1/dashboard', '/v1/dashboard'],
    ['/v1/dashboard', '/v1/dashboard'],
    ['v1/suppression/a%40b.example', '/v1/suppression/a%40b.example'],
    ['https://example.com/v1/x', 'https://example.com/v1/x'],
  ])('%s → %s', (given, expected) => {
    expect(absolutePath(given)).toBe(expected);
  });
});

describe('the api client', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('requests an absolute path even when a call site gives a relative one', async () => {
    const requested: string[] = [];
    // the browser's fetch, recording what the client asks for
    vi.stubGlobal('fetch', async (input: RequestInfo | URL) => {
      requested.push(String(input));
      return new Response('{"ok":true}', { headers: { 'Content-Type': 'application/json' } });
    });
    await api('v1/dashboard', { query: { startDate: 1 } });
    await api('/v1/ui-settings');
    expect(requested).toEqual(['/v1/dashboard?startDate=1', '/v1/ui-settings']);
  });
});
