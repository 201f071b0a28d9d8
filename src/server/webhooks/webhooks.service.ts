// Webhooks as the console sees them (spec core §3 Webhook, §7 GET /v1/webhooks): the one mapping
// from a row to the wire, with the basic-auth details decrypted so the webhook modal can show them.
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { secretsOf } from '../credentials/credentials.service.ts';
import type { Secrets } from '../secrets.ts';
import * as repo from './webhooks.repository.ts';

export interface WebhookWire {
  url: string;
  verb: string;
  status: string;
  /** spec §5: an empty authentication type is sent as null */
  auth_type: string | null;
  auth_details: { username: string; password: string } | null;
  event_types: string[];
  field_set: string;
  /** ISO 8601 */
  created_timestamp: string;
}

const authDetails = z.object({ username: z.string(), password: z.string() });

export function webhookToWire(secrets: Secrets, row: repo.Webhook): WebhookWire {
  return {
    url: row.url,
    verb: row.verb,
    status: row.status,
    auth_type: row.auth_type || null,
    auth_details: row.auth_details_sealed ? authDetails.parse(JSON.parse(secrets.decrypt(row.auth_details_sealed))) : null,
    event_types: row.event_types,
    field_set: row.field_set,
    created_timestamp: row.created_at.toISOString(),
  };
}

/** The signed-in customer's webhooks, mapped for the console. */
export async function webhooksForConsole(ctx: AppContext, customerId: number): Promise<WebhookWire[]> {
  const rows = await repo.listWebhooks(ctx.db, customerId);
  const secrets = secretsOf(ctx);
  return rows.map((row) => webhookToWire(secrets, row));
}
