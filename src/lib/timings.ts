// Business constants from the specification, in one place (docs/console.md §9, docs/console-reports.md §9).
export const REQUEST_TIMEOUT_MS = 45_000;
export const ALERT_MS = 2_000;
export const MESSAGE_CLEAR_MS = 4_000;
export const EXPORT_ALERT_MS = 6_000;
/** docs/console.md §4/§9: the domain modal closes 3 s after success; its error text clears after 5 s. */
export const MODAL_SUCCESS_CLOSE_MS = 3_000;
export const MODAL_ERROR_CLEAR_MS = 5_000;
/** docs/console.md §9: search boxes wait 1000 ms after the last keystroke (report filters: 500 ms). */
export const SEARCH_DEBOUNCE_MS = 1_000;
/** docs/console.md §9: report filters (the group reports' recipient search) wait 500 ms. */
export const REPORT_SEARCH_DEBOUNCE_MS = 500;
/** docs/console-reports.md §2, §9: the Overview widget offers Retry after 45 s without an answer. */
export const OVERVIEW_RETRY_MS = 45_000;
/**
 * docs/console-reports.md §9: the template editor's live preview waits 2 s after the last change; Publish returns to
 * /templates after 1 s.
 */
export const EDITOR_DEBOUNCE_MS = 2_000;
export const PUBLISH_REDIRECT_MS = 1_000;
