// Messages read back in Resend's shape (contract/resend.ts): one message by any of its
// transactions' uuids, or cursor pages of the account's messages, newest first. A message's id is
// the uuid of its first recipient (what a send answered); its state is that recipient's.
import type { ResendEmail, ResendLastEvent, ResendListedEmail } from '../../contract/resend.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import type { Address, EventType } from '../db/schema.ts';
import * as repo from './emails.repository.ts';

const NO_SUCH_EMAIL = 'No email with this id in this account';

/** Resend's name for the state an event leaves a message in. */
const LAST_EVENT: Record<(typeof repo.STATE_EVENTS)[number], ResendLastEvent> = {
  scheduled: 'scheduled',
  canceled: 'canceled',
  queued: 'queued',
  sent: 'sent',
  delivered: 'delivered',
  deferred: 'delivery_delayed',
  bounced: 'bounced',
  failed: 'failed',
  complaint: 'complained',
  open: 'opened',
  click: 'clicked',
};

function lastEventOf(event: { type: EventType; reason: string | null } | undefined): ResendLastEvent {
  if (!event) return 'queued';
  // a recipient on the suppression list is refused at acceptance with this reason (sending.service.ts)
  if (event.type === 'failed' && event.reason?.startsWith('suppressed')) return 'suppressed';
  return event.type in LAST_EVENT ? LAST_EVENT[event.type as keyof typeof LAST_EVENT] : 'queued';
}

const addressText = (a: Address) => (a.name ? `${a.name} <${a.email}>` : a.email);
const listOf = (addresses: Address[] | null) => (addresses?.length ? addresses.map(addressText) : null);
const iso = (at: Date | string | null) => (at === null ? null : new Date(at).toISOString());

/** `name:value` tags (how a Resend send stores them) as Resend's objects; a plain tag has an empty value. */
function tagsOf(tags: string[] | null): { name: string; value: string }[] {
  return (tags ?? []).map((tag) => {
    const colon = tag.indexOf(':');
    return colon < 0 ? { name: tag, value: '' } : { name: tag.slice(0, colon), value: tag.slice(colon + 1) };
  });
}

/** The fields of the list and of a single message, for `message` and the recipient `first` names. */
function listed(
  message: repo.StoredMessage,
  recipients: repo.Recipient[],
  named: repo.Recipient,
  last: ResendLastEvent,
): ResendListedEmail {
  const to = message.to_header ?? [];
  const cc = message.cc_header ?? [];
  const shown = new Set([...to, ...cc].map((a) => a.email.toLowerCase()));
  const bcc = recipients.filter((r) => !shown.has(r.to_email.toLowerCase())).map((r) => r.to_email);
  return {
    id: recipients[0].uuid,
    from: addressText({ email: message.from_email, name: message.from_name }),
    to: to.map(addressText),
    cc: listOf(cc),
    bcc: bcc.length ? bcc : null,
    reply_to: listOf(message.reply_to),
    subject: message.subject,
    created_at: iso(message.created_at)!,
    scheduled_at: iso(named.scheduled_at),
    last_event: last,
    message_id: named.message_id_header,
  };
}

/** The HTML and text of a message: as stored, or read from the source an SMTP client sent. */
async function bodiesOf(message: repo.StoredMessage): Promise<{ html: string | null; text: string | null }> {
  if (!message.raw) return { html: message.html, text: message.text };
  const { simpleParser } = await import('mailparser'); // read only for a message sent by SMTP
  const parsed = await simpleParser(message.raw, { skipImageLinks: true, skipTextToHtml: true });
  return { html: parsed.html === false ? null : (parsed.html ?? null), text: parsed.text ?? null };
}

/** GET /resend/emails/{id}: the account's message one of whose recipients `id` names; 404 otherwise. */
export async function getEmail(ctx: AppContext, customerId: number, id: string): Promise<ResendEmail> {
  const tx = await repo.findTransaction(ctx.db, customerId, id.toLowerCase());
  if (!tx) throw new DomainError('not_found', NO_SUCH_EMAIL);
  const [message] = await repo.loadMessages(ctx.db, [tx.message_id]);
  const recipients = await repo.recipientsOf(ctx.db, [tx.message_id]);
  const named = recipients.find((r) => r.id === tx.id)!;
  const last = lastEventOf((await repo.lastStateEvents(ctx.db, [tx.id])).get(Number(tx.id)));
  return {
    object: 'email',
    ...listed(message, recipients, named, last),
    ...(await bodiesOf(message)),
    tags: tagsOf(message.tags),
  };
}

/** The message a cursor id names (404 when it is not this account's). */
async function cursorOf(ctx: AppContext, customerId: number, id: string | undefined): Promise<number | undefined> {
  if (id === undefined) return undefined;
  const tx = await repo.findTransaction(ctx.db, customerId, id.toLowerCase());
  if (!tx) throw new DomainError('not_found', `${NO_SUCH_EMAIL} (the cursor)`);
  return Number(tx.message_id);
}

/** GET /resend/emails: a cursor page of the account's messages, newest first. */
export async function listEmails(
  ctx: AppContext,
  customerId: number,
  query: { limit: number; after?: string; before?: string },
): Promise<{ object: 'list'; has_more: boolean; data: ResendListedEmail[] }> {
  const after = await cursorOf(ctx, customerId, query.after);
  const before = await cursorOf(ctx, customerId, query.before);
  const ids = await repo.pageOfMessageIds(ctx.db, customerId, { limit: query.limit, after, before });
  const has_more = ids.length > query.limit;
  const page = ids.slice(0, query.limit);
  if (before !== undefined) page.reverse(); // read oldest first: newest first again
  const messages = new Map((await repo.loadMessages(ctx.db, page)).map((m) => [Number(m.id), m]));
  const recipients = Map.groupBy(await repo.recipientsOf(ctx.db, page), (r) => Number(r.message_id));
  const firsts = page.map((id) => recipients.get(id)![0]);
  const last = await repo.lastStateEvents(
    ctx.db,
    firsts.map((r) => Number(r.id)),
  );
  return {
    object: 'list',
    has_more,
    data: page.map((id, i) =>
      listed(messages.get(id)!, recipients.get(id)!, firsts[i], lastEventOf(last.get(Number(firsts[i].id)))),
    ),
  };
}
