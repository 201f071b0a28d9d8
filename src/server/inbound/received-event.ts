// The `data` of Resend's `email.received` event for one received message (docs/receiving.md "To a
// webhook"): the message's fields for every webhook, and for a webhook that asks for the full message
// its text, HTML, headers (by name, and in order as a list), attachments (inline in base64 while they
// total at most the webhook's limit, else as signed links) and a link to the raw message. Built while
// the message's row is written, in the same transaction (receive.ts), so the payload is complete
// before the event commits.
import type { AppContext } from '../core/context.ts';
import type { InboundAttachmentRow } from '../db/schema.ts';
import { signedLink } from './links.ts';
import { headersByName, type ParsedInbound } from './mime.ts';

/** A message as the event tells of it: its id, when it came, what was parsed and its envelope recipients. */
export interface ReceivedMessage {
  id: string;
  at: Date;
  parsed: ParsedInbound;
  receivedFor: string[];
}

const fieldsOf = ({ id, filename, content_type, content_disposition, content_id }: InboundAttachmentRow) => ({
  id,
  filename,
  content_type,
  content_disposition,
  content_id,
});

/** The `data` of Resend's `email.received` event: what the message is, without its content. */
export function receivedEventData(m: ReceivedMessage) {
  return {
    email_id: m.id,
    created_at: m.at.toISOString(),
    from: m.parsed.from,
    to: m.parsed.to,
    cc: m.parsed.cc,
    bcc: m.parsed.bcc,
    received_for: m.receivedFor,
    message_id: m.parsed.messageId ?? '',
    subject: m.parsed.subject,
    attachments: m.parsed.attachments.map(fieldsOf),
  };
}

/** A stored file whole; more than `maxBytes` (more than was recorded when it was stored) is an error. */
async function readWhole(ctx: AppContext, key: string, maxBytes: number): Promise<Buffer> {
  const stream = await ctx.storage.get(key);
  if (!stream) throw new Error(`stored attachment ${key} is missing`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new Error(`stored attachment ${key} is longer than recorded`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The data for a webhook that asks for the full message, by its inline limit: `full(limit)`. The
 * links work until the message is deleted (INBOUND_RETENTION_DAYS after it came), since the payload is
 * kept and sent again by retries and replays. The attachments are read at most once, for the first
 * limit that lets them inline: memory holds their total, never more than that limit.
 */
export function fullReceivedData(
  ctx: AppContext,
  m: ReceivedMessage,
): (inlineMaxBytes: number) => Promise<Record<string, unknown>> {
  const expires = Math.floor(m.at.getTime() / 1000) + ctx.config.inboundRetentionDays * 86_400;
  const link = (file: string) => {
    const { url, expiresAt } = signedLink(ctx, m.id, file, expires);
    return { download_url: url, expires_at: expiresAt };
  };
  const total = m.parsed.attachments.reduce((sum, a) => sum + a.size, 0);
  const common = {
    ...receivedEventData(m),
    text: m.parsed.text,
    html: m.parsed.html,
    // as emails.receiving.get answers them; a JSON object carries no order (and the log keeps the
    // payload as jsonb, which sorts keys), so every header in order is the list beside it
    headers: headersByName(m.parsed.headers),
    header_list: m.parsed.headers,
    raw: link('raw'),
  };
  const linked = m.parsed.attachments.map((a) => ({ ...fieldsOf(a), size: a.size, ...link(a.id) }));
  let inline: Promise<Record<string, unknown>[]> | undefined;
  const readInline = async () => {
    const out: Record<string, unknown>[] = [];
    for (const a of m.parsed.attachments) {
      const bytes = await readWhole(ctx, a.key, a.size);
      out.push({ ...fieldsOf(a), size: a.size, content: bytes.toString('base64') });
    }
    return out;
  };
  return async (inlineMaxBytes) => {
    if (total > inlineMaxBytes) return { ...common, attachments: linked };
    inline ??= readInline();
    return { ...common, attachments: await inline };
  };
}
