// The API and SMTP credential fields shown on Settings and on the getting-started page (docs/console.md
// §2: "read-only copyable fields", the API key and SMTP password masked). Presentation only: the
// page that uses them fetches the credentials.
import type { ApiCredentials, SmtpCredentials } from '../lib/wire.ts';
import CopyField from './CopyField.tsx';

/** Username, API Key (masked), API Endpoint and, when given, a link to the documentation. */
export function ApiCredentialFields({
  credentials,
  docsUrl,
}: {
  credentials: ApiCredentials;
  docsUrl?: string | null;
}) {
  return (
    <div className="credential-fields" data-testid="api-credentials">
      <CopyField label="Username" value={credentials.username} testId="api-username" />
      <CopyField label="API Key" value={credentials.apiKey} masked testId="api-key" />
      <CopyField label="API Endpoint" value={credentials.url} testId="api-endpoint" />
      {docsUrl && (
        <p className="credential-docs">
          <a href={docsUrl} target="_blank" rel="noopener noreferrer" data-testid="api-docs-link">
            Read the API documentation
          </a>
        </p>
      )}
      <p className="credential-docs">
        {/* this installation's own reference, made from the schemas the API validates with */}
        <a href="/docs/api" data-testid="api-reference-link">
          API reference and code samples
        </a>
      </p>
    </div>
  );
}

/** Host, Port, Username and Password (masked). */
export function SmtpCredentialFields({ credentials }: { credentials: SmtpCredentials }) {
  return (
    <div className="credential-fields" data-testid="smtp-credentials">
      <CopyField label="Host" value={credentials.host} testId="smtp-host" />
      <CopyField label="Port" value={String(credentials.port)} testId="smtp-port" />
      <CopyField label="Username" value={credentials.username} testId="smtp-username" />
      <CopyField label="Password" value={credentials.password} masked testId="smtp-password" />
      <p className="credential-docs">
        <a href="/docs/api#smtp" data-testid="smtp-reference-link">
          Sending over SMTP: nodemailer and Python examples
        </a>
      </p>
    </div>
  );
}
