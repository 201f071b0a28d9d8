// The first page of a console list, rendered on the server (issue 19): a page with JavaScript off
// shows the rows the island would load, and the island starts from them instead of a 'Loading…'
// row. Through the page bridge, so the rows come from the same check and service call as the API.
import type { FirstPages } from '../server/page-bridge.ts';

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
