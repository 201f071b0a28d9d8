// The Suppression List's query, its origins' names, and the search request it becomes: pure, so the
// page renders the first page on the server with the same request the store sends later.
import type { SuppressionOrigin } from '../contract/values.ts';

export type OriginFilter = 'all' | SuppressionOrigin;

/** How the filter buttons and the table's tags name each origin. */
export const ORIGIN_LABEL: Readonly<Record<SuppressionOrigin, string>> = {
  user: 'User',
  bounce: 'Bounce',
  unsubscribe: 'Unsubscribe',
  // a recipient who marked a message as spam (a feedback loop's report)
  complaint: 'Complaint',
};

export interface SuppressionQuery {
  page: number;
  /** The search text in effect (the box's text once the debounce has passed). */
  email: string;
  origin: OriginFilter;
}

export const FIRST_SUPPRESSION_QUERY: SuppressionQuery = { page: 1, email: '', origin: 'all' };

/** POST /v1/suppression/search's body for a query. */
export function suppressionSearchBody({ page, email, origin }: SuppressionQuery) {
  return { page, email, suppressed_origin: origin };
}
