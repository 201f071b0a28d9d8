import { useEffect } from 'react';
import { ApiCredentialFields, SmtpCredentialFields } from '../components/CredentialFields.tsx';
import { loadUiSettings, uiSettings } from '../stores/ui-settings.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

/** The API or SMTP Credentials block of Settings, from the settings answer the page loads once. */
export default function SettingsCredentials({ kind, docsUrl }: { kind: 'api' | 'smtp'; docsUrl?: string | null }) {
  const $settings = useIslandStore(uiSettings);
  useEffect(() => void loadUiSettings(), []);

  if ($settings.status === 'loading') return <p className="has-text-grey">Loading…</p>;
  if ($settings.status === 'failed')
    return (
      <p className="has-text-grey" data-testid={`${kind}-credentials-failed`}>
        The credentials could not be loaded.
      </p>
    );
  const { apiCredentials, smtpCredentials } = $settings.credentials;
  return kind === 'api' ? (
    <ApiCredentialFields credentials={apiCredentials} docsUrl={docsUrl} />
  ) : (
    <SmtpCredentialFields credentials={smtpCredentials} />
  );
}
