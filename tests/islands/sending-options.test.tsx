// The Sending Options toggles of Settings (docs/console.md §2, §4): each is disabled while its save is in
// flight and flips only once the server accepted the change; a refused save leaves it as it was.
import { act, cleanup, render, screen } from '@testing-library/react';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, later, stubNetwork } from './network.ts';

const SETTINGS = { tsetting_track_opens: false, tsetting_track_links: true, tsetting_disable_suppression: false };
const LOADED = { settings: SETTINGS, credentials: { apiCredentials: {}, smtpCredentials: {}, isReseller: false } };

/** The island with fresh stores (they are module state, loaded once per page). */
async function renderSendingOptions() {
  vi.resetModules();
  const { default: SendingOptions } = await import('../../src/islands/SendingOptions.tsx');
  render(<SendingOptions />);
  return await screen.findByRole('switch', { name: 'Track Opens' }).then(() => ({
    opens: screen.getByRole<HTMLInputElement>('switch', { name: 'Track Opens' }),
    links: screen.getByRole<HTMLInputElement>('switch', { name: 'Track Link Clicks' }),
  }));
}

beforeEach(() => vi.unstubAllGlobals());
afterEach(cleanup);

describe('Sending Options', () => {
  it('shows the saved values once loaded, disabled until then', async () => {
    const answer = later();
    stubNetwork({ 'GET /v1/ui-settings': () => answer.promise });
    vi.resetModules();
    const { default: SendingOptions } = await import('../../src/islands/SendingOptions.tsx');
    render(<SendingOptions />);
    expect(screen.getByRole<HTMLInputElement>('switch', { name: 'Track Opens' }).disabled).toBe(true);
    await act(async () => answer.resolve(json(LOADED)));
    await vi.waitFor(() =>
      expect(screen.getByRole<HTMLInputElement>('switch', { name: 'Track Opens' }).disabled).toBe(false),
    );
    expect(screen.getByRole<HTMLInputElement>('switch', { name: 'Track Opens' }).checked).toBe(false);
    expect(screen.getByRole<HTMLInputElement>('switch', { name: 'Track Link Clicks' }).checked).toBe(true);
  });

  it('hydrates what the server rendered even when another island loaded the settings first (React #418)', async () => {
    stubNetwork({ 'GET /v1/ui-settings': () => json(LOADED) });
    vi.resetModules();
    const { default: SendingOptions } = await import('../../src/islands/SendingOptions.tsx');
    const { loadUiSettings } = await import('../../src/stores/ui-settings.ts');
    const container = document.createElement('div');
    container.innerHTML = renderToString(<SendingOptions />); // the server: still loading
    document.body.append(container);
    await loadUiSettings(); // the credentials islands on /settings hydrated first and loaded the shared store
    // React reports a text mismatch as a recoverable error, an attribute mismatch (an input's value) on the console
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const recoverable: unknown[] = [];
    await act(async () => {
      render(<SendingOptions />, { container, hydrate: true, onRecoverableError: (error) => recoverable.push(error) });
    });
    expect(recoverable).toEqual([]);
    expect(logged.mock.calls).toEqual([]);
    logged.mockRestore();
    // right after hydrating, the loaded values
    expect(screen.getByRole<HTMLInputElement>('switch', { name: 'Track Link Clicks' }).checked).toBe(true);
  });

  it('disables a toggle while its save is in flight and flips it only after the server accepted it', async () => {
    const save = later();
    const calls = stubNetwork({
      'GET /v1/ui-settings': () => json(LOADED),
      'POST /v1/ui-settings': () => save.promise,
    });
    const { opens, links } = await renderSendingOptions();
    await vi.waitFor(() => expect(opens.disabled).toBe(false));

    await act(async () => opens.click());
    expect(calls.filter((c) => c.method === 'POST')).toEqual([
      { method: 'POST', path: '/v1/ui-settings', body: { track_opens: true } },
    ]);
    expect(opens.disabled).toBe(true);
    expect(opens.checked).toBe(false); // not before the server said yes
    expect(links.disabled).toBe(false); // only the option being saved waits
    // a second click while saving sends nothing
    await act(async () => opens.click());
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);

    await act(async () => save.resolve(json({ settings: { ...SETTINGS, tsetting_track_opens: true } })));
    await vi.waitFor(() => expect(opens.disabled).toBe(false));
    expect(opens.checked).toBe(true);
  });

  it('leaves a toggle as it was when the save is refused', async () => {
    stubNetwork({
      'GET /v1/ui-settings': () => json(LOADED),
      'POST /v1/ui-settings': () => json({ error: { code: 'internal', message: 'Try again' } }, 500),
    });
    const { opens } = await renderSendingOptions();
    await vi.waitFor(() => expect(opens.disabled).toBe(false));
    await act(async () => opens.click());
    await vi.waitFor(() => expect(opens.disabled).toBe(false));
    expect(opens.checked).toBe(false);
  });
});
