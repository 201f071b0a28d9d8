// The account's domains as a list: each with a green check (verified for sending) or a red cross, and
// a link to its page (/domains/{id}: DNS records, receiving). Getting started and Settings show it.
import type { DomainSummary } from '../stores/get-started.ts';

export default function DomainList({ domains }: { domains: readonly DomainSummary[] }) {
  return (
    <ul className="domain-list mb-4" data-testid="domain-list">
      {domains.map((d) => (
        <li
          key={d.domain_id}
          data-testid="domain-row"
          data-domain={d.domain_domain}
          data-verified={d.domain_sending_verified}
        >
          {d.domain_sending_verified === 'yes' ? (
            // biome-ignore lint/a11y/useAriaPropsSupportedByRole: left as is (LINT-MERGE.md)
            <span className="domain-state is-verified" title="Verified" aria-label="Verified">
              ✔
            </span>
          ) : (
            // biome-ignore lint/a11y/useAriaPropsSupportedByRole: left as is (LINT-MERGE.md)
            <span className="domain-state is-unverified" title="Not verified" aria-label="Not verified">
              ✘
            </span>
          )}
          <span className="domain-name">{d.domain_domain}</span>
          <a
            href={`/domains/${d.domain_id}`}
            className="domain-edit"
            aria-label={`Edit ${d.domain_domain}`}
            data-testid="domain-edit"
          >
            Edit
          </a>
        </li>
      ))}
    </ul>
  );
}
