// What a webhook receives (docs/webhooks.md): the `standard` field set
// `{ type: 'email.<event>', created_at, data }` and the flat `legacy` one with the console's wire
// names (docs/console.md §3 Transaction: trans_uuid, trans_to_email, tm_subject…), built from the
// transaction as it was sent and the event's own fields; and Resend's for a `resend` webhook
// (resend-events.ts).
import { resendPayload } from './resend-events.ts';

export interface PayloadTransaction {
  uuid: string;
  message_id_header: string;
  group_uuid: string;
  group_name: string;
  from_email: string;
  from_name: string | null;
  to_email: string;
  to_name: string | null;
  subject: string;
  tags: string[] | null;
  metadata: Record<string, unknown> | null;
  /** when the message was accepted (Resend's data.created_at) */
  created_at?: Date;
}

export interface PayloadEvent {
  type: string;
  at: Date;
  data: Record<string, unknown> | null;
}

type Flat = Record<string, string | number | boolean | null>;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));
/** A time the event data holds (a Date written as JSON text, or a report's date) as ISO 8601 UTC. */
const iso = (v: unknown): string | null => {
  if (typeof v !== 'string' && !(v instanceof Date)) return null;
  const at = new Date(v);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
};

/**
 * What happened on the wire, recorded by direct MX delivery: the MX host and address that
 * answered, TLS version and cipher (null: none), the MTA-STS mode that applied. Flat, so the
 * legacy field set and query-string verbs carry it as they are; null through SMTP_RELAY_URL.
 */
const wireFields = (d: Record<string, unknown>): Flat => ({
  mx_host: str(d.mx_host),
  mx_address: str(d.mx_address),
  tls_version: str(d.tls_version),
  tls_cipher: str(d.tls_cipher),
  mta_sts: str(d.mta_sts),
});

/**
 * Whether a machine (a mail privacy proxy, a link scanner) made the open or click, and the rule that
 * said so (src/server/tracking/machine-rules.ts); false and null for a person's.
 */
const machineFields = (d: Record<string, unknown>): Flat => ({
  machine: d.machine === true,
  machine_rule: d.machine === true ? str(d.machine_rule) : null,
});

/** The event's own fields (SMTP reply, bounce, complaint, client, link), the same in both field sets. */
function eventFields(event: PayloadEvent): Flat {
  const d = event.data ?? {};
  switch (event.type) {
    case 'sent':
      return { smtp_reply: str(d.reply), ...wireFields(d) };
    // the first deferral's event (src/server/webhooks/outbox.ts), as the delivery worker records it
    case 'delayed':
      return {
        smtp_reply: str(d.reply),
        attempt: typeof d.attempt === 'number' ? d.attempt : null,
        next_attempt_at: iso(d.next_attempt_at),
        category: str(d.category),
        ...wireFields(d),
      };
    case 'failed':
      return {
        smtp_reply: str(d.reply ?? d.reason),
        bounce_type: str(d.bounce_type),
        category: str(d.category),
        ...wireFields(d),
      };
    case 'bounce':
      return {
        bounce_type: str(d.bounce_type ?? d.type),
        bounce_reason: str(d.reason ?? d.reply),
        smtp_status: str(d.status),
        category: str(d.category),
      };
    // a feedback report (RFC 5965 §3.1): its Feedback-Type, User-Agent and Arrival-Date, recorded on
    // the `complaint` event as feedback_type, user_agent and arrival_date (bounces/complaints.service.ts)
    case 'complaint':
      return { feedback_type: str(d.feedback_type), user_agent: str(d.user_agent), arrival_date: iso(d.arrival_date) };
    case 'open':
      return { user_agent: str(d.user_agent), ip: str(d.ip), ...machineFields(d) };
    case 'click':
      return { url: str(d.url), user_agent: str(d.user_agent), ip: str(d.ip), ...machineFields(d) };
    case 'unsubscribe':
    case 'resubscribe':
      return { via: str(d.via) };
    default:
      return {};
  }
}

export const TEST_MESSAGE = 'This is a test event from Transact.';

/** The `standard` payload of an event (or of the test event when `tx` is null). */
export function standardPayload(event: PayloadEvent, tx: PayloadTransaction | null): Record<string, unknown> {
  const base = { type: `email.${event.type}`, created_at: event.at.toISOString() };
  if (!tx) return { ...base, data: { message: TEST_MESSAGE } };
  return {
    ...base,
    data: {
      transaction_id: tx.uuid,
      message_id: tx.message_id_header,
      group: { uuid: tx.group_uuid, name: tx.group_name },
      from: { email: tx.from_email, name: tx.from_name },
      to: { email: tx.to_email, name: tx.to_name },
      subject: tx.subject,
      tags: tx.tags ?? [],
      metadata: tx.metadata ?? {},
      ...eventFields(event),
    },
  };
}

/** The `legacy` payload: one flat object with the console's wire names and a unix timestamp. */
export function legacyPayload(event: PayloadEvent, tx: PayloadTransaction | null): Flat {
  const base = { event: event.type, timestamp: Math.floor(event.at.getTime() / 1000) };
  if (!tx) return { ...base, message: TEST_MESSAGE };
  return {
    ...base,
    trans_uuid: tx.uuid,
    message_id: tx.message_id_header,
    trans_group_uuid: tx.group_uuid,
    trans_group_name: tx.group_name,
    tm_from_email: tx.from_email,
    tm_from_name: tx.from_name,
    trans_to_email: tx.to_email,
    trans_to_name: tx.to_name,
    tm_subject: tx.subject,
    tags: (tx.tags ?? []).join(','),
    // flat by design: metadata travels as JSON text
    metadata: JSON.stringify(tx.metadata ?? {}),
    ...eventFields(event),
  };
}

export function buildPayload(
  fieldSet: string,
  event: PayloadEvent,
  tx: PayloadTransaction | null,
): Record<string, unknown> {
  if (fieldSet === 'resend')
    return tx
      ? resendPayload(event, tx)
      : { type: 'email.test', created_at: event.at.toISOString(), data: { message: TEST_MESSAGE } };
  return fieldSet === 'legacy' ? legacyPayload(event, tx) : standardPayload(event, tx);
}

/**
 * GET and DELETE carry the payload as query parameters: nested keys joined with dots
 * (`data.to.email`), arrays as comma-separated text, null as the empty string.
 */
export function flatten(
  value: Record<string, unknown>,
  prefix = '',
  into: [string, string][] = [],
): [string, string][] {
  for (const [key, item] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (item !== null && typeof item === 'object' && !Array.isArray(item))
      flatten(item as Record<string, unknown>, name, into);
    else into.push([name, Array.isArray(item) ? item.join(',') : item == null ? '' : String(item)]);
  }
  return into;
}
