// Received mail as the API answers it (contract/resend-receiving.ts): pages and single messages of
// one account, their attachments, and the signed, expiring links that serve the raw message and the
// attachments (docs/receiving.md). The retention purge lives here too.
import { PassThrough, type Readable } from 'node:stream';
import type { ReceivedAttachmentData, ReceivedEmail, ReceivedListed } from '../../contract/resend-receiving.ts';
import { isUuid } from '../../contract/fields.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import type { InboundAttachmentRow } from '../db/schema.ts';
import * as repo from './inbound.repository.ts';
import { signedLink, validSignature } from './links.ts';
import { headersByName } from './mime.ts';
import { deleteInboundFiles, inboundFolder, rawKey } from './receive.ts';

const NOT_FOUND = 'No received email with this id in this account';
const PURGE_BATCH = 200;
/** Files looked up against the rows at a time by the orphan sweep. */
const SWEEP_BATCH = 500;

const nullIfEmpty = (list: string[]) => (list.length ? list : null);

function listedOf(row: repo.InboundEmail, replyUuid: string | null): ReceivedListed {
  return {
    id: row.id,
    from: row.from_address,
    to: row.to_addresses,
    cc: nullIfEmpty(row.cc_addresses),
    bcc: nullIfEmpty(row.bcc_addresses),
    reply_to: nullIfEmpty(row.reply_to_addresses),
    received_for: row.received_for,
    subject: row.subject,
    message_id: row.message_id ?? '',
    created_at: new Date(row.received_at).toISOString(),
    attachments: row.attachments.map(({ key: _key, ...a }) => a),
    authentication: { spf: row.spf, dkim: row.dkim, dmarc: row.dmarc, flagged: row.flagged },
    in_reply_to_email_id: replyUuid,
  };
}

async function replyUuids(ctx: AppContext, rows: repo.InboundEmail[]): Promise<Map<number, string>> {
  const ids = rows.map((r) => r.reply_to_transaction_id).filter((id): id is number => id !== null);
  return repo.transactionUuids(ctx.db, [...new Set(ids)]);
}

async function requireEmail(ctx: AppContext, customerId: number, id: string): Promise<repo.InboundEmail> {
  const row = isUuid(id) ? await repo.findInbound(ctx.db, customerId, id) : undefined;
  if (!row) throw new DomainError('not_found', NOT_FOUND);
  return row;
}

/** A page of the account's received mail, newest first (Resend's cursor pages). */
export async function listReceived(
  ctx: AppContext,
  customerId: number,
  query: { limit: number; after?: string; before?: string },
): Promise<{ object: 'list'; has_more: boolean; data: ReceivedListed[] }> {
  const cursorId = query.after ?? query.before;
  const cursor = cursorId ? await requireEmail(ctx, customerId, cursorId) : undefined;
  const rows = await repo.pageInbound(ctx.db, customerId, {
    limit: query.limit + 1,
    after: query.after ? cursor : undefined,
    before: query.before ? cursor : undefined,
  });
  const hasMore = rows.length > query.limit;
  const page = query.before ? rows.slice(rows.length - Math.min(rows.length, query.limit)) : rows.slice(0, query.limit);
  const uuids = await replyUuids(ctx, page);
  return {
    object: 'list',
    has_more: hasMore,
    data: page.map((r) =>
      listedOf(r, r.reply_to_transaction_id ? (uuids.get(r.reply_to_transaction_id) ?? null) : null),
    ),
  };
}

/** One received message with its text, HTML, headers and a link to the raw message. */
export async function getReceived(ctx: AppContext, customerId: number, id: string): Promise<ReceivedEmail> {
  const row = await requireEmail(ctx, customerId, id);
  const uuids = await replyUuids(ctx, [row]);
  const raw = signedLink(ctx, row.id, 'raw');
  return {
    object: 'email',
    ...listedOf(row, row.reply_to_transaction_id ? (uuids.get(row.reply_to_transaction_id) ?? null) : null),
    html: row.html,
    text: row.text,
    headers: headersByName(row.headers),
    raw: { download_url: raw.url, expires_at: raw.expiresAt },
  };
}

function attachmentData(ctx: AppContext, emailId: string, a: InboundAttachmentRow): ReceivedAttachmentData {
  const link = signedLink(ctx, emailId, a.id);
  const { key: _key, ...fields } = a;
  return { ...fields, download_url: link.url, expires_at: link.expiresAt };
}

export async function listReceivedAttachments(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<{ object: 'list'; has_more: boolean; data: ReceivedAttachmentData[] }> {
  const row = await requireEmail(ctx, customerId, id);
  return { object: 'list', has_more: false, data: row.attachments.map((a) => attachmentData(ctx, row.id, a)) };
}

export async function getReceivedAttachment(
  ctx: AppContext,
  customerId: number,
  id: string,
  attachmentId: string,
): Promise<ReceivedAttachmentData & { object: 'attachment' }> {
  const row = await requireEmail(ctx, customerId, id);
  const found = row.attachments.find((a) => a.id === attachmentId);
  if (!found) throw new DomainError('not_found', 'No attachment with this id in this email');
  return { object: 'attachment', ...attachmentData(ctx, row.id, found) };
}

/** What a signed link serves: the bytes, their type and the name to save them as. */
export interface ReceivedFile {
  body: Readable;
  contentType: string;
  filename: string;
  size: number;
}

/** The file a signed link names; 404 for a wrong or expired link or a purged message. */
export async function openReceivedFile(
  ctx: AppContext,
  link: { id: string; file: string; expires: number; signature: string },
): Promise<ReceivedFile> {
  const gone = () => new DomainError('not_found', 'This link is wrong or has expired');
  if (!isUuid(link.id) || !validSignature(ctx, link)) throw gone();
  const row = await repo.findInboundFiles(ctx.db, link.id);
  if (!row) throw gone();
  if (link.file === 'raw') {
    const stored = await ctx.storage.get(rawKey(link.id));
    if (!stored) throw gone();
    // RFC 8601 §5: the receiver's Authentication-Results go on top of the message
    const body = new PassThrough();
    body.write(row.auth_headers);
    stored.pipe(body);
    stored.on('error', (err) => body.destroy(err));
    const size = Buffer.byteLength(row.auth_headers) + Number(row.raw_size);
    return { body, contentType: 'message/rfc822', filename: `${link.id}.eml`, size };
  }
  const attachment = row.attachments.find((a) => a.id === link.file);
  const stored = attachment ? await ctx.storage.get(attachment.key) : undefined;
  if (!attachment || !stored) throw gone();
  // served as bytes to save, never as a type a browser would render on our origin
  return {
    body: stored,
    contentType: 'application/octet-stream',
    filename: attachment.filename ?? attachment.id,
    size: attachment.size,
  };
}

/** Deletes received mail older than INBOUND_RETENTION_DAYS with its files; answers how many. */
export async function purgeReceived(ctx: AppContext, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - ctx.config.inboundRetentionDays * 86_400_000);
  let purged = 0;
  for (;;) {
    const rows = await repo.expiredInbound(ctx.db, before, PURGE_BATCH);
    if (!rows.length) return purged;
    for (const row of rows)
      await deleteInboundFiles(
        ctx,
        row.id,
        row.attachments.map((a) => a.key),
      );
    await repo.deleteInbound(
      ctx.db,
      rows.map((r) => r.id),
    );
    purged += rows.length;
    if (rows.length < PURGE_BATCH) return purged;
  }
}

/** The message id a stored key of received mail belongs to (`inbound/<id>/…`), when it is a uuid. */
function messageIdOf(key: string): string | null {
  const id = key.split('/')[1] ?? '';
  return isUuid(id) ? id.toLowerCase() : null;
}

/**
 * Removes stored files of received mail that no row names and that are older than `graceMs`. A
 * message's files are written before its row commits (docs/receiving.md), so a process killed in
 * between leaves them behind; a message being received now is younger than the grace. Answers how
 * many files were removed.
 */
export async function sweepOrphanInboundFiles(
  ctx: AppContext,
  graceMs = 60 * 60 * 1000,
  now = new Date(),
): Promise<number> {
  let removed = 0;
  let batch: string[] = [];
  const flush = async () => {
    const ids = [...new Set(batch.map(messageIdOf).filter((id): id is string => id !== null))];
    const named = new Set<string>();
    for (const row of await repo.inboundFilesOf(ctx.db, ids)) {
      named.add(rawKey(row.id));
      for (const a of row.attachments) named.add(a.key);
    }
    const orphans = batch.filter((key) => !named.has(key));
    for (const key of orphans) await ctx.storage.delete(key);
    removed += orphans.length;
    batch = [];
  };
  for await (const object of ctx.storage.list(inboundFolder(''))) {
    if (now.getTime() - object.modifiedAt.getTime() < graceMs) continue;
    batch.push(object.key);
    if (batch.length >= SWEEP_BATCH) await flush();
  }
  if (batch.length) await flush();
  return removed;
}
