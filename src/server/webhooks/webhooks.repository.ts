// The webhooks a customer configures (docs/console.md §3 Webhook; docs/webhooks.md "Several
// webhooks"): on Settings or with the Resend-compatible API. Plain queries, always scoped to one
// customer or to a webhook found through one.
import { type Insertable, type Selectable, type Updateable, sql } from 'kysely';
import type { Database } from '../db/database.ts';
import type { WebhooksTable } from '../db/schema.ts';

export type Webhook = Selectable<WebhooksTable>;

/** The customer's webhooks, oldest first. */
export async function listWebhooks(db: Database, customerId: number): Promise<Webhook[]> {
  return db.selectFrom('webhooks').selectAll().where('customer_id', '=', customerId).orderBy('id').execute();
}

/** One of the customer's webhooks by its uuid (the caller parsed it). */
export function findWebhookByUuid(db: Database, customerId: number, uuid: string): Promise<Webhook | undefined> {
  return db
    .selectFrom('webhooks')
    .selectAll()
    .where('customer_id', '=', customerId)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
}

/**
 * A cursor page of the customer's webhooks, newest first: up to `limit + 1` older than `after` or,
 * with `before`, newer than it (then oldest first), so the caller can tell whether more follow.
 */
export function pageOfWebhooks(
  db: Database,
  customerId: number,
  page: { limit: number; after?: number; before?: number },
): Promise<Webhook[]> {
  let query = db.selectFrom('webhooks').selectAll().where('customer_id', '=', customerId);
  if (page.before !== undefined)
    return query
      .where('id', '>', page.before)
      .orderBy('id', 'asc')
      .limit(page.limit + 1)
      .execute();
  if (page.after !== undefined) query = query.where('id', '<', page.after);
  return query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
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

export function insertWebhook(db: Database, values: Insertable<WebhooksTable>): Promise<Webhook> {
  return db.insertInto('webhooks').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Changes a webhook; its secret stays unless `changes` names one. */
export function updateWebhook(db: Database, id: number, changes: Updateable<WebhooksTable>): Promise<Webhook> {
  return db.updateTable('webhooks').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** Deletes a webhook; its logged requests stay, with no webhook (the worker fails any still pending). */
export async function deleteWebhook(db: Database, id: number): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export async function setSecret(db: Database, id: number, sealed: string, at: Date): Promise<void> {
  await db.updateTable('webhooks').set({ secret_sealed: sealed, updated_at: at }).where('id', '=', id).execute();
}
