// Resend's webhook events (docs/webhooks.md "Resend's events"): which of our recorded events a
// `resend` webhook hears of, under which name, and the `{ type, created_at, data }` payload it gets.
// The names are one table, EVENT_NAMES; an inbound message's `email.received` is one more row.
import type { ResendWebhookEvent } from '../../contract/values.ts';

/** What the payload tells of the message (payload.ts's PayloadTransaction has these and more). */
interface Sent {
  uuid: string;
  message_id_header: string;
  created_at?: Date;
  from_email: string;
  from_name: string | null;
  to_email: string;
  subject: string;
  tags: string[] | null;
}

/**
 * Our event → Resend's. Resend's `email.sent` is "accepted and handed to delivery": our `queued`
 * (at acceptance, or when a scheduled message is released); `email.delivered` is the recipient's
 * server accepting it: our `delivered` (its twin `sent` is not reported again). `deferred` is
 * `email.delivery_delayed`. A send to a suppressed address ends `failed` with a `suppressed:` reason
 * today, or with a `suppressed` event: both are `email.suppressed` (resendNameOf).
 */
export const EVENT_NAMES: Readonly<Record<string, ResendWebhookEvent>> = {
  queued: 'email.sent',
  scheduled: 'email.scheduled',
  delivered: 'email.delivered',
  deferred: 'email.delivery_delayed',
  complaint: 'email.complained',
  bounced: 'email.bounced',
  open: 'email.opened',
  click: 'email.clicked',
  failed: 'email.failed',
  suppressed: 'email.suppressed',
};

/** A refusal at acceptance: the message never went to delivery, so its `queued` is no `email.sent`. */
const REFUSED_AT_ONCE: ReadonlySet<ResendWebhookEvent> = new Set(['email.failed', 'email.suppressed']);

/** Resend's name for one recorded event, or null when a `resend` webhook does not hear of it. */
export function resendNameOf(
  type: string,
  data: Record<string, unknown> | null | undefined,
): ResendWebhookEvent | null {
  if (!Object.hasOwn(EVENT_NAMES, type)) return null;
  const reason = data?.reason;
  // sending.service.ts refuses a suppressed recipient at acceptance with this reason
  if (type === 'failed' && typeof reason === 'string' && reason.startsWith('suppressed')) return 'email.suppressed';
  return EVENT_NAMES[type];
}

/**
 * The Resend names of a batch of events being recorded together (null: not reported). A message
 * refused at acceptance records `queued` and its failure in one batch: only the failure is reported.
 */
export function resendNamesOf(
  events: readonly { type: string; transaction_id: number; data?: Record<string, unknown> | null }[],
): (ResendWebhookEvent | null)[] {
  const names = events.map((e) => resendNameOf(e.type, e.data));
  const refused = new Set(events.filter((_, i) => REFUSED_AT_ONCE.has(names[i]!)).map((e) => e.transaction_id));
  return names.map((name, i) => (name === 'email.sent' && refused.has(events[i].transaction_id) ? null : name));
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : v == null ? null : String(v));
const address = (email: string, name: string | null) => (name ? `${name} <${email}>` : email);

/** `name:value` tags (how a Resend send stores them) as Resend's object; a plain tag has an empty value. */
function tagsOf(tags: string[] | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tag of tags ?? []) {
    const colon = tag.indexOf(':');
    if (colon < 0) out[tag] = '';
    else out[tag.slice(0, colon)] = tag.slice(colon + 1);
  }
  return out;
}

/** The event's own object in `data`, as Resend names it. */
function ownFields(type: string, at: Date, d: Record<string, unknown>): Record<string, unknown> {
  switch (type) {
    case 'email.bounced': {
      const hard = (d.bounce_type ?? d.type) === 'hard';
      return {
        bounce: {
          // Resend's words for a hard and a soft bounce
          type: hard ? 'Permanent' : 'Transient',
          subType: text(d.category) ?? (hard ? 'General' : 'Undetermined'),
          message: text(d.reason ?? d.reply) ?? '',
        },
      };
    }
    case 'email.clicked':
      return {
        click: {
          ipAddress: text(d.ip) ?? '',
          link: text(d.url) ?? '',
          timestamp: at.toISOString(),
          userAgent: text(d.user_agent) ?? '',
        },
      };
    case 'email.failed':
      return { failed: { reason: text(d.reason ?? d.reply) ?? '' } };
    case 'email.suppressed':
      return { suppressed: { type: 'OnAccountSuppressionList', message: text(d.reason) ?? 'suppressed' } };
    default:
      return {};
  }
}

/**
 * The payload of a `resend` webhook: `{ type, created_at, data }` with Resend's fields; `type` is
 * already Resend's name (the outbox stores it so).
 */
export function resendPayload(
  event: { type: string; at: Date; data: Record<string, unknown> | null },
  tx: Sent,
): Record<string, unknown> {
  const created_at = event.at.toISOString();
  return {
    type: event.type,
    created_at,
    data: {
      // a message's id on /resend/emails is any of its recipients' uuids: this recipient's
      email_id: tx.uuid,
      message_id: tx.message_id_header,
      created_at: (tx.created_at ?? event.at).toISOString(),
      from: address(tx.from_email, tx.from_name),
      to: [tx.to_email],
      subject: tx.subject,
      tags: tagsOf(tx.tags),
      ...ownFields(event.type, event.at, event.data ?? {}),
    },
  };
}
