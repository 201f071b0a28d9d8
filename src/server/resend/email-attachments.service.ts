// A sent message's attachments read back in Resend's shape (contract/resend-attachments.ts): from the
// list stored at acceptance (API sends), or parsed from the source an SMTP client sent. Each gets an
// id derived from its message and place, and a download URL signed with TRANSACT_SECRET that
// works for ATTACHMENT_URL_SECONDS without the API key.
import { createHash } from 'node:crypto';
import { ATTACHMENT_URL_SECONDS, type ResendAttachment } from '../../contract/resend-attachments.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { checkLink, expiryAfter, type LinkSubject, signLink } from '../core/signed-links.ts';
import type { StoredAttachment } from '../db/schema.ts';
import * as repo from './emails.repository.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_SUCH_EMAIL = 'No email with this id in this account';
const NO_SUCH_ATTACHMENT = 'No attachment with this id in this email';

interface Part {
  id: string;
  filename: string | null;
  contentType: string;
  contentId: string | null;
  size: number;
  bytes: () => Buffer;
}

/** A stable id for the attachment at `index` of a message: a uuid (version 8) made from both. */
function attachmentId(messageId: number, index: number): string {
  const h = createHash('sha256').update(`email-attachment:${messageId}:${index}`).digest('hex');
  const variant = ((Number.parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

async function partsOf(ctx: AppContext, messageId: number): Promise<Part[]> {
  const message = await repo.attachmentSourceOf(ctx.db, messageId);
  const id = Number(message.id);
  if (message.raw) {
    const { simpleParser } = await import('mailparser'); // read only for a message sent by SMTP
    const parsed = await simpleParser(message.raw, { skipImageLinks: true, skipTextToHtml: true });
    return parsed.attachments.map((a, i) => ({
      id: attachmentId(id, i),
      filename: a.filename ?? null,
      contentType: a.contentType,
      contentId: a.contentId ? a.contentId.replace(/^<|>$/g, '') : null,
      size: a.content.length,
      bytes: () => a.content,
    }));
  }
  return ((message.attachments as StoredAttachment[] | null) ?? []).map((a, i) => ({
    id: attachmentId(id, i),
    filename: a.filename,
    contentType: a.content_type,
    contentId: a.content_id ?? null,
    size: Buffer.byteLength(a.content, 'base64'),
    bytes: () => Buffer.from(a.content, 'base64'),
  }));
}

const subjectOf = (emailId: string, id: string): LinkSubject => ({
  purpose: 'email-attachment-download',
  parts: [emailId, id],
});

function wireOf(ctx: AppContext, emailId: string, part: Part, now: Date): ResendAttachment {
  const { query, expiresAt } = signLink(
    ctx.config.secret!,
    subjectOf(emailId, part.id),
    expiryAfter(ATTACHMENT_URL_SECONDS, now),
  );
  return {
    id: part.id,
    ...(part.filename ? { filename: part.filename } : {}),
    size: part.size,
    content_type: part.contentType,
    content_disposition: part.contentId ? 'inline' : 'attachment',
    ...(part.contentId ? { content_id: part.contentId } : {}),
    download_url: `${ctx.config.publicUrl}/v1/emails/${emailId}/attachments/${part.id}/download?${query}`,
    expires_at: expiresAt,
  };
}

/** The attachments of the account's message one of whose recipients `emailId` names; 404 otherwise. */
async function partsOfEmail(ctx: AppContext, customerId: number, emailId: string) {
  const uuid = emailId.toLowerCase();
  const tx = UUID.test(uuid) ? await repo.findTransaction(ctx.db, customerId, uuid) : undefined;
  if (!tx) throw new DomainError('not_found', NO_SUCH_EMAIL);
  return { uuid, parts: await partsOf(ctx, Number(tx.message_id)) };
}

/** GET /resend/emails/{email_id}/attachments: a page of them, in the order they were sent. */
export async function listAttachments(
  ctx: AppContext,
  customerId: number,
  emailId: string,
  page: { limit: number; after?: string; before?: string },
  now = new Date(),
): Promise<{ object: 'list'; has_more: boolean; data: ResendAttachment[] }> {
  const { uuid, parts } = await partsOfEmail(ctx, customerId, emailId);
  const at = (id: string) => {
    const i = parts.findIndex((p) => p.id === id.toLowerCase());
    if (i < 0) throw new DomainError('not_found', `${NO_SUCH_ATTACHMENT} (the cursor)`);
    return i;
  };
  let from = 0;
  let to = parts.length;
  if (page.after !== undefined) from = at(page.after) + 1;
  if (page.before !== undefined) {
    to = at(page.before);
    from = Math.max(0, to - page.limit);
  }
  const shown = parts.slice(from, Math.min(to, from + page.limit));
  const has_more = page.before !== undefined ? from > 0 : from + shown.length < to;
  return { object: 'list', has_more, data: shown.map((p) => wireOf(ctx, uuid, p, now)) };
}

/** GET /resend/emails/{email_id}/attachments/{id}: one of them, with a fresh download URL. */
export async function getAttachment(
  ctx: AppContext,
  customerId: number,
  emailId: string,
  id: string,
  now = new Date(),
): Promise<ResendAttachment & { object: 'attachment' }> {
  const { uuid, parts } = await partsOfEmail(ctx, customerId, emailId);
  const part = parts.find((p) => p.id === id.toLowerCase());
  if (!part) throw new DomainError('not_found', NO_SUCH_ATTACHMENT);
  return { object: 'attachment', ...wireOf(ctx, uuid, part, now) };
}

/**
 * GET /v1/emails/{email_id}/attachments/{id}/download: the bytes, when `expires` and `signature` are
 * the ones we signed and not past; 403 otherwise, 404 when the message or attachment is gone.
 */
export async function downloadAttachment(
  ctx: AppContext,
  emailId: string,
  id: string,
  link: { expires: string; signature: string },
  now = new Date(),
): Promise<{ filename: string; bytes: Buffer }> {
  const expires = /^\d{1,12}$/.test(link.expires) ? Number(link.expires) : Number.NaN;
  const uuid = emailId.toLowerCase();
  const state = Number.isFinite(expires)
    ? checkLink(ctx.config.secret!, subjectOf(uuid, id.toLowerCase()), { expires, signature: link.signature }, now)
    : 'invalid';
  if (state === 'invalid') throw new DomainError('forbidden', 'This download link is not valid');
  if (state === 'expired') throw new DomainError('forbidden', 'This download link has expired');
  const tx = UUID.test(uuid) ? await repo.findTransactionByUuid(ctx.db, uuid) : undefined;
  const part = tx && (await partsOf(ctx, Number(tx.message_id))).find((p) => p.id === id.toLowerCase());
  if (!part) throw new DomainError('not_found', NO_SUCH_ATTACHMENT);
  return { filename: part.filename ?? 'attachment', bytes: part.bytes() };
}
