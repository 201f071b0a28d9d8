// The webhook a customer configures on Settings (docs/console.md §3 Webhook): plain queries, always
// scoped to one customer.
import type { Selectable } from 'kysely';
import type { Database } from '../db/database.ts';
import type { WebhooksTable } from '../db/schema.ts';

export type Webhook = Selectable<WebhooksTable>;

/** The customer's webhooks (one at most today: `customer_id` is unique), oldest first. */
export async function listWebhooks(db: Database, customerId: number): Promise<Webhook[]> {
  return db.selectFrom('webhooks').selectAll().where('customer_id', '=', customerId).orderBy('id').execute();
}
