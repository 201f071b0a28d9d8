// The Suppression List's query and the search request it becomes: pure, so the page renders the first
// page on the server with the same request the store sends later.
import type { SuppressionOrigin } from '../contract/values.ts';

export type OriginFilter = 'all' | SuppressionOrigin;

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
