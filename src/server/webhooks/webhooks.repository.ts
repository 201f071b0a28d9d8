// The webhook a customer configures on Settings (docs/console.md §3 Webhook): plain queries, always
// scoped to one customer.
import { type Insertable, type Selectable, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { WebhooksTable } from '../db/schema.ts';

export type Webhook = Selectable<WebhooksTable>;

/** The customer's webhooks (one at most today: `customer_id` is unique), oldest first. */
export async function listWebhooks(db: Database, customerId: number): Promise<Webhook[]> {
  return db.selectFrom('webhooks').selectAll().where('customer_id', '=', customerId).orderBy('id').execute();
}

/**
 * Gives a webhook saved before signing existed (migration 008) `sealed` as its secret, unless it
 * has one by now; answers the secret it has.
 */
export async function fillMissingSecret(db: Database, id: number, sealed: string): Promise<string | null> {
  const updated = await db
    .updateTable('webhooks')
    .set({ secret_sealed: sql`coalesce(secret_sealed, ${sealed})` })
    .where('id', '=', id)
    .returning('secret_sealed')
    .executeTakeFirstOrThrow();
  return updated.secret_sealed;
}

/** Inserts or replaces the customer's one webhook; a webhook that has a secret keeps it. */
export function upsertWebhook(
  db: Database,
  customerId: number,
  values: Omit<Insertable<WebhooksTable>, 'customer_id' | 'secret_sealed'>,
  newSecretSealed: string,
): Promise<Webhook> {
  const keepSecret = sql<string>`coalesce(webhooks.secret_sealed, excluded.secret_sealed)`;
  return db
    .insertInto('webhooks')
    .values({ customer_id: customerId, ...values, secret_sealed: newSecretSealed })
    .onConflict((oc) => oc.column('customer_id').doUpdateSet({ ...values, secret_sealed: keepSecret }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function setSecret(db: Database, id: number, sealed: string, at: Date): Promise<void> {
  await db.updateTable('webhooks').set({ secret_sealed: sealed, updated_at: at }).where('id', '=', id).execute();
}
