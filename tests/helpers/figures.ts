// The figures a test checks, read as every page reads them (src/server/stats/figures.ts), never from
// the rollups' columns: a test then fails when a page would show another number.
import type { Database } from '../../src/server/db/database.ts';
import { type Figures, sentOf } from '../../src/lib/figures.ts';
import { figuresOfSlice } from '../../src/server/stats/figures.ts';

/** All-time figures of the customer, or of one of its groups, with `sent` beside them. */
export async function figuresOf(
  db: Database,
  customerId: number,
  groupId: number | null = null,
): Promise<Figures & { sent: number }> {
  const f = await figuresOfSlice(db, customerId, { groupId, firstDay: null, lastDay: null });
  return { ...f, sent: sentOf(f) };
}
