// The Templates list (docs/console-reports.md §2 "Templates"): search, the selectable table (Name sortable,
// Last Published), delete of the one checked row, and the preview panel with its edit and, for a
// published template, 're-create' links. 'No templates found' when empty (§8). The server renders the
// first page; until the island has taken it over, that page is what it shows, so the
// browser's first render is the server's HTML (no React #418).
import { useIslandStore } from '../lib/island-hooks.ts';
import { useEffect } from 'react';
import Pagination from '../components/Pagination.tsx';
import SortableHeader from '../components/SortableHeader.tsx';
import TemplatePreview from '../components/TemplatePreview.tsx';
import { formatReportDate, unixOfIso } from '../lib/dates.ts';
import type { PageMeta } from '../contract/reports.ts';
import {
  type TemplateListState,
  checked,
  deleteChecked,
  deleting,
  goToPage,
  list,
  preview,
  previewHtml,
  previewed,
  query,
  searchText,
  sortByName,
  startWith,
  toggleChecked,
  typeSearch,
} from '../stores/templates.ts';
import type { TemplateWire } from '../lib/template-editor.ts';
import BusyButton from '../components/BusyButton.tsx';
import SearchInput from '../components/SearchInput.tsx';
import RowCheck from '../components/RowCheck.tsx';

export default function TemplateLibrary({ initial }: { initial: { data: TemplateWire[]; meta: PageMeta } }) {
  const $stored = useIslandStore(list);
  const $list: TemplateListState =
    $stored.status === 'initial' ? { status: 'loaded', data: initial.data, meta: initial.meta } : $stored;
  const $query = useIslandStore(query);
  const $search = useIslandStore(searchText);
  const $checked = useIslandStore(checked);
  const $deleting = useIslandStore(deleting);
  const selection = { checked: $checked, deleting: $deleting, onToggle: toggleChecked };
  const $previewed = useIslandStore(previewed);
  const $html = useIslandStore(previewHtml);
  useEffect(() => startWith(initial), [initial]);

  const direction = $query.sort === 'name' ? 'asc' : $query.sort === '-name' ? 'desc' : null;
  return (
    <div className="template-library">
      <div className="template-list">
        <div className="template-toolbar">
          <SearchInput
            value={$search}
            onType={typeSearch}
            placeholder="Search"
            label="Search templates by name"
            className="template-search"
            testId="template-search"
          />
          <BusyButton
            className="is-danger is-light"
            busy={$deleting}
            disabled={$checked === null}
            onClick={() => void deleteChecked()}
            testId="delete-template"
          >
            Delete
          </BusyButton>
        </div>
        <div className="table-container">
          <table
            className="table is-fullwidth is-hoverable template-table"
            aria-busy={$list.status === 'loading'}
            data-testid="template-table"
          >
            <thead>
              <tr>
                <th className="check-column">
                  <span className="is-sr-only">Select</span>
                </th>
                <SortableHeader label="Name" direction={direction} onSort={sortByName} testId="sort-name" />
                <th className="date-column">Last Published</th>
              </tr>
            </thead>
            <tbody>
              {$list.data.map((t) => (
                <tr
                  key={t.id}
                  className={$previewed?.id === t.id ? 'is-selected' : undefined}
                  data-testid="template-row"
                >
                  <RowCheck rowKey={t.id} name={t.name} selection={selection} testId="template-check" />
                  <td>
                    <button
                      type="button"
                      className="template-name"
                      onClick={() => void preview(t)}
                      data-testid="template-name"
                    >
                      {t.name}
                    </button>
                    {t.status === 'draft' && <span className="tag is-light ml-2">Draft</span>}
                  </td>
                  <td className="date-cell">
                    {t.published_timestamp ? formatReportDate(unixOfIso(t.published_timestamp)) : '—'}
                  </td>
                </tr>
              ))}
              {$list.data.length === 0 && (
                <tr>
                  <td
                    colSpan={3}
                    className="has-text-centered has-text-grey-dark empty-row"
                    data-testid="template-empty"
                  >
                    {$list.status === 'loading'
                      ? 'Loading…'
                      : $list.status === 'failed'
                        ? 'Error in getting templates'
                        : 'No templates found'}
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
        {$list.meta && (
          <Pagination meta={{ ...$list.meta, total_capped: false }} onPage={goToPage} testId="templates" />
        )}
      </div>
      <aside className="template-preview-panel card" aria-label="Template preview" data-testid="template-preview-panel">
        {$previewed ? (
          <>
            <header className="card-header">
              <p className="card-header-title">{$previewed.name}</p>
            </header>
            <div className="card-content">
              <p className="has-text-grey-dark template-subject">{$previewed.subject || 'No subject'}</p>
              <TemplatePreview html={$html} title={`Preview of ${$previewed.name}`} />
            </div>
            <footer className="card-footer">
              <a className="card-footer-item" href={`/templates/edit/${$previewed.id}`} data-testid="preview-edit">
                Edit
              </a>
              {$previewed.status === 'published' && (
                <a
                  className="card-footer-item"
                  href={`/templates/create/${$previewed.id}`}
                  data-testid="preview-recreate"
                >
                  Re-create
                </a>
              )}
            </footer>
          </>
        ) : (
          <div className="card-content has-text-grey-dark">Choose a template to preview it.</div>
        )}
      </aside>
    </div>
  );
}
