// GET /v1/ui-settings, fetched once per page and shared by the Settings islands (sending options
// and both credential blocks), and the action that saves one sending option (docs/console.md §4: a
// toggle flips only after a successful save and is disabled while saving).
import { atom, map } from 'nanostores';
import type { ApiCredentials, SmtpCredentials } from '../lib/wire.ts';
import { call, errorMessage } from '../lib/api.ts';
import { showAlert } from './alerts.ts';

export type SendingOption = 'track_opens' | 'track_links' | 'disable_suppression';

export interface UiSettings {
  tsetting_track_opens: boolean;
  tsetting_track_links: boolean;
  tsetting_disable_suppression: boolean;
}

export interface UiSettingsAnswer {
  settings: UiSettings;
  credentials: { apiCredentials: ApiCredentials; smtpCredentials: SmtpCredentials; isReseller: boolean };
}

export type UiSettingsState = { status: 'loading' } | { status: 'failed' } | ({ status: 'loaded' } & UiSettingsAnswer);

export const uiSettings = atom<UiSettingsState>({ status: 'loading' });
/** The options whose save is in flight. */
export const savingOptions = map<Partial<Record<SendingOption, boolean>>>({});

const WIRE: Record<SendingOption, keyof UiSettings> = {
  track_opens: 'tsetting_track_opens',
  track_links: 'tsetting_track_links',
  disable_suppression: 'tsetting_disable_suppression',
};

/** The current value of an option, or undefined until the settings are loaded. */
export function optionValue(state: UiSettingsState, option: SendingOption): boolean | undefined {
  return state.status === 'loaded' ? state.settings[WIRE[option]] : undefined;
}

let loading: Promise<void> | undefined;

/** Loads the settings once, however many islands ask; after a failure a new call tries again. */
export function loadUiSettings(): Promise<void> {
  loading ??= call('GET /v1/ui-settings')
    .then((answer) => uiSettings.set({ status: 'loaded', ...answer }))
    .catch(() => {
      uiSettings.set({ status: 'failed' });
      loading = undefined;
    });
  return loading;
}

/** Saves one option; the stored value changes only when the server accepted it. */
export async function saveSendingOption(option: SendingOption, value: boolean): Promise<void> {
  if (savingOptions.get()[option]) return;
  savingOptions.setKey(option, true);
  try {
    const answer = await call('POST /v1/ui-settings', { body: { [option]: value } });
    const state = uiSettings.get();
    if (state.status === 'loaded') uiSettings.set({ ...state, settings: answer.settings });
  } catch (err) {
    showAlert('danger', errorMessage(err, 'The setting could not be saved. Please try again.'));
  } finally {
    savingOptions.setKey(option, false);
  }
}
