// The append-only event log: the timeline of every transaction and the source of webhooks.
import type { Database } from '../db/database.ts';
import { hasRow } from '../db/has-row.ts';
import type { EventType } from '../db/schema.ts';
import type { AppContext } from '../core/context.ts';
import { insertOutbox } from '../webhooks/outbox.ts';

export interface NewEvent {
  customer_id: number;
  transaction_id: number;
  type: EventType;
  at?: Date;
  data?: Record<string, unknown> | null;
}

/**
 * Appends events in one statement, and their webhook requests (src/server/webhooks/outbox.ts) in the
 * same transaction. `ctx` lets the outbox read the customers' webhooks through the lookup cache.
 */
export async function insertEvents(db: Database, events: NewEvent[], ctx?: Pick<AppContext, 'lookups'>): Promise<void> {
  // the outbox first: it reads which transactions were deferred before these events
  await insertOutbox(ctx, db, events);
  // in slices: one statement may carry at most 65,535 parameters
  for (let i = 0; i < events.length; i += 5000) {
    await db
      .insertInto('events')
      .values(
        events.slice(i, i + 5000).map((e) => ({
          customer_id: e.customer_id,
          transaction_id: e.transaction_id,
          type: e.type,
          at: e.at ?? new Date(),
          data: e.data ? JSON.stringify(e.data) : null,
        })),
      )
      .execute();
  }
}

/** Whether the transaction has an event of this type already (a repeated report is recorded once). */
export async function hasEvent(db: Database, transactionId: number, type: EventType): Promise<boolean> {
  return hasRow(
    db.selectFrom('events').select('id').where('transaction_id', '=', transactionId).where('type', '=', type),
  );
}

export async function listTransactionEvents(db: Database, transactionId: number) {
  return db
    .selectFrom('events')
    .select(['type', 'at', 'data'])
    .where('transaction_id', '=', transactionId)
    .orderBy('id')
    .execute();
}

/**
 * The click events of these transactions between two moments (both included), oldest first: the
 * clicks already recorded that the machine rules weigh a new one against (tracking.service.ts).
 */
export async function clickEventsBetween(db: Database, transactionIds: number[], from: Date, to: Date) {
  if (transactionIds.length === 0) return [];
  return db
    .selectFrom('events')
    .select(['transaction_id', 'at', 'data'])
    .where('transaction_id', 'in', [...new Set(transactionIds)])
    .where('type', '=', 'click')
    .where('at', '>=', from)
    .where('at', '<=', to)
    .orderBy('id')
    .execute();
}
