// The domain modal of the getting-started page (docs/console.md §2, §4, §5): 'Please enter a valid domain
// name' for an invalid domain, the verification address's field once a domain is typed, Send
// disabled while the domain is invalid, the local part empty or the request in flight; on success
// the message, then the modal closes after 3 s; an error clears after 5 s (fake timers, no sleeps).
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, later, stubNetwork, until } from './network.ts';

const GET_STARTED = {
  domains: [],
  apiCredentials: { username: 'acct', apiKey: 'key', url: 'http://console.test/v1' },
  smtpCredentials: { host: 'smtp.console.test', port: 2525, username: 'acct', password: 'secret' },
  isReseller: false,
};

const send = () => screen.getByRole<HTMLButtonElement>('button', { name: 'Send Verification Email' });
const domainField = () => screen.getByLabelText<HTMLInputElement>('Domain');
const type = (field: HTMLInputElement, text: string) =>
  act(async () => void fireEvent.change(field, { target: { value: text } }));

/** The getting-started island, loaded, with the modal open. */
async function openModal() {
  vi.resetModules();
  const { default: GettingStarted } = await import('../../src/islands/GettingStarted.tsx');
  render(<GettingStarted docsUrl={null} />);
  const add = await screen.findByRole('button', { name: 'Add Domain' });
  await act(async () => add.click());
  expect(screen.getByRole('dialog', { name: 'Verify and Authenticate your Domain' })).toBeTruthy();
}

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('Domain modal', () => {
  it(
    'says an invalid domain is invalid, asks for the address once a domain is typed, and enables Send only when ' +
      'both are valid',
    async () => {
      stubNetwork({ 'GET /v1/get-started': () => json(GET_STARTED) });
      await openModal();
      expect(screen.queryByLabelText('Verification email')).toBeNull();
      expect(send().disabled).toBe(true);

      await type(domainField(), 'not a domain');
      expect(screen.getByTestId('domain-invalid').textContent).toBe('Please enter a valid domain name');
      expect(screen.getByLabelText('Verification email')).toBeTruthy();
      await type(screen.getByLabelText<HTMLInputElement>('Verification email'), 'postmaster');
      expect(send().disabled).toBe(true);

      await type(domainField(), 'shop.example');
      expect(screen.queryByTestId('domain-invalid')).toBeNull();
      expect(screen.getByTestId('domain-suffix').textContent).toBe('@shop.example');
      expect(send().disabled).toBe(false);

      await type(screen.getByLabelText<HTMLInputElement>('Verification email'), '  ');
      expect(send().disabled).toBe(true);
      await type(domainField(), '');
      expect(screen.queryByLabelText('Verification email')).toBeNull();
    },
  );

  it('disables Send while the request is in flight, shows the success and closes 3 s later', async () => {
    const created = later();
    const calls = stubNetwork({
      'GET /v1/get-started': () => json(GET_STARTED),
      'POST /v1/domains': () => created.promise,
    });
    await openModal();
    await type(domainField(), 'shop.example');
    await type(screen.getByLabelText<HTMLInputElement>('Verification email'), 'postmaster');

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await act(async () => send().click());
    expect(send().disabled).toBe(true);
    expect(calls.find((c) => c.method === 'POST')).toEqual({
      method: 'POST',
      path: '/v1/domains',
      body: { domain_url: 'shop.example', domain_verification_email: 'postmaster@shop.example' },
    });

    created.resolve(json({ messages: ['Domain Created'] }));
    expect((await until(() => screen.queryByTestId('domain-success'))).textContent).toContain('Domain Created');
    await act(() => vi.advanceTimersByTimeAsync(2_999));
    expect(screen.queryByRole('dialog')).not.toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it("shows the server's error and clears it 5 s later, the modal staying open", async () => {
    stubNetwork({
      'GET /v1/get-started': () => json(GET_STARTED),
      'POST /v1/domains': () => json({ messages: ['Domain already exists'] }, 422),
    });
    await openModal();
    await type(domainField(), 'shop.example');
    await type(screen.getByLabelText<HTMLInputElement>('Verification email'), 'postmaster');

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await act(async () => send().click());
    expect((await until(() => screen.queryByTestId('domain-error'))).textContent).toBe('Domain already exists');
    expect(send().disabled).toBe(false);
    await act(() => vi.advanceTimersByTimeAsync(4_999));
    expect(screen.queryByTestId('domain-error')).not.toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(screen.queryByTestId('domain-error')).toBeNull();
    expect(screen.queryByRole('dialog')).not.toBeNull();
  });
});
