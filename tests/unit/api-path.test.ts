// Islands' calls go to the site root whatever the page's address (from /groups/ or
// /domains/5 a relative 'v1/x' resolved inside the page's folder).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { absolutePath, api, call, callWithStatus, pathOf } from '../../src/lib/api.ts';

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

describe('the typed client', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('fills path parameters, each encoded, and refuses a call missing one', () => {
    expect(pathOf('/v1/suppression/{email}', { email: 'a/b@example.com' })).toBe('/v1/suppression/a%2Fb%40example.com');
    expect(pathOf('/v1/tracked-attachments/groups/{id}/assets/{assetId}', { id: 4, assetId: '7' })).toBe(
      '/v1/tracked-attachments/groups/4/assets/7',
    );
    expect(() => pathOf('/v1/templates/{id}', {})).toThrow('no value for {id}');
  });

  it("sends the call's method, path, query and JSON body, and answers the JSON", async () => {
    const requested: { url: string; method?: string; body?: unknown }[] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init: RequestInit = {}) => {
      requested.push({ url: String(input), method: init.method, body: init.body });
      return new Response(
        '{"data":[],"meta":{"current_page":1,"per_page":10,"total":0,"last_page":1,"total_capped":false}}',
        { headers: { 'Content-Type': 'application/json' } },
      );
    });
    const answer = await call('POST /v1/transaction/search', { body: { page: 2 } });
    expect(answer.meta.current_page).toBe(1);
    await call('DELETE /v1/templates/{id}', { params: { id: 'x y' } });
    await call('GET /v1/dashboard', { query: { startDate: '2026-11-01' } });
    expect(requested.map(({ url, method, body }) => [url, method, body])).toEqual([
      ['/v1/transaction/search', 'POST', '{"page":2}'],
      ['/v1/templates/x%20y', 'DELETE', undefined],
      ['/v1/dashboard?startDate=2026-11-01', 'GET', undefined],
    ]);
  });

  it('callWithStatus answers the success status beside the JSON (none for a 204) and throws a refusal', async () => {
    const answers = [
      new Response('{"fileName":"a.csv","token":null,"state":"queued"}', {
        status: 202,
        headers: { 'Content-Type': 'application/json' },
      }),
      new Response(null, { status: 204 }),
      new Response('{"error":{"code":"precondition_failed","message":"no"}}', {
        status: 412,
        headers: { 'Content-Type': 'application/json' },
      }),
    ];
    const requested: [string, string | undefined, unknown][] = [];
    vi.stubGlobal('fetch', async (input: RequestInfo | URL, init: RequestInit = {}) => {
      requested.push([String(input), init.method, init.body]);
      return answers.shift()!;
    });
    const view = 'POST /v1/transaction-groups/export-view';
    expect(await callWithStatus(view, { body: { uuid: 'u' } })).toEqual({
      status: 202,
      data: { fileName: 'a.csv', token: null, state: 'queued' },
    });
    expect(await callWithStatus(view, { body: { uuid: 'u' } })).toEqual({ status: 204, data: undefined });
    await expect(callWithStatus(view, { body: { uuid: 'u' } })).rejects.toMatchObject({ status: 412 });
    expect(requested).toEqual(Array(3).fill(['/v1/transaction-groups/export-view', 'POST', '{"uuid":"u"}']));
  });
});
