// Settings' Domains card: the account's domains with their state, each linking to its page, and Add
// Domain with the domain modal of getting started. Rendered on the server from `initial`; once a
// domain is added, the list getting started's call answers (GET v1/get-started) takes its place.
import { useState } from 'react';
import DomainList from '../components/DomainList.tsx';
import DomainModal from '../components/DomainModal.tsx';
import { useIslandStore } from '../lib/island-hooks.ts';
import { DOMAIN_CREATED, type DomainSummary, createDomain, getStarted } from '../stores/get-started.ts';

export default function SettingsDomains({ initial }: { initial: DomainSummary[] }) {
  const $state = useIslandStore(getStarted);
  const [modalOpen, setModalOpen] = useState(false);
  const domains = $state.status === 'loaded' ? $state.domains : initial;
  return (
    <>
      {domains.length === 0 ? (
        <p className="mb-4" data-testid="domains-none">
          No domain yet. Add the domain you send from: we email a link to an address there to verify it.
        </p>
      ) : (
        <DomainList domains={domains} />
      )}
      <button
        type="button"
        className="button is-small is-primary"
        onClick={() => setModalOpen(true)}
        data-testid="add-domain"
      >
        Add Domain
      </button>
      {modalOpen && (
        <DomainModal onClose={() => setModalOpen(false)} onSubmit={createDomain} successMessage={DOMAIN_CREATED} />
      )}
    </>
  );
}
