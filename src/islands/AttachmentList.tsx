// The Online Attachments list (docs/console-reports.md §2): search by name, the table (checkbox, Link with
// 'Created on D MMMM YYYY', Files, Downloads, Expires), 8 rows a page, 'No links available', row
// selection (the first row after load), the preview pane of the selected link and its delete
// action. A link that expired or reached its limit says so. The first page comes
// rendered from the server (so the same rows show with JavaScript off); the island takes it over.
import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect } from 'react';
import AttachmentPreview from '../components/AttachmentPreview.tsx';
import { downloadsLeft, stateLabel } from '../lib/attachment-state.ts';
import { formatLongDate } from '../lib/dates.ts';
import {
  branding as brandingStore,
  brandingLoaded,
  deleteSelected,
  list,
  type Branding,
  type ListPage,
  loadBranding,
  search,
  seedList,
  selectedId,
  setSearch,
  loadList,
} from '../stores/attachments.ts';

export interface AttachmentListProps {
  /** the first page and the branding, read on the server for this request */
  initial: { list: ListPage; branding: Branding };
}

export default function AttachmentList({ initial }: AttachmentListProps) {
  const $stored = useIslandStore(list);
  const $search = useIslandStore(search);
  const $selectedId = useIslandStore(selectedId);
  const $storedBranding = useIslandStore(brandingStore);
  const $brandingLoaded = useIslandStore(brandingLoaded);
  useEffect(() => {
    seedList(initial.list);
    void loadBranding();
  }, []);
  // until the island has taken the page over, it shows what the server rendered (no #418)
  const seeded = $stored.status !== 'unset';
  const $list = seeded
    ? $stored
    : {
        status: 'loaded' as const,
        data: initial.list.data,
        page: initial.list.pagination.page,
        pages: initial.list.pagination.pages,
        total: initial.list.pagination.total,
      };
  const chosen = seeded ? $selectedId : (initial.list.data[0]?.id ?? null);
  const $selected = $list.data.find((g) => g.id === chosen) ?? null;
  const $branding = $brandingLoaded ? $storedBranding : initial.branding;
  const loading = $list.status === 'loading';
  return (
    <div className="attachments-layout">
      <section className="card attachments-table-card" aria-label="Download links">
        <div className="card-content">
          <div className="field">
            <label className="label is-sr-only" htmlFor="attachment-search">
              Search links by name
            </label>
            <input
              id="attachment-search"
              className="input"
              type="search"
              placeholder="Search"
              value={$search}
              onChange={(e) => setSearch(e.target.value)}
              data-testid="attachment-search"
            />
          </div>
          {/* focusable: on a phone the table scrolls sideways, and keyboards must reach it (also when empty) */}
          <div
            className="table-container"
            tabIndex={0}
            role="region"
            aria-label="Download links table"
            aria-busy={loading}
            data-testid="attachment-table-wrap"
          >
            <table className="table is-fullwidth is-hoverable attachment-table" data-testid="attachment-table">
              <thead>
                <tr>
                  <th className="check-column">
                    <span className="is-sr-only">Selected</span>
                  </th>
                  <th>Link</th>
                  <th>Files</th>
                  <th>Downloads</th>
                  <th>Expires</th>
                </tr>
              </thead>
              <tbody>
                {$list.data.map((g) => {
                  const dead = stateLabel(g.state, g.options.expiry_timestamp);
                  const limits = { accessLimit: g.options.access_limit, downloads: g.downloads };
                  return (
                    <tr
                      key={g.id}
                      className={g.id === chosen ? 'is-selected' : undefined}
                      onClick={() => selectedId.set(g.id)}
                      data-testid="attachment-row"
                      data-state={g.state}
                    >
                      <td className="check-column">
                        <input
                          type="checkbox"
                          aria-label={`Select ${g.name}`}
                          checked={g.id === chosen}
                          onChange={() => selectedId.set(g.id)}
                          onClick={(e) => e.stopPropagation()}
                        />
                      </td>
                      <td>
                        <a
                          href={`/online-attachments/${g.id}/edit`}
                          onClick={(e) => e.stopPropagation()}
                          data-testid="attachment-name"
                        >
                          {g.name}
                        </a>
                        <br />
                        <small className="has-text-grey">Created on {formatLongDate(g.created_timestamp)}</small>
                        {dead && (
                          <>
                            <br />
                            <span
                              className={
                                `tag ${g.state === 'expired' ? 'is-danger' : 'is-warning'} ` + `is-light link-state`
                              }
                              data-testid="attachment-state"
                            >
                              {dead}
                            </span>
                          </>
                        )}
                      </td>
                      <td data-testid="attachment-files">{g.asset_count}</td>
                      <td data-testid="attachment-downloads">{downloadsLeft(limits)}</td>
                      <td data-testid="attachment-expires">
                        {g.options.expiry_timestamp
                          ? g.state === 'expired'
                            ? `Expired on ${formatLongDate(g.options.expiry_timestamp)}`
                            : formatLongDate(g.options.expiry_timestamp)
                          : 'Never'}
                      </td>
                    </tr>
                  );
                })}
                {!loading && $list.data.length === 0 && (
                  <tr>
                    <td colSpan={5} className="has-text-centered has-text-grey" data-testid="attachment-empty">
                      No links available
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          {$list.pages > 1 && (
            <nav className="pagination is-small" aria-label="Pages">
              <button
                type="button"
                className="pagination-previous"
                disabled={$list.page <= 1 || loading}
                onClick={() => void loadList($list.page - 1)}
              >
                Previous
              </button>
              <button
                type="button"
                className="pagination-next"
                disabled={$list.page >= $list.pages || loading}
                onClick={() => void loadList($list.page + 1)}
              >
                Next
              </button>
              <p className="pagination-list has-text-grey" data-testid="attachment-page">
                Page {$list.page} of {$list.pages}
              </p>
            </nav>
          )}
        </div>
      </section>
      <aside className="card attachments-pane" aria-label="Selected link" data-testid="attachment-pane">
        <div className="card-content">
          {$selected ? (
            <>
              <div className="pane-heading">
                <h2 className="title is-5" data-testid="pane-title">
                  {$selected.name}
                </h2>
                <div className="buttons">
                  <a className="button is-small" href={`/online-attachments/${$selected.id}/edit`}>
                    Edit
                  </a>
                  <button
                    type="button"
                    className="button is-small is-danger is-light"
                    onClick={() => void deleteSelected()}
                    data-testid="attachment-delete"
                  >
                    Delete
                  </button>
                </div>
              </div>
              <p className="pane-state" data-testid="pane-state">
                {stateLabel($selected.state, $selected.options.expiry_timestamp) ?? 'Live'} ·{' '}
                {downloadsLeft({ accessLimit: $selected.options.access_limit, downloads: $selected.downloads })}
              </p>
              <AttachmentPreview
                branding={$branding}
                previewLink={$selected.preview_link}
                expiry={$selected.options.expiry_timestamp}
                state={$selected.state}
                files={$selected.assets}
              />
            </>
          ) : (
            <p className="has-text-grey">Select a link to preview it.</p>
          )}
        </div>
      </aside>
    </div>
  );
}
