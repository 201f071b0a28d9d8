// The Templates list's state (docs/console-reports.md §2 "Templates", §4, §8): the query (search text, sort,
// page), the loaded page, the one checked row (delete needs exactly one), the template shown in
// the preview panel and its rendered preview, and the actions behind the page's controls.
import { atom } from 'nanostores';
import type { PageMeta } from '../contract/reports.ts';
import { call, errorMessage } from '../lib/api.ts';
import type { TemplateWire } from '../lib/template-editor.ts';
import { showAlert } from './alerts.ts';
import { type ListState, checkedList } from './list-state.ts';

export type TemplateSort = 'name' | '-name' | 'description' | '-description';

export interface TemplateQuery {
  page: number;
  name: string;
  sort: TemplateSort;
}

/** 'initial': nothing asked yet; the page shows the first page the server rendered. */
export type TemplateListState = ListState<TemplateWire, 'initial'>;

/** docs/console-reports.md §9: template search sorted by description, DESC by default. */
export const FIRST_QUERY: TemplateQuery = { page: 1, name: '', sort: '-description' };

export const list = atom<TemplateListState>({ status: 'initial', data: [], meta: null });
/** The template in the preview panel, and its rendered HTML (null while it renders). */
export const previewed = atom<TemplateWire | null>(null);
export const previewHtml = atom<string | null>(null);

/**
 * The island took over the first page the server rendered (FIRST_QUERY's): it becomes the list as if
 * loaded, and its first template goes to the preview panel; nothing is asked again.
 */
export function startWith(first: { data: TemplateWire[]; meta: PageMeta }): void {
  if (list.get().status !== 'initial') return;
  list.set({ status: 'loaded', data: first.data, meta: first.meta });
  void preview(first.data[0] ?? null);
}

/**
 * The query and its page (docs/console-reports.md §8: a failed load shows 'Error in getting templates'), and the
 * one checked template, and its delete: 'Template deleted successfully' (§8).
 */
const templates = checkedList({
  list,
  first: FIRST_QUERY,
  searchField: 'name',
  fetch: ({ page, name, sort }) => call('POST /v1/templates/search', { body: { template_name: name, sort, page } }),
  more: {
    loaded(answer) {
      const shown = previewed.get();
      if (!shown || !answer.data.some((t) => t.id === shown.id)) void preview(answer.data[0] ?? null);
    },
    failed: () => showAlert('danger', 'Error in getting templates'),
  },
  async remove(id) {
    await call('DELETE /v1/templates/{id}', { params: { id } });
    showAlert('success', 'Template deleted successfully');
    if (previewed.get()?.id === id) previewed.set(null);
  },
  failed: (err) => showAlert('danger', errorMessage(err, 'Error in deleting template')),
});
export const { query, searchText, typeSearch, goToPage, checked, deleting, toggleChecked, deleteChecked } = templates;

/** The Name header: ascending, then descending; a new sort starts at page 1 (docs/console-reports.md §4). */
export function sortByName(): void {
  templates.changeQuery({ sort: query.get().sort === 'name' ? '-name' : 'name', page: 1 });
}

/** Shows a template in the preview panel, rendered with its variables' names as sample values. */
export async function preview(template: TemplateWire | null): Promise<void> {
  previewed.set(template);
  previewHtml.set(null);
  if (!template) return;
  try {
    const first = await call('POST /v1/templates/render', {
      body: { content_html: template.content_html, subject: template.subject },
    });
    const variables = Object.fromEntries(first.variables.map((v) => [v, `{{${v}}}`]));
    const answer = await call('POST /v1/templates/render', {
      body: { content_html: template.content_html, subject: template.subject, variables },
    });
    if (previewed.get()?.id === template.id) previewHtml.set(answer.html);
  } catch {
    // a draft that does not compile: show it as authored
    if (previewed.get()?.id === template.id) previewHtml.set(template.content_html);
  }
}
