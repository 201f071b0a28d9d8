import { type OriginFilter, chooseOrigin, query, searchText, typeSearch } from '../stores/suppressions.ts';
import { useIslandStore } from '../lib/island-hooks.ts';

const ORIGINS: { origin: OriginFilter; label: string }[] = [
  { origin: 'all', label: 'All' },
  { origin: 'user', label: 'User' },
  { origin: 'bounce', label: 'Bounce' },
  { origin: 'unsubscribe', label: 'Unsubscribe' },
  // a recipient who marked a message as spam (a feedback loop's report)
  { origin: 'complaint', label: 'Complaint' },
];

/** The Suppression List's search box and origin filter buttons (docs/console-reports.md §2, and Complaint). */
export default function SuppressionFilters() {
  const $text = useIslandStore(searchText);
  const $query = useIslandStore(query);
  return (
    <div className="suppression-filters">
      <div className="control search-control">
        <input
          className="input"
          type="search"
          placeholder="Search by email"
          aria-label="Search by email"
          value={$text}
          onChange={(e) => typeSearch(e.target.value)}
          data-testid="suppression-search"
        />
      </div>
      <div className="buttons has-addons" role="group" aria-label="Origin">
        {ORIGINS.map(({ origin, label }) => {
          const active = $query.origin === origin;
          return (
            <button
              key={origin}
              type="button"
              className={`button${active ? ' is-primary is-selected' : ''}`}
              aria-pressed={active}
              onClick={() => chooseOrigin(origin)}
              data-testid={`origin-${origin}`}
            >
              {label}
            </button>
          );
        })}
      </div>
    </div>
  );
}
