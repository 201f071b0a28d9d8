// Settings' API Keys card (docs/console.md §2 Settings): the list with each key's permission and
// domain; Create sends the name, permission and domain and shows the token once (gone when the modal
// closes, never in the list); Delete asks first and sends nothing when canceled.
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Call, json, stubNetwork, until } from './network.ts';

const KEY = {
  id: 'b6d24b8e-af0b-4c3c-be0c-359bbd97381e',
  name: 'Production',
  permission: 'sending_access',
  domain_id: 7,
  domain: 'shop.example',
  token_prefix: 'tsn_8Yq1bV',
  created_at: '2026-11-27T09:30:00.000Z',
  last_used_at: null,
};
const TOKEN = 'tsn_8Yq1bV3kq0a6s3H2rXJ0mB0pD4cW8fS1tN7uK2eL9gA';
const DOMAINS = [
  { domain_id: 7, domain_domain: 'shop.example', domain_sending_verified: 'yes' },
  { domain_id: 8, domain_domain: 'news.example', domain_sending_verified: 'no' },
];

const click = (element: HTMLElement) => act(async () => element.click());
const change = (field: HTMLElement, value: string) =>
  act(async () => void fireEvent.change(field, { target: { value } }));

/** The card with fresh stores; the list holds `keys` until a create adds KEY. */
async function renderCard(keys: object[]): Promise<Call[]> {
  let list = keys;
  const calls = stubNetwork({
    'GET /v1/api-keys': () => json({ data: list }),
    'GET /v1/domains': () => json({ domains: DOMAINS }),
    'POST /v1/api-keys': () => {
      list = [KEY, ...list];
      return json({ id: KEY.id, token: TOKEN }, 201);
    },
    'DELETE /v1/api-keys/b6d24b8e-af0b-4c3c-be0c-359bbd97381e': () => {
      list = list.filter((k) => k !== KEY);
      return json({ object: 'api_key', id: KEY.id, deleted: true });
    },
  });
  vi.resetModules();
  const { default: SettingsApiKeys } = await import('../../src/islands/SettingsApiKeys.tsx');
  await import('../../src/components/ApiKeyModal.tsx');
  render(<SettingsApiKeys />);
  return calls;
}

const rows = () => screen.queryAllByTestId('api-key-row');

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('API Keys card', () => {
  it('lists each key with its permission and domain, and says so when there is none', async () => {
    await renderCard([KEY, { ...KEY, id: 'other', name: 'CI', permission: 'full_access', domain_id: null }]);
    await until(() => rows().length === 2);
    expect(rows().map((r) => within(r).getByTestId('api-key-permission').textContent)).toEqual([
      'Sending access (shop.example)',
      'Full access',
    ]);
    expect(rows()[0].textContent).toContain('tsn_8Yq1bV…');
    cleanup();
    await renderCard([]);
    await until(() => screen.queryByText('No API keys yet.'));
  });

  it('creates a sending access key for a domain and shows its token once', async () => {
    const calls = await renderCard([]);
    await until(() => screen.queryByText('No API keys yet.'));
    await click(screen.getByTestId('api-key-create'));
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });
    await change(within(dialog).getByLabelText('Name'), ' Production ');
    await change(within(dialog).getByLabelText('Permission'), 'sending_access');
    await until(() => within(dialog).queryByRole('option', { name: 'news.example (not verified)' }));
    await change(within(dialog).getByLabelText('Domain'), '7');
    await click(within(dialog).getByTestId('api-key-submit'));

    await until(() => screen.queryByRole('dialog', { name: 'API key created' }));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      name: 'Production',
      permission: 'sending_access',
      domain_id: 7,
    });
    expect(screen.getByTestId<HTMLInputElement>('api-key-token-input').value).toBe(TOKEN);
    expect(screen.getByTestId('api-key-once').textContent).toMatch(/will not be shown again/);
    await until(() => rows().length === 1);
    await click(screen.getByTestId('api-key-done'));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.body.textContent).not.toContain(TOKEN);
  });

  it('asks before deleting: Cancel sends nothing, Delete removes the key', async () => {
    const calls = await renderCard([KEY]);
    await until(() => rows().length === 1);
    await click(screen.getByRole('button', { name: 'Delete Production' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete API key' });
    await click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(rows()).toHaveLength(1);

    await click(screen.getByRole('button', { name: 'Delete Production' }));
    await click(screen.getByTestId('api-key-delete-confirm'));
    await until(() => rows().length === 0);
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual([`/v1/api-keys/${KEY.id}`]);
  });
});
