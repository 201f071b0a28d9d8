// The Suppression List page's state (docs/console-reports.md §2 "Suppression List", §4, §5, §8): the query
// (search text, origin filter, page), the loaded page of entries, the one checked row, and the
// actions behind the search box, the filter buttons, the pager, the delete icon and the
// 'Add Recipients' modal. Shared by the page's islands.
import { atom } from 'nanostores';
import { FetchError } from 'ofetch';
import type { SuppressionOrigin } from '../contract/values.ts';
import { call, errorMessage } from '../lib/api.ts';
import { FIRST_SUPPRESSION_QUERY, type OriginFilter, suppressionSearchBody } from '../lib/suppression-query.ts';
import { showAlert } from './alerts.ts';
import { type ListState, checkedList } from './list-state.ts';

export type { OriginFilter, SuppressionOrigin };

export interface Suppression {
  email: string;
  origin: SuppressionOrigin;
  suppressed_timestamp: string;
}

/** A line of the textarea that was not added: its line number in the textarea, and why. */
export interface RejectedLine {
  line: number;
  value: string;
  message: string;
}

export type AddOutcome =
  | { ok: true; added: number; already: number; rejected: RejectedLine[] }
  | { ok: false; message: string; rejected: RejectedLine[] };

export const list = atom<ListState<Suppression>>({ status: 'loading', data: [], meta: null });

/**
 * The query and its page, and the one checked row (keyed by address) and its delete: the spec's message. Failed
 * loads and deletes are silent (docs/console-reports.md §8); the reload shows whether the address is still listed.
 */
const suppressions = checkedList({
  list,
  first: FIRST_SUPPRESSION_QUERY,
  searchField: 'email',
  fetch: (q) => call('POST /v1/suppression/search', { body: suppressionSearchBody(q) }),
  async remove(email) {
    await call('DELETE /v1/suppression/{email}', { params: { email } });
    showAlert('success', 'Suppression Deleted Successfully');
  },
});
export const {
  query,
  searchText,
  typeSearch,
  goToPage,
  load: loadSuppressions,
  checked,
  deleting,
  toggleChecked,
  deleteChecked,
} = suppressions;

/** The table mounted: its first page, unless the server rendered it. */
export function startSuppressions(rendered: boolean): void {
  if (!rendered) void loadSuppressions();
}

/** A filter button: All, User, Bounce, Unsubscribe or Complaint, from page 1 (docs/console-reports.md §4). */
export function chooseOrigin(origin: OriginFilter): void {
  if (origin !== query.get().origin) suppressions.changeQuery({ origin, page: 1 });
}

interface AddAnswer {
  added: number;
  already: number;
  invalid: { line: number; value: string; message: string }[];
}

function isInvalidList(value: unknown): value is AddAnswer['invalid'] {
  return (
    Array.isArray(value) &&
    value.every((v) => typeof v === 'object' && v !== null && typeof (v as { line?: unknown }).line === 'number')
  );
}

/**
 * Adds the textarea's addresses: one per line, blank lines dropped, no format check in the browser
 * (docs/console-reports.md §5). Success shows 'Suppression successfully added.' and reloads the list as a
 * fresh page would show it (§4, §8); failure shows the server's message or 'Error in adding
 * suppressions'. Lines the server refused come back with their textarea line numbers.
 */
export async function addRecipients(text: string): Promise<AddOutcome> {
  const lines = text.split(/\r\n|\r|\n/).map((value, i) => ({ value: value.trim(), line: i + 1 }));
  const kept = lines.filter((l) => l.value !== '');
  // the server numbers the lines it received; map them back to the textarea's
  const toTextarea = (invalid: AddAnswer['invalid']): RejectedLine[] =>
    invalid.map((i) => ({ ...i, line: kept[i.line - 1]?.line ?? i.line }));
  try {
    const answer = await call('POST /v1/suppression', { body: { emails: kept.map((l) => l.value) } });
    showAlert('success', 'Suppression successfully added.');
    suppressions.clearSearch();
    suppressions.changeQuery(FIRST_SUPPRESSION_QUERY);
    return { ok: true, added: answer.added, already: answer.already, rejected: toTextarea(answer.invalid) };
  } catch (err) {
    const message = errorMessage(err, 'Error in adding suppressions');
    showAlert('danger', message);
    const details =
      err instanceof FetchError
        ? (err.data as { error?: { details?: unknown } } | undefined)?.error?.details
        : undefined;
    return { ok: false, message, rejected: isInvalidList(details) ? toTextarea(details) : [] };
  }
}
