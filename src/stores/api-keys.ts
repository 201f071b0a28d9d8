// Settings' API keys (docs/console.md §2 Settings): the list from GET /v1/api-keys, and creating and
// deleting a key. A new key's token lives only in the modal that shows it, never in this store.
import { atom } from 'nanostores';
import type { AnswerOf, BodyOf } from '../contract/client.ts';
import { call, errorMessage } from '../lib/api.ts';
import { showAlert } from './alerts.ts';

export type ApiKeyRow = AnswerOf<'GET /v1/api-keys'>['data'][number];
export type ApiKeysState = { status: 'loading' } | { status: 'failed' } | { status: 'loaded'; keys: ApiKeyRow[] };

export const apiKeys = atom<ApiKeysState>({ status: 'loading' });
/** Whether the create modal is open. */
export const createKeyOpen = atom(false);

/** Loads (or reloads) the list. */
export async function loadApiKeys(): Promise<void> {
  try {
    const { data } = await call('GET /v1/api-keys');
    apiKeys.set({ status: 'loaded', keys: data });
  } catch {
    if (apiKeys.get().status !== 'loaded') apiKeys.set({ status: 'failed' });
  }
}

/** Creates a key; its token once, or null after an alert. */
export async function createKey(body: BodyOf<'POST /v1/api-keys'>): Promise<string | null> {
  try {
    const { token } = await call('POST /v1/api-keys', { body });
    void loadApiKeys();
    return token;
  } catch (err) {
    showAlert('danger', errorMessage(err, 'The API key could not be created. Please try again.'));
    return null;
  }
}

/** Deletes a key; true when it is gone. */
export async function deleteKey(id: string): Promise<boolean> {
  try {
    await call('DELETE /v1/api-keys/{id}', { params: { id } });
    showAlert('success', 'The API key was deleted.');
    await loadApiKeys();
    return true;
  } catch (err) {
    showAlert('danger', errorMessage(err, 'The API key could not be deleted. Please try again.'));
    return false;
  }
}
