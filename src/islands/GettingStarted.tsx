// The getting-started page (docs/console.md §2): step markers, the Add and Verify Domain card (each
// domain with a red cross or green check and an edit link; a button opening the domain modal) and
// the Configure using API or SMTP card (two Get Key choices revealing the credential fields).
import { useEffect, useState } from 'react';
import { ApiCredentialFields, SmtpCredentialFields } from '../components/CredentialFields.tsx';
import DomainList from '../components/DomainList.tsx';
import DomainModal from '../components/DomainModal.tsx';
import { DOMAIN_CREATED, createDomain, getStarted, loadGetStarted } from '../stores/get-started.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

export default function GettingStarted({ docsUrl }: { docsUrl?: string | null }) {
  const $state = useIslandStore(getStarted);
  const [modalOpen, setModalOpen] = useState(false);
  const [choice, setChoice] = useState<'api' | 'smtp' | null>(null);
  useEffect(() => {
    void loadGetStarted();
  }, []);

  if ($state.status === 'loading') return <progress className="progress is-small is-primary" aria-label="Loading" />;
  if ($state.status === 'failed') {
    return (
      <div className="notification is-danger is-light" data-testid="get-started-failed">
        The account's details could not be loaded.{' '}
        <button type="button" className="button is-small" onClick={() => void loadGetStarted()}>
          Retry
        </button>
      </div>
    );
  }

  const verified = $state.domains.some((d) => d.domain_sending_verified === 'yes');
  return (
    <>
      <ol className="steps" data-testid="steps">
        <li className={verified ? 'is-done' : 'is-current'} data-testid="step-domain">
          <span className="step-marker">1</span> Add and verify a domain
        </li>
        <li className={verified ? 'is-current' : ''} data-testid="step-configure">
          <span className="step-marker">2</span> Configure using API or SMTP
        </li>
      </ol>
      <div className="getting-started-cards">
        <div>
          <div className="card" data-testid="domains-card">
            <header className="card-header">
              <p className="card-header-title">Add and Verify Domain</p>
            </header>
            <div className="card-content">
              {$state.domains.length === 0 ? (
                <p className="mb-4">Add the domain you send from. We email a link to an address there to verify it.</p>
              ) : (
                <DomainList domains={$state.domains} />
              )}
              <button
                type="button"
                className="button is-primary"
                onClick={() => setModalOpen(true)}
                data-testid="add-domain"
              >
                Add Domain
              </button>
            </div>
          </div>
        </div>
        <div>
          <div className="card" data-testid="configure-card">
            <header className="card-header">
              <p className="card-header-title">Configure using API or SMTP</p>
            </header>
            <div className="card-content">
              <div className="get-key">
                {(['api', 'smtp'] as const).map((way) => (
                  <div key={way}>
                    <p className="has-text-weight-semibold">{way.toUpperCase()}</p>
                    <button
                      type="button"
                      className={`button is-small${choice === way ? ' is-primary' : ''}`}
                      onClick={() => setChoice(way)}
                      data-testid={`get-key-${way}`}
                    >
                      Get Key
                    </button>
                  </div>
                ))}
              </div>
              {choice === 'api' && <ApiCredentialFields credentials={$state.apiCredentials} docsUrl={docsUrl} />}
              {choice === 'smtp' && <SmtpCredentialFields credentials={$state.smtpCredentials} />}
            </div>
          </div>
        </div>
      </div>
      {modalOpen && (
        <DomainModal onClose={() => setModalOpen(false)} onSubmit={createDomain} successMessage={DOMAIN_CREATED} />
      )}
    </>
  );
}
