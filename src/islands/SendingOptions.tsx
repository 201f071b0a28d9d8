import { useEffect } from 'react';
import {
  type SendingOption,
  loadUiSettings,
  optionValue,
  saveSendingOption,
  savingOptions,
  uiSettings,
} from '../stores/ui-settings.ts';
import { useIslandStore } from '../lib/island-hooks.ts';
import LoadFailed from '../components/LoadFailed.tsx';

const OPTIONS: { option: SendingOption; label: string; help: string }[] = [
  { option: 'track_opens', label: 'Track Opens', help: 'Add an invisible image to HTML mail to count opens.' },
  { option: 'track_links', label: 'Track Link Clicks', help: 'Send links through this service to count clicks.' },
  {
    option: 'disable_suppression',
    label: 'Disable Suppressions',
    help: 'Send even to addresses on the suppression list.',
  },
];

/**
 * The Sending Options toggles of Settings (docs/console.md §2). Each is disabled while its save is in
 * flight and flips only once the server accepted the change (§4); a failed save leaves it as it was.
 */
export default function SendingOptions() {
  const $settings = useIslandStore(uiSettings);
  const $saving = useIslandStore(savingOptions);
  useEffect(() => void loadUiSettings(), []);

  if ($settings.status === 'failed') {
    return (
      <LoadFailed
        message="The sending options could not be loaded."
        onRetry={() => void loadUiSettings()}
        testId="sending-options-failed"
      />
    );
  }
  return (
    <ul className="sending-options" aria-busy={$settings.status === 'loading'}>
      {OPTIONS.map(({ option, label, help }) => {
        const value = optionValue($settings, option);
        const id = `option-${option}`;
        return (
          <li key={option} className="sending-option">
            <div>
              <label htmlFor={id} className="has-text-weight-semibold">
                {label}
              </label>
              <p className="help" id={`${id}-help`}>
                {help}
              </p>
            </div>
            <input
              id={id}
              type="checkbox"
              role="switch"
              className="switch"
              aria-describedby={`${id}-help`}
              checked={value ?? false}
              disabled={value === undefined || $saving[option] === true}
              aria-busy={$saving[option] === true}
              onChange={() => void saveSendingOption(option, !value)}
              data-testid={`toggle-${option}`}
            />
          </li>
        );
      })}
    </ul>
  );
}
