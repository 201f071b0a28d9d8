// Received mail as the console's Inbound page shows it (docs/console.md §2 "Inbound", contract/inbound.ts):
// the searchable list and one message, its HTML sanitised and its files as signed links. The route
// (inbound-console.routes.ts) and the server-rendered page (page-bridge.ts) both call these.
import type { z } from 'zod';
import type { InboundMessageWire, InboundRowWire, inboundSearchBody } from '../../contract/inbound.ts';
import { isUuid } from '../../contract/fields.ts';
import type { PageMeta } from '../../contract/reports.ts';
import type { AppContext } from '../core/context.ts';
import { DomainError } from '../core/errors.ts';
import { transactionById } from '../reports/transactions.service.ts';
import { logsOfReceived, type WebhookLogWire } from '../webhooks/webhooks.service.ts';
import * as repo from './inbound.repository.ts';
import { signedLink } from './links.ts';
import { sanitizeReceivedHtml } from './sanitize-html.ts';

/** The console's page size (docs/console-reports.md §9: 10 where a list has no size of its own). */
const PAGE_SIZE = 10;
/** A search counts its matches this far (the pager then reads 'more than 1,000'). */
const COUNT_CAP = 1_000;

function authenticationOf(row: Pick<repo.InboundEmail, 'spf' | 'dkim' | 'dmarc' | 'flagged'>) {
  return { spf: row.spf, dkim: row.dkim, dmarc: row.dmarc, flagged: row.flagged };
}

function rowOf(row: repo.InboundListed, replyUuid: string | null): InboundRowWire {
  return {
    id: row.id,
    from: row.from_address,
    to: row.to_addresses,
    received_for: row.received_for,
    subject: row.subject,
    received_at: new Date(row.received_at).toISOString(),
    authentication: authenticationOf(row),
    attachment_count: row.attachments.length,
    in_reply_to_email_id: replyUuid,
  };
}

/** POST /v1/inbound/search's answer to a checked body; also the page's first rows, rendered on the server. */
export async function answerInboundSearch(
  ctx: AppContext,
  customerId: number,
  body: z.infer<typeof inboundSearchBody>,
): Promise<{ data: InboundRowWire[]; meta: Required<PageMeta> }> {
  const { page, search } = body;
  const [rows, counted] = await Promise.all([
    repo.searchInbound(ctx.db, customerId, { search, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE }),
    repo.countInbound(ctx.db, customerId, search, COUNT_CAP),
  ]);
  const replies = rows.map((r) => r.reply_to_transaction_id).filter((id): id is number => id !== null);
  const uuids = await repo.transactionUuids(ctx.db, [...new Set(replies.map(Number))]);
  const capped = counted > COUNT_CAP;
  return {
    data: rows.map((r) =>
      rowOf(r, r.reply_to_transaction_id === null ? null : (uuids.get(Number(r.reply_to_transaction_id)) ?? null)),
    ),
    meta: {
      current_page: page,
      per_page: PAGE_SIZE,
      total: counted,
      last_page: Math.max(1, Math.ceil(counted / PAGE_SIZE)),
      total_capped: capped,
    },
  };
}

async function requireInbound(ctx: AppContext, customerId: number, id: string): Promise<repo.InboundEmail> {
  const row = isUuid(id) ? await repo.findInbound(ctx.db, customerId, id.toLowerCase()) : undefined;
  if (!row) throw new DomainError('not_found', 'No received email with this id in this account');
  return row;
}

/**
 * The webhook requests of one of the customer's received messages (its `email.received` event), as
 * Webhook Logs shows them; not_found for a malformed, unknown or another account's id.
 */
export async function inboundWebhookRequests(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<{ data: WebhookLogWire[] }> {
  const row = await requireInbound(ctx, customerId, id);
  return { data: await logsOfReceived(ctx, customerId, row.id) };
}

/** One of the customer's received messages; not_found for a malformed, unknown or another account's id. */
export async function inboundMessage(ctx: AppContext, customerId: number, id: string): Promise<InboundMessageWire> {
  const row = await requireInbound(ctx, customerId, id);
  const reply =
    row.reply_to_transaction_id === null
      ? null
      : await transactionById(ctx, customerId, Number(row.reply_to_transaction_id));
  const html = row.html === null ? null : await sanitizeReceivedHtml(row.html);
  const raw = signedLink(ctx, row.id, 'raw');
  return {
    ...rowOf(row, reply?.trans_uuid ?? null),
    cc: row.cc_addresses,
    reply_to: row.reply_to_addresses,
    envelope_from: row.envelope_from,
    remote_ip: row.remote_ip,
    helo: row.helo,
    message_id: row.message_id,
    sent_at: row.sent_at ? new Date(row.sent_at).toISOString() : null,
    text: row.text,
    html: html?.html ?? null,
    remote_content_blocked: html?.remoteBlocked ?? 0,
    headers: row.headers,
    attachments: row.attachments.map(({ key: _key, ...a }) => {
      const link = signedLink(ctx, row.id, a.id);
      return {
        id: a.id,
        filename: a.filename,
        content_type: a.content_type,
        content_disposition: a.content_disposition,
        size: a.size,
        download_url: link.url,
        expires_at: link.expiresAt,
      };
    }),
    // as served: our Authentication-Results on top (inbound.service.ts openReceivedFile)
    raw: {
      download_url: raw.url,
      expires_at: raw.expiresAt,
      size: Buffer.byteLength(row.auth_headers) + Number(row.raw_size),
    },
    in_reply_to: reply,
  };
}

/** inboundMessage with its webhook requests, or null where it would be not_found (the page then answers 404). */
export async function findInboundMessage(
  ctx: AppContext,
  customerId: number,
  id: string,
): Promise<{ email: InboundMessageWire; webhookRequests: WebhookLogWire[] } | null> {
  try {
    const email = await inboundMessage(ctx, customerId, id);
    return { email, webhookRequests: await logsOfReceived(ctx, customerId, email.id) };
  } catch (err) {
    if (err instanceof DomainError && err.code === 'not_found') return null;
    throw err;
  }
}
