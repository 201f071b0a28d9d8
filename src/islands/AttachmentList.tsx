// The Online Attachments list (spec part two §2): search by name, the table (checkbox, Link with
// 'Created on D MMMM YYYY', Files, Expires), 8 rows a page, 'No links available', row selection
// (the first row after load), the preview pane of the selected link and its delete action.
import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect } from 'react';
import AttachmentPreview from '../components/AttachmentPreview.tsx';
import { formatLongDate } from '../lib/dates.ts';
import { branding, deleteSelected, list, loadBranding, loadList, search, selected, selectedId, setSearch } from './stores/attachments.ts';

export default function AttachmentList() {
  const $list = useIslandStore(list);
  const $search = useIslandStore(search);
  const $selectedId = useIslandStore(selectedId);
  const $selected = useIslandStore(selected);
  const $branding = useIslandStore(branding);
  useEffect(() => {
    void loadList(1);
    void loadBranding();
  }, []);
  const loading = $list.status === 'loading';
  return (
    <div className="attachments-layout">
      <section className="card attachments-table-card" aria-label="Download links">
        <div className="card-content">
          <div className="field">
            <label className="label is-sr-only" htmlFor="attachment-search">Search links by name</label>
            <input id="attachment-search" className="input" type="search" placeholder="Search" value={$search} onChange={(e) => setSearch(e.target.value)} data-testid="attachment-search" />
          </div>
          <div className="table-container" aria-busy={loading} data-testid="attachment-table-wrap">
            <table className="table is-fullwidth is-hoverable attachment-table" data-testid="attachment-table">
              <thead>
                <tr>
                  <th className="check-column"><span className="is-sr-only">Selected</span></th>
                  <th>Link</th>
                  <th>Files</th>
                  <th>Expires</th>
                </tr>
              </thead>
              <tbody>
                {$list.data.map((g) => (
                  <tr key={g.id} className={g.id === $selectedId ? 'is-selected' : undefined} onClick={() => selectedId.set(g.id)} data-testid="attachment-row">
                    <td className="check-column">
                      <input type="checkbox" aria-label={`Select ${g.name}`} checked={g.id === $selectedId} onChange={() => selectedId.set(g.id)} onClick={(e) => e.stopPropagation()} />
                    </td>
                    <td>
                      <a href={`/online-attachments/${g.id}/edit`} onClick={(e) => e.stopPropagation()} data-testid="attachment-name">{g.name}</a>
                      <br />
                      <small className="has-text-grey">Created on {formatLongDate(g.created_timestamp)}</small>
                    </td>
                    <td data-testid="attachment-files">{g.asset_count}</td>
                    <td data-testid="attachment-expires">{g.options.expiry_timestamp ? formatLongDate(g.options.expiry_timestamp) : 'Never'}</td>
                  </tr>
                ))}
                {!loading && $list.data.length === 0 && (
                  <tr>
                    <td colSpan={4} className="has-text-centered has-text-grey" data-testid="attachment-empty">No links available</td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          {$list.pages > 1 && (
            <nav className="pagination is-small" aria-label="Pages">
              <button type="button" className="pagination-previous" disabled={$list.page <= 1 || loading} onClick={() => void loadList($list.page - 1)}>Previous</button>
              <button type="button" className="pagination-next" disabled={$list.page >= $list.pages || loading} onClick={() => void loadList($list.page + 1)}>Next</button>
              <p className="pagination-list has-text-grey" data-testid="attachment-page">Page {$list.page} of {$list.pages}</p>
            </nav>
          )}
        </div>
      </section>
      <aside className="card attachments-pane" aria-label="Selected link" data-testid="attachment-pane">
        <div className="card-content">
          {$selected ? (
            <>
              <div className="pane-heading">
                <h2 className="title is-5" data-testid="pane-title">{$selected.name}</h2>
                <div className="buttons">
                  <a className="button is-small" href={`/online-attachments/${$selected.id}/edit`}>Edit</a>
                  <button type="button" className="button is-small is-danger is-light" onClick={() => void deleteSelected()} data-testid="attachment-delete">Delete</button>
                </div>
              </div>
              <AttachmentPreview branding={$branding} previewLink={$selected.preview_link} expiry={$selected.options.expiry_timestamp} files={$selected.assets} />
            </>
          ) : (
            <p className="has-text-grey">Select a link to preview it.</p>
          )}
        </div>
      </aside>
    </div>
  );
}
