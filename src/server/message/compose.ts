// MIME assembly (docs/architecture.md §3.2, the message layer): the nodemailer options a loaded
// message is sent with, and the composer that turns them into DKIM-signed bytes for direct delivery.
// The content (tracked, with an attachment block) and the envelope are the caller's: this module
// imports no domain.
import nodemailer from 'nodemailer';
import type { Selectable } from 'kysely';
import type { Address, MessagesTable, StoredAttachment } from '../db/schema.ts';

/** The columns of a message its headers and parts are built from (delivery/queue.repository.ts loadMessages). */
export type ComposableMessage = Pick<
  Selectable<MessagesTable>,
  'from_email' | 'from_name' | 'to_header' | 'cc_header' | 'reply_to' | 'subject' | 'headers' | 'attachments'
>;

/** A message's content as it is sent (tracking.service.ts TrackedContent): raw MIME, or HTML and text. */
interface Content {
  html: string | null;
  text: string | null;
  raw: Buffer | null;
}

const addressList = (list: Address[] | null | undefined) =>
  (list ?? []).map((a) => (a.name ? { name: a.name, address: a.email } : a.email));

/**
 * The nodemailer options of one message for one recipient: an SMTP-submitted message (raw) is sent
 * as it is, an API message is assembled from its fields with the Message-ID fixed at acceptance.
 */
export function mailOptions<E, D>(
  message: ComposableMessage,
  messageIdHeader: string,
  content: Content,
  envelope: E,
  dkim: D,
) {
  return content.raw
    ? { envelope, raw: content.raw, dkim }
    : {
        envelope,
        dkim,
        messageId: messageIdHeader,
        from: message.from_name ? { name: message.from_name, address: message.from_email } : message.from_email,
        to: addressList(message.to_header as Address[]),
        cc: addressList(message.cc_header as Address[] | null),
        replyTo: addressList(message.reply_to as Address[] | null),
        subject: message.subject,
        html: content.html ?? undefined,
        text: content.text ?? undefined,
        headers: (message.headers as Record<string, string> | null) ?? undefined,
        attachments: ((message.attachments as StoredAttachment[] | null) ?? []).map((a) => ({
          filename: a.filename,
          content: a.content,
          encoding: 'base64',
          contentType: a.content_type,
          ...(a.content_id ? { cid: a.content_id } : {}),
        })),
        disableFileAccess: true,
        disableUrlAccess: true,
      };
}

/** Composes and DKIM-signs a message into its bytes, for direct delivery's own SMTP sessions. */
export const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
