// One received message for a receiving domain (docs/receiving.md), from the DATA stream to the row:
// the raw bytes are streamed to the storage and synced; SPF, DKIM and DMARC are checked on them
// (mailauth); the MIME is parsed (attachments streamed to the storage); a reply to a message we
// sent is linked to it; the row is committed. Only then is the message acknowledged (250), so a
// crash at any step leaves the sender to try again, and at worst files without a row, which the
// retention sweep removes.
import { randomUUID } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { AppContext } from '../core/context.ts';
import { inTransaction } from '../core/transaction.ts';
import { type AuthVerdicts, type SmtpOrigin, checkAuthentication } from './authenticate.ts';
import { parseInbound, type ParsedInbound, storableFields } from './mime.ts';
import * as repo from './inbound.repository.ts';
import { insertReceivedOutbox } from '../webhooks/outbox.ts';
import { fullReceivedData, receivedEventData } from './received-event.ts';

/** Where a received message goes: the receiving domain's owner. */
export interface InboundTarget {
  customerId: number;
  domainId: number;
  refuseDmarcReject: boolean;
}

/** The reply to the SMTP client: a code and its text. */
export interface InboundAnswer {
  code: number;
  message: string;
  /** The stored message's id, when it was stored. */
  id?: string;
}

const UUID = /^<([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})@[^<>]+>$/i;

/** The storage folder of a received message; the raw message is `raw` in it. */
export const inboundFolder = (id: string) => `inbound/${id}`;
export const rawKey = (id: string) => `${inboundFolder(id)}/raw`;

/**
 * Counts the bytes of the DATA stream and lets none past `maxBytes` through, while still reading
 * it to its end: the SMTP dialogue must reach the end of DATA to answer 552.
 */
function capped(maxBytes: number): Transform & { exceeded: boolean } {
  let size = 0;
  const t = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) {
        (t as Transform & { exceeded: boolean }).exceeded = true;
        done();
      } else done(null, chunk);
    },
  }) as Transform & { exceeded: boolean };
  t.exceeded = false;
  return t;
}

/** The sent transaction this message answers: a Message-ID of ours in In-Reply-To or References. */
async function repliedTransaction(ctx: AppContext, customerId: number, parsed: ParsedInbound): Promise<number | null> {
  const candidates = [parsed.inReplyTo, ...[...parsed.references].reverse()].filter((v): v is string => !!v);
  for (const messageId of candidates) {
    const uuid = UUID.exec(messageId)?.[1];
    if (!uuid) continue;
    const id = await repo.sentTransaction(ctx.db, customerId, uuid.toLowerCase(), messageId);
    if (id !== undefined) return id;
  }
  return null;
}

async function readStored(ctx: AppContext, key: string): Promise<Readable> {
  const stream = await ctx.storage.get(key);
  if (!stream) throw new Error(`stored message ${key} is missing`);
  return stream;
}

/** Removes what was stored of message `id` (its raw file and attachments). */
export async function deleteInboundFiles(ctx: AppContext, id: string, attachmentKeys: string[] = []): Promise<void> {
  for (const key of [rawKey(id), ...attachmentKeys]) await ctx.storage.delete(key);
  for await (const object of ctx.storage.list(`${inboundFolder(id)}/`)) await ctx.storage.delete(object.key);
}

function isDmarcReject(auth: AuthVerdicts): boolean {
  return auth.dmarc === 'fail' && auth.dmarcPolicy === 'reject';
}

/** Stores, checks, parses and records one message; answers what to reply. */
export async function receiveInbound(
  ctx: AppContext,
  target: InboundTarget,
  envelope: SmtpOrigin & { rcptTo: string[] },
  data: Readable,
): Promise<InboundAnswer> {
  const id = randomUUID();
  const maxBytes = ctx.config.inboundMaxMessageBytes;
  const cap = capped(maxBytes);
  let size: number;
  try {
    ({ size } = await ctx.storage.put(rawKey(id), data.pipe(cap), { contentType: 'message/rfc822' }));
    if (cap.exceeded) {
      await deleteInboundFiles(ctx, id);
      return { code: 552, message: `5.3.4 Message exceeds the size limit of ${maxBytes} bytes` };
    }
    const auth = await checkAuthentication(ctx, await readStored(ctx, rawKey(id)), envelope);
    if (isDmarcReject(auth) && target.refuseDmarcReject) {
      await deleteInboundFiles(ctx, id);
      return { code: 550, message: '5.7.1 Rejected by the DMARC policy of the From domain' };
    }
    let parsed: ParsedInbound;
    try {
      parsed = storableFields(await parseInbound(ctx, id, await readStored(ctx, rawKey(id))));
    } catch (err) {
      ctx.logger.info({ err }, 'an unreadable message was refused');
      await deleteInboundFiles(ctx, id);
      return { code: 554, message: '5.6.0 The message could not be parsed' };
    }
    const replyTo = await repliedTransaction(ctx, target.customerId, parsed);
    const at = new Date();
    await inTransaction(ctx.db, async (trx) => {
      await repo.insertInbound(trx, {
        id,
        received_at: at,
        customer_id: target.customerId,
        domain_id: target.domainId,
        envelope_from: envelope.mailFrom,
        received_for: JSON.stringify(envelope.rcptTo),
        remote_ip: envelope.ip || null,
        helo: envelope.helo || null,
        from_address: parsed.from,
        to_addresses: JSON.stringify(parsed.to),
        cc_addresses: JSON.stringify(parsed.cc),
        bcc_addresses: JSON.stringify(parsed.bcc),
        reply_to_addresses: JSON.stringify(parsed.replyTo),
        subject: parsed.subject,
        message_id: parsed.messageId,
        in_reply_to: parsed.inReplyTo,
        references: JSON.stringify(parsed.references),
        sent_at: parsed.date,
        text: parsed.text,
        html: parsed.html,
        headers: JSON.stringify(parsed.headers),
        attachments: JSON.stringify(parsed.attachments),
        raw_size: size,
        spf: auth.spf,
        dkim: auth.dkim,
        dmarc: auth.dmarc,
        dmarc_policy: auth.dmarcPolicy,
        auth_headers: auth.headers,
        flagged: isDmarcReject(auth),
        reply_to_transaction_id: replyTo,
      });
      // the event and the webhook calls it causes commit with the message (docs/webhooks.md)
      const message = { id, at, parsed, receivedFor: envelope.rcptTo };
      await insertReceivedOutbox(ctx, trx, {
        customerId: target.customerId,
        emailId: id,
        at,
        data: receivedEventData(message),
        fullData: fullReceivedData(ctx, message),
      });
    });
    return { code: 250, message: `2.0.0 Message received ${id}`, id };
  } catch (err) {
    data.resume();
    await deleteInboundFiles(ctx, id).catch(() => {});
    throw err;
  }
}
