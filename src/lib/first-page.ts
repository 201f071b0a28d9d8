// The first page of a console list, rendered on the server: a page with JavaScript off
// shows the rows the island would load, and the island starts from them instead of a 'Loading…'
// row. Through the page bridge, so the rows come from the same check and service call as the API.
import type { AnswerOf } from '../contract/client.ts';

/**
 * The first pages of the console's lists (the page bridge's `firstPages`, src/server/page-bridge.ts): each
 * the answer of the API call its island makes, to the body the island would send, so its shape is the
 * contract's answer. Defined here, on the shared side, so pages read it without a server type.
 */
export interface FirstPages {
  suppressions(customerId: number, body: unknown): Promise<AnswerOf<'POST /v1/suppression/search'>>;
  /** GET /v1/dashboard's latest transactions for its query. */
  dashboard(customerId: number, query: unknown): Promise<AnswerOf<'GET /v1/dashboard'>['data']['transactionStats']>;
  transactions(customerId: number, body: unknown): Promise<AnswerOf<'POST /v1/transaction/search'>>;
  groups(customerId: number, body: unknown): Promise<AnswerOf<'POST /v1/transaction-groups/search'>>;
  groupReport(customerId: number, body: unknown): Promise<AnswerOf<'POST /v1/transaction-groups/reports'>>;
  links(customerId: number, body: unknown): Promise<AnswerOf<'POST /v1/links'>>;
  inbound(customerId: number, body: unknown): Promise<AnswerOf<'POST /v1/inbound/search'>>;
}

/**
 * `load`'s answer for the signed-in customer, or null when there is no bridge or session, or the
 * call fails: the island then loads the page itself and shows its own failure and Retry (docs/console.md §8).
 */
export async function firstPage<T>(
  locals: App.Locals,
  load: (pages: FirstPages, customerId: number) => Promise<T>,
): Promise<T | null> {
  const customerId = locals.session?.customer?.customer_id;
  if (!locals.bridge || customerId === undefined) return null;
  try {
    return await load(locals.bridge.firstPages, customerId);
  } catch {
    return null;
  }
}
